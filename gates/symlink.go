package gates

import (
	"path"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/placeholder"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// linkedCode is a symlink the pull request adds, retargets, renames or
// copies whose name makes it source code (by its extension) while its
// target is not source of the same language: a build follows the link
// (go build compiles a symlinked impl.go -> notes.txt, Node loads it), but
// swarm/placeholders and swarm/sast, which never follow symlinks, judge
// the target by its own name (prose, data, or a .swarm/ file), so code
// there would run unscanned.
type linkedCode struct {
	path   string // the symlink
	target string // its target as written ("" when unknown)
	why    string // what the target is
	// submodule is true for a git submodule (gitlink) the pull request
	// adds or changes.
	submodule bool
	// lfs is true for a source file committed as a Git LFS pointer.
	lfs bool
	// other is true for a symlink whose name is neither source code nor a
	// document (Makefile, Dockerfile, bin/run, run.bat): make, docker or a
	// shell reads its target's content as what the name says.
	other bool
}

// codeSymlinks lists the changed symlinks whose content a build reads as
// code that no gate scanned as such (linkedCode), and the source files
// committed as Git LFS pointers, in change-set order. headFile, when not
// nil, is Input.HeadFile.
func codeSymlinks(cs *changeset.ChangeSet, headFile func(string) ([]byte, bool)) []linkedCode {
	if cs == nil {
		return nil
	}
	var out []linkedCode
	for i := range cs.Files {
		f := &cs.Files[i]
		if f.Status == changeset.Deleted || f.NewPath == "" {
			continue
		}
		if f.NewMode&0o170000 != 0o120000 && f.NewMode&0o170000 != 0o160000 && isSourceCode(f.NewPath) && lfsPointer(f, headFile) {
			// The checkout's LFS filter (or a build that fetches the
			// object) brings content no gate read.
			out = append(out, linkedCode{path: f.NewPath, lfs: true, why: "a Git LFS pointer: content not in the repository"})
			continue
		}
		if f.NewMode&0o170000 == 0o160000 {
			// A submodule the pull request adds, moves or points at
			// another commit: that commit's files (any repository's, even
			// an orphan commit of this one) are checked out by a
			// recursive clone and built, and no gate read them.
			out = append(out, linkedCode{path: f.NewPath, submodule: true, why: "a git submodule, whose files (another commit's, which can be any repository's) no gate reads"})
			continue
		}
		if f.NewMode&0o170000 != 0o120000 {
			continue
		}
		code := isSourceCode(f.NewPath)
		if !code && placeholder.IsDocument(f.NewPath) {
			continue // a document is read, never built or run
		}
		if len(f.Added) == 0 {
			out = append(out, linkedCode{path: f.NewPath, other: !code, why: "its target is not in the diff (a renamed or binary link), so it could not be resolved"})
			continue
		}
		target := f.Added[0].Text
		why := ""
		if code {
			why = linkTargetProblem(f.NewPath, target)
		} else {
			why = otherLinkTargetProblem(f.NewPath, target)
		}
		if why != "" {
			out = append(out, linkedCode{path: f.NewPath, target: target, other: !code, why: why})
		}
	}
	return out
}

// linkTargetProblem says why the target of the symlink at link (a source
// file by its name) is not scanned as the code it becomes, or "".
func linkTargetProblem(link, target string) string {
	t, why := linkTargetPath(link, target)
	if why != "" {
		return why
	}
	if !isSourceCode(t) {
		return "its target " + t + " is not source code by its name, so the gates judged its content as prose or data"
	}
	ll, lok := sast.LanguageOf(link)
	tl, tok := sast.LanguageOf(t)
	if (lok || tok) && ll != tl || !lok && !tok && !strings.EqualFold(path.Ext(link), path.Ext(t)) {
		return "its target " + t + " is source of another language, so the gates judged its content by other rules"
	}
	return ""
}

// linkTargetPath is the repository path of the symlink at link's target,
// or why it has none that swarm-gate reads.
func linkTargetPath(link, target string) (t, why string) {
	if target == "" || strings.ContainsAny(target, "\x00\n\r\\") || path.IsAbs(target) {
		return "", "its target is absolute or not a plain relative path, outside what swarm-gate reads"
	}
	t = path.Join(path.Dir(link), target)
	if t == ".." || strings.HasPrefix(t, "../") || t == "." {
		return "", "its target lies outside the repository"
	}
	return t, ""
}

// otherLinkTargetProblem is linkTargetProblem for a symlink at link whose
// name is neither source code nor a document: its target is not scanned
// as what runs when it lies outside the repository, or when the gates
// judge it by its own name as prose, data or the plugin's state (a target
// of any other kind is scanned as code or text on its own).
func otherLinkTargetProblem(link, target string) string {
	t, why := linkTargetPath(link, target)
	switch {
	case why != "":
		return why
	case placeholder.IsDocument(t):
		return "its target " + t + " is a document by its name, so the gates judged its content as prose"
	case isDataFile(t):
		return "its target " + t + " is a data file by its name, which the gates do not scan"
	case isSwarmPath(t):
		return "its target " + t + " is the plugin's state under .swarm/, which the gates do not scan"
	}
	return ""
}

// lfsPointer reports whether changed file f is a Git LFS pointer at head:
// by its first line when the pull request adds it, else by its head
// content when it could be one: a changed oid line, or no added lines (a
// rename, or lines released after the streamed scan) and under the spec's
// 1024 bytes.
func lfsPointer(f *changeset.File, headFile func(string) ([]byte, bool)) bool {
	if f.Binary || f.TooLarge {
		return false
	}
	if len(f.Added) > 0 && f.Added[0].Line == 1 {
		return swarm.IsLFSPointer([]byte(f.Added[0].Text))
	}
	maybe := len(f.Added) == 0 && f.Size > 0 && f.Size < 1024 || len(f.Added) > 0 && f.Added[0].Line == 2 && strings.HasPrefix(f.Added[0].Text, "oid ")
	if headFile == nil || !maybe {
		return false
	}
	head, ok := headFile(f.NewPath)
	return ok && swarm.IsLFSPointer(head)
}

// kind is the key suffix of l's not-scanned findings.
func (l linkedCode) kind() string {
	switch {
	case l.submodule:
		return "submodule"
	case l.lfs:
		return "lfs"
	}
	return "symlink"
}

// symlinkMessage is the not-scanned message of l for a gate, ending with
// what to do about it (per the severity).
func symlinkMessage(l linkedCode, sev Severity) string {
	if l.lfs {
		msg := l.path + " is not scanned: " + l.why + " (the commit holds a Git LFS pointer; a checkout with LFS replaces it with an object no gate read)"
		if sev == SeverityError {
			return msg + ": commit the source without LFS (drop its filter=lfs line from .gitattributes and run `git add --renormalize " + l.path + "`), or set limits.unscanned: warn in the base branch's policy"
		}
		return msg + " (limits.unscanned: warn)"
	}
	if l.submodule {
		msg := l.path + " is " + l.why + "; the pull request adds it or changes the commit it points at, so that code was not scanned"
		if sev == SeverityError {
			return msg + ": commit the code itself, or set limits.unscanned: warn in the base branch's policy"
		}
		return msg + " (limits.unscanned: warn)"
	}
	msg := l.path + " is a symlink"
	if l.target != "" {
		msg += " to " + l.target
	}
	if l.other {
		msg += " whose name is not a document's (a build file or script a tool runs), and " + l.why + "; swarm-gate never follows symlinks, but make, docker or a shell does (it reads the target's content as " + l.path + "), so that content was not scanned as what runs"
	} else {
		msg += " with the name of a source file, and " + l.why + "; swarm-gate never follows symlinks, but a build does (it compiles or loads the target's content as " + l.path + "), so that content was not scanned as code"
	}
	if sev == SeverityError {
		return msg + ": commit the code as a regular file under its own name, or set limits.unscanned: warn in the base branch's policy"
	}
	return msg + " (limits.unscanned: warn)"
}
