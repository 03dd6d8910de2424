package changeset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sourcegraph/go-diff/diff"
)

// parseGoDiff is the parser Parse had before its own reader: go-diff's
// MultiFileDiffReader, checked line counts and header counts. The tests
// use it as an oracle: on what both accept, both must give the same
// ChangeSet.
func parseGoDiff(r io.Reader) (cs *ChangeSet, err error) {
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
		f, hasGitHeader, err := fileFromGoDiff(fd)
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
	f, err := h.file(goDiffNames(nil))
	if err != nil {
		return File{}, false, h.locate(err)
	}
	return f, true, nil
}

// fileFromDiff turns one go-diff file entry into a File. hasGitHeader reports
// whether the entry had a `diff --git` line.
func fileFromGoDiff(fd *diff.FileDiff) (File, bool, error) {
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
	f, err := h.file(goDiffNames(fd))
	if err != nil {
		return File{}, h.hasGitHeader, h.locate(err)
	}
	var origEnd, newEnd int64 // where the previous hunk's ranges end
	for i, hunk := range fd.Hunks {
		// Hunks are in order and do not overlap (git never writes them
		// otherwise); overlapping ones would number added lines twice.
		if i > 0 && (int64(hunk.OrigStartLine) < origEnd || int64(hunk.NewStartLine) < newEnd) {
			return File{}, h.hasGitHeader, fmt.Errorf("file %q: hunk %s overlaps or precedes the hunk before it", f.Path(), goDiffHunkHeader(hunk))
		}
		origEnd, newEnd = int64(hunk.OrigStartLine)+int64(hunk.OrigLines), int64(hunk.NewStartLine)+int64(hunk.NewLines)
		added, err := goDiffAddedLines(hunk)
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

// goDiffNames gives file what a go-diff entry's "---"/"+++" lines say.
func goDiffNames(fd *diff.FileDiff) fileNames {
	if fd == nil {
		return fileNames{}
	}
	return fileNames{orig: fd.OrigName, new: fd.NewName, hasHunks: len(fd.Hunks) > 0}
}

// addedLines walks one hunk's body and returns its added lines with their
// line numbers in the new file. It checks that the body has exactly as many
// old-side and new-side lines as the hunk header says; blank lines after the
// counts are used up are separators between file entries and are skipped.
func goDiffAddedLines(h *diff.Hunk) ([]AddedLine, error) {
	if h.OrigStartLine < 0 || h.OrigLines < 0 || h.NewStartLine < 0 || h.NewLines < 0 ||
		(h.NewStartLine == 0 && h.NewLines != 0) || (h.OrigStartLine == 0 && h.OrigLines != 0) {
		return nil, fmt.Errorf("hunk %q: bad line range", goDiffHunkHeader(h))
	}
	var lines []string
	if len(h.Body) > 0 {
		lines = strings.Split(strings.TrimSuffix(string(h.Body), "\n"), "\n")
	}
	var added []AddedLine
	var oldSeen, newSeen int
	next := int(h.NewStartLine) // the new-side line number of the next ' ' or '+' line
	wantOld, wantNew := int(h.OrigLines), int(h.NewLines)
	for _, line := range lines {
		if strings.HasPrefix(line, "\\") {
			// "\ No newline at end of file" (go-diff drops git's own; other
			// tools word it differently): not content, not a line.
			continue
		}
		if oldSeen == wantOld && newSeen == wantNew {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return nil, fmt.Errorf("hunk %q has more lines than its header says, starting with %q", goDiffHunkHeader(h), line)
		}
		if line == "" {
			// A context line whose single space was trimmed away (B01).
			oldSeen++
			newSeen++
			next++
			continue
		}
		switch line[0] {
		case ' ':
			oldSeen++
			newSeen++
			next++
		case '+':
			added = append(added, AddedLine{Line: next, Text: strings.TrimSuffix(line[1:], "\r")})
			newSeen++
			next++
		case '-':
			oldSeen++
		default:
			return nil, fmt.Errorf("hunk %q: line %q does not start with ' ', '+' or '-'", goDiffHunkHeader(h), line)
		}
		if oldSeen > wantOld || newSeen > wantNew {
			return nil, fmt.Errorf("hunk %q has more lines than its header says at %q", goDiffHunkHeader(h), line)
		}
	}
	if oldSeen != wantOld || newSeen != wantNew {
		return nil, fmt.Errorf("hunk %q: the header says %d old and %d new lines but the body has %d and %d; the diff is truncated or malformed",
			goDiffHunkHeader(h), wantOld, wantNew, oldSeen, newSeen)
	}
	return added, nil
}

// hunkHeader formats a hunk's header the way git writes it.
func goDiffHunkHeader(h *diff.Hunk) string {
	return fmt.Sprintf("@@ -%s +%s @@", goDiffRange(h.OrigStartLine, h.OrigLines), goDiffRange(h.NewStartLine, h.NewLines))
}

func goDiffRange(start, lines int32) string {
	if lines == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, lines)
}

// headerCounter passes a diff through and counts the lines that start a file
// entry ("diff --git ") or a hunk ("@@ "). Neither can be hunk content (which
// starts with ' ', '+', '-' or '\'), so Parse compares the counts with what
// go-diff returned to catch entries or hunks it skipped without an error.
type headerCounter struct {
	r           io.Reader
	gitHeaders  int
	hunkHeaders int
	err         error // a read error other than io.EOF

	lineStart []byte // the first bytes of the current line, up to len(gitHeaderPrefix)
	midLine   bool   // the current line is longer than lineStart can tell
}

func (c *headerCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		if c.midLine {
			// The rest of the line cannot start a header: jump to its end
			// rather than look at each byte.
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				break
			}
			c.lineStart, c.midLine = c.lineStart[:0], false
			b = b[i+1:]
			continue
		}
		c.scan(b[0])
		b = b[1:]
	}
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
	}
	return n, err
}

func (c *headerCounter) scan(b byte) {
	if b == '\n' {
		c.lineStart, c.midLine = c.lineStart[:0], false
		return
	}
	if c.midLine {
		return
	}
	c.lineStart = append(c.lineStart, b)
	switch string(c.lineStart) {
	case gitHeaderPrefix:
		c.gitHeaders++
		c.midLine = true
	case hunkHeaderPrefix:
		c.hunkHeaders++
		c.midLine = true
	default:
		if len(c.lineStart) >= len(gitHeaderPrefix) || !isPrefixOfEither(c.lineStart) {
			c.midLine = true
		}
	}
}

func isPrefixOfEither(s []byte) bool {
	return isPrefix(s, gitHeaderPrefix) || isPrefix(s, hunkHeaderPrefix)
}

func isPrefix(s []byte, of string) bool {
	return len(s) <= len(of) && string(s) == of[:len(s)]
}
