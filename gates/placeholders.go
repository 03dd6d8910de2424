package gates

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// Placeholders is swarm/placeholders: no placeholder marker on a line the
// pull request adds. This first version applies the plugin's default comment
// rules (src/tools/placeholder-scan.ts, spec section 6): TODO, FIXME, TBD,
// XXX and HACK as whole words in the text after the first //, # or <!-- of a
// line (and -- in .sql files, which the plugin misses), or inside a
// same-line /* ... */. Lines the pull request does not add
// are never looked at; .swarm/ files, binary files and test files (the
// plugin's test-path patterns, scaffold paths excepted) are skipped, and a
// finding whose excerpt contains SC-PLACEHOLDER is dropped, as in the plugin.
type Placeholders struct{}

// Name implements Gate.
func (Placeholders) Name() string { return "swarm/placeholders" }

// The plugin's rule ids.
const (
	RuleCommentTodo  = "placeholder/comment-todo"
	RuleCommentFixme = "placeholder/comment-fixme"
	RuleCommentOther = "placeholder/comment-other"
)

type commentRule struct {
	id   string
	word string
	re   *regexp.Regexp
}

var commentRules = []commentRule{
	{RuleCommentTodo, "TODO", regexp.MustCompile(`(?i)\bTODO\b`)},
	{RuleCommentFixme, "FIXME", regexp.MustCompile(`(?i)\bFIXME\b`)},
	{RuleCommentOther, "marker", regexp.MustCompile(`(?i)\b(?:TBD|XXX|HACK)\b`)},
}

var (
	blockComment    = regexp.MustCompile(`/\*(.*?)\*/`)
	testPathPattern = regexp.MustCompile(`\.test\.|\.spec\.|\btests?/|\b__tests?__/|\bmocks?/|\b__mocks?__/|\bspecs?/|\b__specs?__/`)
	scaffoldPath    = regexp.MustCompile(`(?:^|/)(?:generated|scaffold|templates?|__generated__|__scaffold__)/|(?:^|/)(?:gen-|scaffold-|template-)[^/]*$|\.(?:gen|scaffold|template)\.[^/]*$`)
)

const sentinel = "sc-placeholder"

// Evaluate implements Gate.
func (g Placeholders) Evaluate(ctx context.Context, in *Input) Result {
	var findings []Finding
	scanned, lines := 0, 0
	var tests, binary, swarmFiles int
	for i := range in.Changes.Files {
		if err := ctx.Err(); err != nil {
			return errorResult(g.Name(), err)
		}
		f := &in.Changes.Files[i]
		switch {
		case f.Status == changeset.Deleted:
			continue
		case isSwarmPath(f.NewPath):
			swarmFiles++
			continue
		case f.Binary || hasNUL(f.Added):
			binary++
			continue
		case len(f.Added) == 0:
			continue
		case IsTestPath(f.NewPath):
			tests++
			continue
		}
		scanned++
		lines += len(f.Added)
		for _, al := range f.Added {
			findings = append(findings, scanLine(f.NewPath, al)...)
		}
	}
	summary := fmt.Sprintf("Scanned %s in %s. Not scanned: %s, %s (binary or with NUL bytes), %s under .swarm/. Only lines this pull request adds are checked; a moved line counts as added.",
		plural(lines, "added line", "added lines"), plural(scanned, "file", "files"),
		plural(tests, "test file", "test files"), plural(binary, "file", "files"), plural(swarmFiles, "file", "files"))
	if len(findings) > 0 {
		return Result{Outcome: Failed, Title: fmt.Sprintf("%s on added lines", plural(len(findings), "placeholder", "placeholders")), Summary: summary, Findings: findings}
	}
	return Result{Outcome: Passed, Title: fmt.Sprintf("no placeholders in %s", plural(lines, "added line", "added lines")), Summary: summary, Findings: []Finding{}}
}

// scanLine applies the comment rules to one added line: at most one finding
// for the line comment and one for a same-line block comment, never two with
// the same rule.
func scanLine(path string, al changeset.AddedLine) []Finding {
	text := al.Text
	var out []Finding
	add := func(start int, body string) {
		for _, r := range commentRules {
			loc := r.re.FindStringIndex(body)
			if loc == nil {
				continue
			}
			for _, f := range out {
				if f.Rule == r.id {
					return
				}
			}
			excerpt := excerptOf(text)
			if strings.Contains(strings.ToLower(excerpt), sentinel) {
				return
			}
			out = append(out, Finding{Path: path, Line: al.Line, EndLine: al.Line, Column: start + loc[0] + 1, Rule: r.id, Severity: SeverityError,
				Message: fmt.Sprintf("%s comment on an added line: %s", strings.ToUpper(body[loc[0]:loc[1]]), strings.TrimSpace(excerpt))})
			return
		}
	}
	if i := lineCommentStart(path, text); i >= 0 {
		add(i, text[i:])
	}
	if m := blockComment.FindStringSubmatchIndex(text); m != nil {
		add(m[2], text[m[2]:m[3]])
	}
	return out
}

// lineCommentStart is the byte index of the first //, # or <!-- in s (and,
// beyond the plugin, -- in SQL files), or -1.
func lineCommentStart(path, s string) int {
	markers := []string{"//", "#", "<!--"}
	if strings.HasSuffix(strings.ToLower(path), ".sql") {
		markers = append(markers, "--")
	}
	best := -1
	for _, marker := range markers {
		if i := strings.Index(s, marker); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// excerptOf is the plugin's excerpt: the line cut at 100 characters.
func excerptOf(s string) string {
	r := []rune(s)
	if len(r) > 100 {
		return string(r[:100])
	}
	return s
}

// IsTestPath reports whether the plugin's placeholder scan skips path as a
// test file: its lowercased path matches .test., .spec., tests/, __tests__/,
// mocks/, __mocks__/, specs/ or __specs__/, and it does not match a scaffold
// pattern (generated/, scaffold/, templates/, gen-*, *.gen.*, ...), which is
// scanned anyway.
func IsTestPath(path string) bool {
	p := strings.ToLower(path)
	return testPathPattern.MatchString(p) && !scaffoldPath.MatchString(p)
}

func hasNUL(lines []changeset.AddedLine) bool {
	for _, l := range lines {
		if strings.IndexByte(l.Text, 0) >= 0 {
			return true
		}
	}
	return false
}
