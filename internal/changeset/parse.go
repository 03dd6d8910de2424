package changeset

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sourcegraph/go-diff/diff"
)

// Parse reads the unified diff text that `git diff` prints (and that GitHub's
// API serves as application/vnd.github.diff) and returns the ChangeSet it
// describes, with Files sorted by Path.
//
// The diff must use git's default "a/" and "b/" path prefixes; "/dev/null"
// means the file does not exist on that side. Quoted, C-escaped paths are
// decoded. Every file git lists appears, including entries without hunks (a
// mode change, a binary file, a pure rename or copy, an empty new file).
//
// Added lines carry their 1-based line number in the new file, computed from
// the hunk headers: a '+' or ' ' line advances the new-side counter, an empty
// body line counts as a context line (the way `git apply` reads a context line
// whose single space was trimmed), a '-' line does not, and "\ No newline at
// end of file" markers are neither content nor counted. Text has no line
// terminator: the "\n" and one "\r" before it are removed.
//
// Parse fails rather than return part of the diff: it returns an error naming
// the file and hunk when a hunk's body does not have as many lines as its
// header says, when a `diff --git` entry or a hunk header is not accounted
// for, when an extended header line is not one git writes, or when text that
// is not a diff precedes or follows the files. The input is streamed; the
// whole diff is never held in memory at once.
//
// One shape cannot be read: in a diff without context lines (-U0), a removed
// line starting with "--" directly followed by an added line starting with
// "++" and then the next hunk's "@@" header is taken by go-diff for a new
// file's "---"/"+++" header. Parse reports that hunk as short (an error, not
// a wrong change set); diffs with one or more lines of context never have
// the shape.
func Parse(r io.Reader) (cs *ChangeSet, err error) {
	defer func() {
		// go-diff is third-party code reading untrusted input: a panic in it
		// must become an error, never a crash of the check.
		if p := recover(); p != nil {
			cs, err = nil, fmt.Errorf("parsing diff: %w: %v", errPanic, p)
		}
	}()

	counter := &headerCounter{r: r}
	reader := diff.NewMultiFileDiffReaderOptions(counter, diff.ParseOptions{KeepCR: true})
	cs = &ChangeSet{Files: []File{}}
	var gitHeaders, hunks int
	for {
		fd, trailing, err := reader.ReadFileWithTrailingContent()
		if errors.Is(err, io.EOF) {
			f, found, err := parseTrailing(trailing)
			if err != nil {
				return nil, fmt.Errorf("parsing diff%s: %w", after(cs), err)
			}
			if found {
				gitHeaders++
				cs.Files = append(cs.Files, f)
			}
			break
		}
		if err != nil {
			if counter.err != nil {
				return nil, fmt.Errorf("reading diff: %w", counter.err)
			}
			return nil, fmt.Errorf("parsing diff: file entry %d%s: %w", len(cs.Files)+1, after(cs), describe(err))
		}
		f, hasGitHeader, err := fileFromDiff(fd)
		if err != nil {
			return nil, fmt.Errorf("parsing diff%s: %w", after(cs), err)
		}
		if hasGitHeader {
			gitHeaders++
		}
		hunks += len(fd.Hunks)
		cs.Files = append(cs.Files, f)
	}
	if counter.err != nil {
		return nil, fmt.Errorf("reading diff: %w", counter.err)
	}
	if counter.gitHeaders != gitHeaders {
		return nil, fmt.Errorf("parsing diff: it has %d `diff --git` lines but %d file entries were read; the diff is malformed or truncated", counter.gitHeaders, gitHeaders)
	}
	if counter.hunkHeaders != hunks {
		return nil, fmt.Errorf("parsing diff: it has %d hunk headers (`@@ ` lines) but %d hunks were read; the diff is malformed or truncated", counter.hunkHeaders, hunks)
	}
	cs.Sort()
	return cs, nil
}

// describe adds what go-diff leaves out of its errors that are not
// *diff.ParseError: which line they come from.
func describe(err error) error {
	var pe *diff.ParseError
	var te *time.ParseError
	switch {
	case errors.As(err, &pe):
		return err
	case errors.As(err, &te):
		return fmt.Errorf("a \"---\" or \"+++\" line has text after a TAB that is not a timestamp: %w", err)
	default:
		return fmt.Errorf("malformed hunk header: %w", err)
	}
}

// errPanic marks an error made from a panic while parsing; the fuzz test
// treats it as a failure.
var errPanic = errors.New("internal error while reading the diff")

// after names the last file read, to locate an error in the diff.
func after(cs *ChangeSet) string {
	if len(cs.Files) == 0 {
		return ""
	}
	return fmt.Sprintf(" (after file %q)", cs.Files[len(cs.Files)-1].Path())
}

// parseTrailing handles what go-diff returns as trailing content at the end of
// the diff. Blank lines are ignored. go-diff also returns a last hunk-less
// entry as trailing content when its extended headers do not match the shapes
// it knows (for example a binary file whose mode also changed); such an entry
// is parsed like any other. Anything else is an error.
func parseTrailing(trailing string) (File, bool, error) {
	if strings.TrimSpace(trailing) == "" {
		return File{}, false, nil
	}
	lines := strings.Split(trailing, "\n")
	h, err := parseExtended(lines)
	if err != nil {
		return File{}, false, h.locate(err)
	}
	if !h.hasGitHeader {
		return File{}, false, fmt.Errorf("unexpected text at the end of the diff: %q", firstNonBlank(lines))
	}
	if h.extendedLines == 0 {
		return File{}, false, fmt.Errorf("file entry %q ends after its `diff --git` line; the diff is truncated", h.gitNew)
	}
	f, err := h.file(nil)
	if err != nil {
		return File{}, false, h.locate(err)
	}
	return f, true, nil
}

// fileFromDiff turns one go-diff file entry into a File. hasGitHeader reports
// whether the entry had a `diff --git` line.
func fileFromDiff(fd *diff.FileDiff) (File, bool, error) {
	h, err := parseExtended(fd.Extended)
	if err != nil {
		return File{}, false, h.locate(err)
	}
	if len(fd.Hunks) == 0 {
		if !h.hasGitHeader {
			return File{}, false, fmt.Errorf("file entry %q has neither a `diff --git` line nor hunks", fd.NewName)
		}
		if h.extendedLines == 0 {
			return File{}, true, fmt.Errorf("file entry %q ends after its `diff --git` line; the diff is truncated", h.gitNew)
		}
	}
	f, err := h.file(fd)
	if err != nil {
		return File{}, h.hasGitHeader, h.locate(err)
	}
	var origEnd, newEnd int64 // where the previous hunk's ranges end
	for i, hunk := range fd.Hunks {
		// Hunks are in order and do not overlap (git never writes them
		// otherwise); overlapping ones would number added lines twice.
		if i > 0 && (int64(hunk.OrigStartLine) < origEnd || int64(hunk.NewStartLine) < newEnd) {
			return File{}, h.hasGitHeader, fmt.Errorf("file %q: hunk %s overlaps or precedes the hunk before it", f.Path(), hunkHeader(hunk))
		}
		origEnd, newEnd = int64(hunk.OrigStartLine)+int64(hunk.OrigLines), int64(hunk.NewStartLine)+int64(hunk.NewLines)
		added, err := addedLines(hunk)
		if err != nil {
			return File{}, h.hasGitHeader, fmt.Errorf("file %q: %w", f.Path(), err)
		}
		f.Added = append(f.Added, added...)
	}
	if f.Binary && len(f.Added) > 0 {
		return File{}, h.hasGitHeader, fmt.Errorf("file %q is marked binary but has hunks", f.Path())
	}
	return f, h.hasGitHeader, nil
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}
