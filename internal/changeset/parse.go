package changeset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Parse reads the unified diff text that `git diff` prints (and that GitHub's
// API serves as application/vnd.github.diff) and returns the ChangeSet it
// describes, with Files sorted by Path. It is Stream collecting every file.
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
// end of file" markers (a line starting with '\', however a tool words it)
// are neither content nor counted. Text has no line terminator: the "\n" and
// one "\r" before it are removed.
//
// A hunk's body is read by the counts of its header, so a removed line
// starting with "--" next to an added line starting with "++" (a -U0 diff
// of SQL comments or C increments) is content, never taken for a new
// file's "---"/"+++" header.
//
// Parse fails rather than return part of the diff: it returns an error naming
// the line of the diff, the file and the hunk when a hunk's body does not
// have as many lines as its header says, when a hunk header is malformed,
// when an extended header line is not one git writes, or when text that is
// not a diff precedes or follows the files. The input is streamed; the whole
// diff is never held in memory at once.
func Parse(r io.Reader) (*ChangeSet, error) {
	cs := &ChangeSet{Files: []File{}}
	err := Stream(r, func(f *File) error {
		cs.Files = append(cs.Files, *f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	cs.Sort()
	return cs, nil
}

// Stream reads a diff the way Parse does and calls fn once per file entry,
// in the order of the diff (not sorted), as soon as the entry's last line
// has been read: fn can work on one file while the writer of the diff (a
// `git diff` process) produces the next. The *File is fn's to keep; Stream
// never touches it again. A file's added-line texts share one string, so
// memory is bounded by the largest file plus what fn keeps.
//
// Stream returns the first error: a read error ("reading diff: ..."), a
// malformed diff (the same errors as Parse), or fn's error, returned as is.
// On a malformed diff, fn has already seen the files before the bad one:
// a caller that needs all or nothing (as Parse) drops them on the error.
func Stream(r io.Reader, fn func(*File) error) error {
	p := &parser{br: bufio.NewReaderSize(r, 64<<10)}
	return p.run(fn)
}

// parser holds the state of one Stream.
type parser struct {
	br     *bufio.Reader
	long   []byte // a line longer than br's buffer, assembled
	back   []byte // a line given back with unread, copied
	isBack bool
	lineNo int    // 1-based number of the line next returned
	last   string // the path of the last file handed to fn, for errors

	// The added lines of the current file: their text appended in text,
	// their numbers and ends in spans, made into one string per file.
	text  []byte
	spans []span
}

type span struct{ line, end int }

// errRead marks an error from the reader, not from the diff.
type errRead struct{ err error }

func (e *errRead) Error() string { return "reading diff: " + e.err.Error() }
func (e *errRead) Unwrap() error { return e.err }

// next returns the next line without its "\n" ("\r" is kept), valid until
// the next call; ok is false at the end of the input.
func (p *parser) next() (line []byte, ok bool, err error) {
	if p.isBack {
		p.isBack = false
		p.lineNo++
		return p.back, true, nil
	}
	line, err = p.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		p.long = append(p.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = p.br.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, &errRead{err}
	}
	if len(line) == 0 {
		return nil, false, nil // io.EOF
	}
	p.lineNo++
	return bytes.TrimSuffix(line, []byte{'\n'}), true, nil
}

// unread gives line back: the next call of next returns it again.
func (p *parser) unread(line []byte) {
	p.back = append(p.back[:0], line...)
	p.isBack = true
	p.lineNo--
}

func (p *parser) wrap(err error) error {
	var re *errRead
	if errors.As(err, &re) {
		return err
	}
	where := fmt.Sprintf("line %d", p.lineNo)
	if p.last != "" {
		where += fmt.Sprintf(", after file %q", p.last)
	}
	return fmt.Errorf("parsing diff (%s): %w", where, err)
}

func (p *parser) run(fn func(*File) error) error {
	for {
		line, ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if isBlank(line) {
			continue // a separator line (B01)
		}
		if !bytes.HasPrefix(line, []byte(gitHeaderPrefix)) && !bytes.HasPrefix(line, []byte("--- ")) {
			return p.wrap(fmt.Errorf("unexpected line %q outside a file entry", line))
		}
		f, err := p.entry(line)
		if err != nil {
			return p.wrap(err)
		}
		if err := fn(f); err != nil {
			return err
		}
		p.last = f.Path()
	}
}

const gitHeaderPrefix = "diff --git "

// entry reads one file entry, whose first line ("diff --git ..." or, in a
// diff without git's headers, "--- ...") is first.
func (p *parser) entry(first []byte) (*File, error) {
	var ext []string // the `diff --git` line and the extended header lines
	var minus []byte // the "---" line, if any
	if bytes.HasPrefix(first, []byte(gitHeaderPrefix)) {
		ext = append(ext, string(first))
		for {
			line, ok, err := p.next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if bytes.HasPrefix(line, []byte(gitHeaderPrefix)) {
				p.unread(line)
				break
			}
			if bytes.HasPrefix(line, []byte("--- ")) {
				minus = line
				break
			}
			ext = append(ext, string(line))
		}
	} else {
		minus = first
	}
	h, err := parseExtended(ext)
	if err != nil {
		return nil, h.locate(err)
	}
	var names fileNames
	p.text, p.spans = p.text[:0], p.spans[:0]
	if minus != nil {
		if names, err = p.hunks(&h, minus); err != nil {
			return nil, err
		}
	}
	if !names.hasHunks {
		if !h.hasGitHeader {
			return nil, fmt.Errorf("file entry %q has neither a `diff --git` line nor hunks", names.new)
		}
		if h.extendedLines == 0 {
			return nil, fmt.Errorf("file entry %q ends after its `diff --git` line; the diff is truncated", h.gitNew)
		}
	}
	f, err := h.file(names)
	if err != nil {
		return nil, h.locate(err)
	}
	if f.Binary && len(p.spans) > 0 {
		return nil, fmt.Errorf("file %q is marked binary but has hunks", f.Path())
	}
	if f.Status == Deleted && len(p.spans) > 0 {
		return nil, fmt.Errorf("file %q is deleted but its hunks add lines", f.Path())
	}
	if len(p.spans) > 0 {
		s := string(p.text) // one allocation for the file's added text
		f.Added = make([]AddedLine, len(p.spans))
		start := 0
		for i, sp := range p.spans {
			f.Added[i] = AddedLine{Line: sp.line, Text: s[start:sp.end]}
			start = sp.end
		}
	}
	return &f, nil
}

// hunks reads the "---" line minus, the "+++" line after it and the hunks,
// collecting the added lines in p.text and p.spans.
func (p *parser) hunks(h *entryHeader, minus []byte) (fileNames, error) {
	var names fileNames
	var err error
	if names.orig, err = headerName(minus[len("--- "):]); err != nil {
		return names, h.locate(err)
	}
	plus, ok, err := p.next()
	if err != nil {
		return names, err
	}
	if !ok || !bytes.HasPrefix(plus, []byte("+++ ")) {
		return names, h.locate(fmt.Errorf("a \"---\" line is not followed by a \"+++\" line; the diff is truncated or malformed"))
	}
	if names.new, err = headerName(plus[len("+++ "):]); err != nil {
		return names, h.locate(err)
	}
	path := h.gitNew // for errors
	if path == "" {
		path = strings.TrimPrefix(names.new, newPrefix)
	}
	var prev *hunkRange
	markers := 0 // "\" lines after the hunk's counts
	for {
		line, ok, err := p.next()
		if err != nil {
			return names, err
		}
		if !ok {
			return names, nil
		}
		switch {
		case bytes.HasPrefix(line, []byte(hunkHeaderPrefix)):
			hr, err := parseHunkHeader(line)
			if err != nil {
				return names, fmt.Errorf("file %q: %w", path, err)
			}
			if prev != nil && (hr.oldStart < prev.oldStart+prev.oldLines || hr.newStart < prev.newStart+prev.newLines) {
				return names, fmt.Errorf("file %q: hunk %s overlaps or precedes the hunk before it", path, hr)
			}
			if err := p.hunkBody(hr); err != nil {
				return names, fmt.Errorf("file %q: %w", path, err)
			}
			names.hasHunks = true
			prev = &hr
			markers = 0
		case len(line) > 0 && line[0] == '\\':
			// A "\ No newline at end of file" after a hunk's last line;
			// git writes one at most.
			if markers++; markers > 1 && prev != nil {
				return names, fmt.Errorf("file %q: hunk %q is followed by more than one %q line", path, prev.String(), line)
			}
		case names.hasHunks && len(line) > 0 && (line[0] == ' ' || line[0] == '+' || line[0] == '-') && !bytes.HasPrefix(line, []byte("--- ")):
			// A lone " " too: it is the context line of an empty line, which
			// git writes only within a hunk's counts.
			return names, fmt.Errorf("file %q: hunk %q has more lines than its header says, starting with %q", path, prev.String(), line)
		case isBlank(line):
			// A blank separator.
		default:
			// The next entry (or text that is not a diff, which run
			// reports).
			p.unread(line)
			return names, nil
		}
	}
}

const hunkHeaderPrefix = "@@ "

// hunkRange is what a hunk header says.
type hunkRange struct {
	oldStart, oldLines, newStart, newLines int
}

// String formats the header the way git writes it.
func (r hunkRange) String() string {
	return fmt.Sprintf("@@ -%s +%s @@", rangeText(r.oldStart, r.oldLines), rangeText(r.newStart, r.newLines))
}

func rangeText(start, lines int) string {
	if lines == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d,%d", start, lines)
}

// parseHunkHeader reads "@@ -A[,B] +C[,D] @@[ section]".
func parseHunkHeader(line []byte) (hunkRange, error) {
	var r hunkRange
	header := strings.TrimSuffix(string(line), "\r")
	pieces := strings.SplitN(header, " ", 5)
	bad := fmt.Errorf("malformed hunk header %q", header)
	if len(pieces) < 4 || pieces[0] != "@@" || pieces[3] != "@@" {
		return r, bad
	}
	var ok1, ok2 bool
	r.oldStart, r.oldLines, ok1 = parseRange(pieces[1], '-')
	r.newStart, r.newLines, ok2 = parseRange(pieces[2], '+')
	if !ok1 || !ok2 {
		return r, bad
	}
	if (r.newStart == 0 && r.newLines != 0) || (r.oldStart == 0 && r.oldLines != 0) {
		return r, fmt.Errorf("hunk %q: bad line range", r.String())
	}
	return r, nil
}

// parseRange reads "-A[,B]" or "+A[,B]" (B defaults to 1); the numbers
// are decimal and below 2^31.
func parseRange(s string, sign byte) (start, lines int, ok bool) {
	if s == "" || s[0] != sign {
		return 0, 0, false
	}
	a, b, hasCount := strings.Cut(s[1:], ",")
	start, ok = parseCount(a)
	lines = 1
	if ok && hasCount {
		lines, ok = parseCount(b)
	}
	return start, lines, ok
}

func parseCount(s string) (int, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err == nil
}

// hunkBody reads exactly the old-side and new-side lines the header
// counts; '\' lines among them are markers, not lines.
func (p *parser) hunkBody(hr hunkRange) error {
	var oldSeen, newSeen int
	next := hr.newStart // the new-side line number of the next ' ' or '+' line
	short := func() error {
		return fmt.Errorf("hunk %q: the header says %d old and %d new lines but the body has %d and %d; the diff is truncated or malformed",
			hr.String(), hr.oldLines, hr.newLines, oldSeen, newSeen)
	}
	for oldSeen < hr.oldLines || newSeen < hr.newLines {
		line, ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return short()
		}
		c := byte(' ') // an empty line: a context line whose single space was trimmed (B01)
		if len(line) > 0 {
			c = line[0]
		}
		switch c {
		case '\\':
			continue
		case ' ':
			oldSeen++
			newSeen++
			next++
		case '+':
			t := bytes.TrimSuffix(line[1:], []byte{'\r'})
			p.text = append(p.text, t...)
			p.spans = append(p.spans, span{line: next, end: len(p.text)})
			newSeen++
			next++
		case '-':
			oldSeen++
		default:
			if bytes.HasPrefix(line, []byte(hunkHeaderPrefix)) || bytes.HasPrefix(line, []byte(gitHeaderPrefix)) {
				return short()
			}
			return fmt.Errorf("hunk %q: line %q does not start with ' ', '+' or '-'", hr.String(), line)
		}
		if oldSeen > hr.oldLines || newSeen > hr.newLines {
			return fmt.Errorf("hunk %q has more lines than its header says at %q", hr.String(), line)
		}
	}
	return nil
}

// headerName reads the name of a "---" or "+++" line (after the prefix):
// surrounding space trimmed, a timestamp after a TAB checked and dropped,
// a quoted name unquoted.
func headerName(b []byte) (string, error) {
	s := strings.TrimSpace(string(b))
	name, ts, hasTS := strings.Cut(s, "\t")
	if hasTS {
		if _, err := time.Parse("2006-01-02 15:04:05 -0700", ts); err != nil {
			if _, err := time.Parse("2006-01-02 15:04:05", ts); err != nil {
				return "", fmt.Errorf("a \"---\" or \"+++\" line has text after a TAB that is not a timestamp: %q", ts)
			}
		}
	}
	if u, err := strconv.Unquote(name); err == nil {
		name = u
	}
	return name, nil
}

func isBlank(line []byte) bool {
	return len(bytes.TrimSpace(line)) == 0
}
