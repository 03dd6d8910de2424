package actions

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// SummaryLimit is the most a step's summary file may hold: the runner
// refuses to upload a GITHUB_STEP_SUMMARY file larger than 1024k ("upload
// aborted, supports content up to a size of 1024k") and shows nothing.
const SummaryLimit = 1 << 20

// AppendSummary appends Markdown to the step summary (the file named by
// GITHUB_STEP_SUMMARY), keeping the file within SummaryLimit. When the
// Markdown does not fit in what is left, it is cut at a line boundary
// (never inside a UTF-8 sequence), an open code fence and open <details>
// blocks are closed, and a final line says how many bytes were left out:
//
//	> **Summary cut:** 12345 of 2000000 bytes left out: GitHub shows at most 1 MiB of a step's summary (GITHUB_STEP_SUMMARY).
//
// When the file is already too full to hold even that line, nothing is
// written and the error says so.
func (e Env) AppendSummary(markdown string) error {
	path := e.SummaryPath()
	if path == "" {
		return fmt.Errorf("writing step summary: GITHUB_STEP_SUMMARY is not set (run as a GitHub Actions step)")
	}
	if markdown == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("writing step summary: GITHUB_STEP_SUMMARY file: %w", err)
	}
	text, ok := fitSummary(markdown, SummaryLimit-st.Size())
	if !ok {
		return fmt.Errorf("writing step summary: GITHUB_STEP_SUMMARY file %s already holds %d bytes; GitHub's limit is 1 MiB", path, st.Size())
	}
	if err := appendFile(path, text); err != nil {
		return fmt.Errorf("writing step summary: GITHUB_STEP_SUMMARY file: %w", err)
	}
	return nil
}

// fitSummary returns md if it fits in budget bytes, else md cut to fit with
// its open blocks closed and the cut notice appended; ok is false when not
// even the notice fits.
func fitSummary(md string, budget int64) (string, bool) {
	if int64(len(md)) <= budget {
		return md, true
	}
	limit := int64(len(md))
	for {
		k := cutPoint(md, limit)
		kept := md[:k]
		tail := closeBlocks(kept) + cutNotice(len(md)-k, len(md))
		over := int64(k+len(tail)) - budget
		if over <= 0 {
			return kept + tail, true
		}
		if k == 0 {
			return "", false
		}
		limit = int64(k) - over
	}
}

// cutNotice is the summary's last line after a cut.
func cutNotice(dropped, total int) string {
	return fmt.Sprintf("\n> **Summary cut:** %d of %d bytes left out: GitHub shows at most 1 MiB of a step's summary (GITHUB_STEP_SUMMARY).\n", dropped, total)
}

// cutPoint is the largest k <= limit at which md may be cut: just after a
// newline when md[:limit] has one, else at a rune boundary.
func cutPoint(md string, limit int64) int {
	if limit <= 0 {
		return 0
	}
	k := int(min(limit, int64(len(md))))
	if i := strings.LastIndexByte(md[:k], '\n'); i >= 0 {
		return i + 1
	}
	for k > 0 && k < len(md) && !utf8.RuneStart(md[k]) {
		k--
	}
	return k
}

// closeBlocks returns what closes the blocks md leaves open: a fenced code
// block (CommonMark: a line of 3+ backticks or tildes indented at most 3
// spaces, closed by a line of the same character at least as long) and
// <details> elements opened outside code. It starts with a newline when md
// does not end with one.
func closeBlocks(md string) string {
	var fence string // the open fence's run, "" outside code
	details := 0
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\r\n")
		if run, info, ok := fenceLine(line); ok {
			switch {
			case fence == "":
				fence = run
				continue
			case run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(info) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		lower := strings.ToLower(line)
		details += strings.Count(lower, "<details") - strings.Count(lower, "</details>")
		details = max(details, 0)
	}
	var b strings.Builder
	if md != "" && !strings.HasSuffix(md, "\n") {
		b.WriteByte('\n')
	}
	if fence != "" {
		b.WriteString(fence + "\n")
	}
	for range details {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// fenceLine reports whether line is a code fence line, with its run of
// fence characters and what follows it.
func fenceLine(line string) (run, info string, ok bool) {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent > 3 {
		return "", "", false
	}
	rest := line[indent:]
	if rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return "", "", false
	}
	n := len(rest) - len(strings.TrimLeft(rest, rest[:1]))
	if n < 3 {
		return "", "", false
	}
	run, info = rest[:n], rest[n:]
	if run[0] == '`' && strings.Contains(info, "`") {
		return "", "", false // CommonMark: a backtick fence's info has no backtick
	}
	return run, info, true
}
