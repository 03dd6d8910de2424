package changeset

import (
	"fmt"
	"strconv"
	"strings"
)

// The prefixes git puts before the old and new path of every file.
const (
	oldPrefix = "a/"
	newPrefix = "b/"
	devNull   = "/dev/null"
)

// entryHeader is what the lines of one file entry before its hunks say: the
// `diff --git` line and git's extended header lines.
type entryHeader struct {
	hasGitHeader bool
	// extendedLines counts the non-blank lines after `diff --git`.
	extendedLines int
	// gitOld and gitNew are the decoded paths of the `diff --git` line without
	// their prefixes; both "" when the line is ambiguous (unquoted paths
	// with spaces that differ, as only renames and copies have).
	gitOld, gitNew string

	newFile, deletedFile bool
	fileMode             uint32 // of "new file mode" or "deleted file mode"
	oldMode, newMode     uint32 // of "old mode" / "new mode"
	indexMode            uint32 // of the "index" line: the mode of both sides
	newBlob              string // of the "index" line: the new side's object name

	renameFrom, renameTo string
	copyFrom, copyTo     string
	similarity           int
	binary               bool
}

// parseExtended reads the lines of a file entry before its "---" header:
// anything before `diff --git` (only blank lines are allowed there), the
// `diff --git` line, and the extended header lines after it.
func parseExtended(lines []string) (entryHeader, error) {
	var h entryHeader
	inBinaryPatch := false
	for _, raw := range lines {
		line := strings.TrimSuffix(raw, "\r")
		if inBinaryPatch {
			continue // the data of a "GIT binary patch"
		}
		if strings.TrimSpace(line) == "" {
			continue // a blank separator line (B01)
		}
		if !h.hasGitHeader {
			args, ok := strings.CutPrefix(line, "diff --git ")
			if !ok {
				return h, fmt.Errorf("unexpected line %q before a file header", line)
			}
			if strings.TrimSpace(args) == "" {
				return h, fmt.Errorf("`diff --git` line without paths")
			}
			h.hasGitHeader = true
			h.gitOld, h.gitNew = parseGitHeaderPaths(args)
			continue
		}
		h.extendedLines++
		if err := h.parseLine(line); err != nil {
			return h, err
		}
		inBinaryPatch = line == "GIT binary patch"
	}
	return h, nil
}

// locate adds the entry's path, when its `diff --git` line gave one, to an
// error about the entry.
func (h *entryHeader) locate(err error) error {
	if h.gitNew == "" {
		return err
	}
	return fmt.Errorf("file %q: %w", h.gitNew, err)
}

// parseLine reads one extended header line.
func (h *entryHeader) parseLine(line string) error {
	var err error
	key, value := splitHeaderLine(line)
	switch key {
	case "old mode ":
		h.oldMode, err = parseMode(value)
	case "new mode ":
		h.newMode, err = parseMode(value)
	case "new file mode ":
		h.newFile = true
		h.fileMode, err = parseMode(value)
	case "deleted file mode ":
		h.deletedFile = true
		h.fileMode, err = parseMode(value)
	case "rename from ":
		h.renameFrom, err = parseHeaderPath(value)
	case "rename to ":
		h.renameTo, err = parseHeaderPath(value)
	case "copy from ":
		h.copyFrom, err = parseHeaderPath(value)
	case "copy to ":
		h.copyTo, err = parseHeaderPath(value)
	case "similarity index ":
		h.similarity, err = parsePercent(value)
	case "dissimilarity index ":
		_, err = parsePercent(value) // only with -B; not a similarity
	case "index ":
		h.indexMode, h.newBlob, err = parseIndexLine(value)
	case "Binary files ":
		if !strings.HasSuffix(value, " differ") {
			err = fmt.Errorf("malformed line")
		}
		h.binary = true
	case "GIT binary patch":
		h.binary = true
	default:
		return fmt.Errorf("unrecognized extended header line %q", line)
	}
	if err != nil {
		return fmt.Errorf("extended header line %q: %w", line, err)
	}
	return nil
}

var headerKeys = []string{
	"old mode ", "new mode ", "new file mode ", "deleted file mode ",
	"rename from ", "rename to ", "copy from ", "copy to ",
	"similarity index ", "dissimilarity index ", "index ",
	"Binary files ", "GIT binary patch",
}

func splitHeaderLine(line string) (key, value string) {
	for _, k := range headerKeys {
		if v, ok := strings.CutPrefix(line, k); ok {
			if k == "GIT binary patch" && v != "" {
				continue
			}
			return k, v
		}
	}
	return "", line
}

func parseMode(s string) (uint32, error) {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil || m == 0 {
		return 0, fmt.Errorf("bad file mode %q", s)
	}
	return uint32(m), nil
}

func parsePercent(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
	if err != nil || !strings.HasSuffix(s, "%") || n < 0 || n > 100 {
		return 0, fmt.Errorf("bad percentage %q", s)
	}
	return n, nil
}

// parseIndexLine reads "OLD..NEW" or "OLD..NEW MODE" and returns MODE (or
// 0) and NEW.
func parseIndexLine(s string) (uint32, string, error) {
	hashes, mode, hasMode := strings.Cut(s, " ")
	from, to, ok := strings.Cut(hashes, "..")
	if !ok || !isHex(from) || !isHex(to) {
		return 0, "", fmt.Errorf("bad object names %q", hashes)
	}
	if !hasMode {
		return 0, to, nil
	}
	m, err := parseMode(mode)
	return m, to, err
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// fileNames are what an entry's "---" and "+++" lines say, as read
// (unquoted when quoted, without a timestamp); hasHunks is false for an
// entry without hunks, whose names are not used.
type fileNames struct {
	orig, new string
	hasHunks  bool
}

// file builds the File an entry describes. The "---"/"+++" names are used
// when the `diff --git` line does not give the paths (or is absent), and
// "/dev/null" on one side of an entry with hunks makes it an addition or a
// deletion.
func (h *entryHeader) file(fn fileNames) (File, error) {
	f := File{Binary: h.binary, Size: -1} // a diff does not give the size
	var fdOld, fdNew string
	if fn.hasHunks {
		var err error
		if fdOld, err = stripPrefix(fn.orig, oldPrefix); err != nil {
			return f, err
		}
		if fdNew, err = stripPrefix(fn.new, newPrefix); err != nil {
			return f, err
		}
	}
	fromDevNull := fn.hasHunks && fn.orig == devNull
	toDevNull := fn.hasHunks && fn.new == devNull

	switch {
	case h.renameFrom != "" || h.renameTo != "":
		if h.renameFrom == "" || h.renameTo == "" {
			return f, fmt.Errorf("rename of %q to %q lacks one of its paths", h.renameFrom, h.renameTo)
		}
		f.Status, f.OldPath, f.NewPath = Renamed, h.renameFrom, h.renameTo
		f.Similarity = h.similarity
	case h.copyFrom != "" || h.copyTo != "":
		if h.copyFrom == "" || h.copyTo == "" {
			return f, fmt.Errorf("copy of %q to %q lacks one of its paths", h.copyFrom, h.copyTo)
		}
		f.Status, f.OldPath, f.NewPath = Copied, h.copyFrom, h.copyTo
		f.Similarity = h.similarity
	default:
		if h.gitOld != h.gitNew {
			return f, fmt.Errorf("`diff --git` line names %q and %q but the entry is not a rename or copy", h.gitOld, h.gitNew)
		}
		path := h.gitNew
		if path == "" {
			path = fdNew
		}
		if path == "" {
			path = fdOld
		}
		if path == "" {
			return f, fmt.Errorf("cannot tell the path of a file entry")
		}
		switch {
		case h.newFile || fromDevNull:
			f.Status, f.NewPath = Added, path
		case h.deletedFile || toDevNull:
			f.Status, f.OldPath = Deleted, path
		case fdOld != "" && fdNew != "" && fdOld != fdNew && !h.hasGitHeader:
			f.Status, f.OldPath, f.NewPath = Renamed, fdOld, fdNew
		default:
			f.Status, f.OldPath, f.NewPath = Modified, path, path
		}
	}

	if f.Status != Deleted && strings.Trim(h.newBlob, "0") != "" {
		f.NewBlob = h.newBlob
	}
	// Modes: the explicit lines first, then the mode on the "index" line,
	// which git prints when the mode is the same on both sides.
	f.OldMode, f.NewMode = h.oldMode, h.newMode
	switch f.Status {
	case Added:
		f.OldMode, f.NewMode = 0, h.fileMode
	case Deleted:
		f.OldMode, f.NewMode = h.fileMode, 0
	default:
		if f.OldMode == 0 {
			f.OldMode = h.indexMode
		}
		if f.NewMode == 0 {
			f.NewMode = h.indexMode
		}
	}
	return f, nil
}

// stripPrefix removes git's "a/" or "b/" prefix from a path of a "---" or
// "+++" line; "/dev/null" becomes "".
func stripPrefix(name, prefix string) (string, error) {
	if name == devNull {
		return "", nil
	}
	p, ok := strings.CutPrefix(name, prefix)
	if !ok || p == "" {
		return "", fmt.Errorf("path %q lacks git's %q prefix; produce the diff with git's default prefixes (--src-prefix=a/ --dst-prefix=b/)", name, prefix)
	}
	return p, nil
}

// parseHeaderPath decodes the path of a "rename from", "rename to", "copy
// from" or "copy to" line: git writes it without prefix, C-quoted when it has
// special characters.
func parseHeaderPath(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("empty path")
	}
	if s[0] != '"' {
		return s, nil
	}
	p, rest, err := readQuoted(s)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", fmt.Errorf("text after quoted path: %q", rest)
	}
	return p, nil
}

// parseGitHeaderPaths reads the two paths of a `diff --git a/OLD b/NEW` line
// and returns them without prefixes. Git quotes a path with special
// characters but not one with spaces, so "a/x y b/x y" is ambiguous in
// general; like `git apply`, it is split where both halves name the same
// path, which is always the case except for renames and copies (whose paths
// come from their own header lines). It returns "", "" when it cannot tell.
func parseGitHeaderPaths(args string) (oldPath, newPath string) {
	args = strings.TrimSuffix(args, "\r")
	var a, b string
	switch {
	case strings.HasPrefix(args, `"`):
		first, rest, err := readQuoted(args)
		if err != nil || !strings.HasPrefix(rest, " ") {
			return "", ""
		}
		rest = rest[1:]
		if strings.HasPrefix(rest, `"`) {
			second, tail, err := readQuoted(rest)
			if err != nil || tail != "" {
				return "", ""
			}
			rest = second
		}
		a, b = first, rest
	case strings.HasSuffix(args, `"`):
		// An unquoted path has no '"', so the first ` "` starts the second.
		i := strings.Index(args, ` "`)
		if i < 0 {
			return "", ""
		}
		second, tail, err := readQuoted(args[i+1:])
		if err != nil || tail != "" {
			return "", ""
		}
		a, b = args[:i], second
	default:
		n := len(args)
		if n%2 == 1 && args[n/2] == ' ' {
			first, second := args[:n/2], args[n/2+1:]
			if strings.HasPrefix(first, oldPrefix) && strings.HasPrefix(second, newPrefix) &&
				first[len(oldPrefix):] == second[len(newPrefix):] {
				a, b = first, second
				break
			}
		}
		if strings.Count(args, " ") != 1 {
			return "", ""
		}
		a, b, _ = strings.Cut(args, " ")
	}
	oldPath, okA := strings.CutPrefix(a, oldPrefix)
	newPath, okB := strings.CutPrefix(b, newPrefix)
	if !okA || !okB || oldPath == "" || newPath == "" {
		return "", ""
	}
	return oldPath, newPath
}

// readQuoted decodes the C-style quoted string at the start of s (git's
// quoting: \a \b \t \n \v \f \r \" \\ and three-digit octal escapes) and
// returns it with the rest of s.
func readQuoted(s string) (value, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, fmt.Errorf("path %q does not start with a quote", s)
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", s, fmt.Errorf("bad quoted path %s: %w", s[:i+1], err)
			}
			return v, s[i+1:], nil
		}
	}
	return "", s, fmt.Errorf("unterminated quoted path %s", s)
}
