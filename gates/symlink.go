package gates

import (
	"path"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
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
}

// codeSymlinks lists the changed symlinks whose content a build reads as
// code that no gate scanned as such (linkedCode), in change-set order.
func codeSymlinks(cs *changeset.ChangeSet) []linkedCode {
	if cs == nil {
		return nil
	}
	var out []linkedCode
	for i := range cs.Files {
		f := &cs.Files[i]
		if f.Status == changeset.Deleted || f.NewPath == "" {
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
		if f.NewMode&0o170000 != 0o120000 || !isSourceCode(f.NewPath) {
			continue
		}
		if len(f.Added) == 0 {
			out = append(out, linkedCode{path: f.NewPath, why: "its target is not in the diff (a renamed or binary link), so it could not be resolved"})
			continue
		}
		target := f.Added[0].Text
		if why := linkTargetProblem(f.NewPath, target); why != "" {
			out = append(out, linkedCode{path: f.NewPath, target: target, why: why})
		}
	}
	return out
}

// linkTargetProblem says why the target of the symlink at link (a source
// file by its name) is not scanned as the code it becomes, or "".
func linkTargetProblem(link, target string) string {
	if target == "" || strings.ContainsAny(target, "\x00\n\r\\") || path.IsAbs(target) {
		return "its target is absolute or not a plain relative path, outside what swarm-gate reads"
	}
	t := path.Join(path.Dir(link), target)
	if t == ".." || strings.HasPrefix(t, "../") || t == "." {
		return "its target lies outside the repository"
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

// kind is the key suffix of l's not-scanned findings.
func (l linkedCode) kind() string {
	if l.submodule {
		return "submodule"
	}
	return "symlink"
}

// symlinkMessage is the not-scanned message of l for a gate, ending with
// what to do about it (per the severity).
func symlinkMessage(l linkedCode, sev Severity) string {
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
	msg += " with the name of a source file, and " + l.why + "; swarm-gate never follows symlinks, but a build does (it compiles or loads the target's content as " + l.path + "), so that content was not scanned as code"
	if sev == SeverityError {
		return msg + ": commit the code as a regular file under its own name, or set limits.unscanned: warn in the base branch's policy"
	}
	return msg + " (limits.unscanned: warn)"
}
