package sast

import (
	"strings"
)

// MaxScanSize is the largest file the plugin scans, in bytes (512 KiB).
const MaxScanSize = 512 * 1024

// Why ScanFile skipped a file, in the plugin's words where it has them.
const (
	SkipTooLarge = "file too large"
	SkipEmpty    = "empty file"
	SkipBinary   = "binary file"
	SkipNonCode  = "non-code"
)

// binaryProbe is how many leading bytes the binary check looks at.
const binaryProbe = 8192

// ScanFile applies the Tier A rules to one file, as the plugin's sast_scan
// does: path is repository-relative ('/'-separated) and picks the rule set by
// extension (see LanguageOf); content is the file's bytes.
//
// A file over MaxScanSize, an empty file, a binary one (more than 10% NUL
// bytes in its first 8 KiB) and a non-code one are skipped, in that order,
// and skipped says why. A file of a known language without rules returns no
// findings and skipped "": the plugin counts it as scanned.
//
// Findings come in the plugin's order: rule by rule, then by line and
// column. Lines are split on '\n' of the content decoded as Node decodes
// UTF-8 (ill-formed bytes become U+FFFD, a BOM stays in the first line); a
// line's trailing '\r' is not matched (no rule could end a match on it) and
// is not part of Excerpt. Column is 1 + the match's index in UTF-16 code
// units, as JavaScript counts. Fingerprint and ReflowKey are left empty: see
// Fingerprints.
func ScanFile(path string, content []byte) (findings []Finding, skipped string) {
	if skipped = SkipReason(path, content); skipped != "" {
		return nil, skipped
	}
	lang, _ := LanguageOf(path)
	rules := Rules(lang)
	if len(rules) == 0 {
		return nil, ""
	}
	s := newScanText(jsText(content))
	for _, r := range rules {
		findings = s.apply(r, path, findings)
	}
	return findings, ""
}

// SkipReason is why ScanFile skips a file (one of the Skip reasons), ""
// when it scans it: a caller can count the file as scanned before the
// scan itself runs elsewhere.
func SkipReason(path string, content []byte) string {
	switch {
	case len(content) > MaxScanSize:
		return SkipTooLarge
	case len(content) == 0:
		return SkipEmpty
	case isBinary(content):
		return SkipBinary
	}
	if _, ok := LanguageOf(path); !ok {
		return SkipNonCode
	}
	return ""
}

// isBinary reports whether more than 10% of the first 8 KiB are NUL bytes.
func isBinary(content []byte) bool {
	probe := content[:min(len(content), binaryProbe)]
	nul := 0
	for _, b := range probe {
		if b == 0 {
			nul++
		}
	}
	return nul*10 > len(probe)
}

// scanText is one decoded file being scanned.
type scanText struct {
	s     string
	lower string // asciiLower(s), made on first use
}

func newScanText(s string) *scanText { return &scanText{s: s} }

func (t *scanText) folded() string {
	if t.lower == "" {
		t.lower = asciiLower(t.s)
	}
	return t.lower
}

// apply appends the findings of one rule. Only lines that contain one of the
// rule's literals are matched against its expression: the literals are
// searched in the whole text, and each hit's line is matched once.
func (t *scanText) apply(r *Rule, path string, out []Finding) []Finding {
	hay := t.s
	if r.Fold {
		hay = t.folded()
	}
	next := make([]int, len(r.literals)) // next hit of each literal at or after pos; -1 none
	for i, lit := range r.literals {
		next[i] = strings.Index(hay, lit)
	}
	validated := false
	line, counted := 1, 0 // the line number of byte offset counted
	for pos := 0; pos <= len(hay); {
		hit := -1
		for i, lit := range r.literals {
			if next[i] >= 0 && next[i] < pos {
				if j := strings.Index(hay[pos:], lit); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (hit < 0 || next[i] < hit) {
				hit = next[i]
			}
		}
		if hit < 0 {
			break
		}
		if !validated {
			if r.validate != nil && !r.validate(t.s) {
				return out
			}
			validated = true
		}
		start := strings.LastIndexByte(t.s[:hit], '\n') + 1
		end := strings.IndexByte(t.s[hit:], '\n')
		if end < 0 {
			end = len(t.s)
		} else {
			end += hit
		}
		line += strings.Count(t.s[counted:start], "\n")
		counted = start
		out = r.matchLine(t.s[start:end], hay[start:end], path, line, out)
		pos = end + 1
	}
	return out
}

// matchLine appends a finding for every match of the rule in one line (its
// '\n' excluded). hay is the same line as the rule's literals are searched
// in: lowercased when the rule folds case.
func (r *Rule) matchLine(text, hay, path string, line int, out []Finding) []Finding {
	text = strings.TrimSuffix(text, "\r")
	if r.anchored != nil {
		for _, at := range r.anchoredMatches(text, hay[:len(text)]) {
			out = r.finding(text, path, line, at, out)
		}
		return out
	}
	return r.matchLineRE(text, path, line, out)
}

// matchLineRE is matchLine with the rule's unanchored expression: the
// reference the anchored search must agree with.
func (r *Rule) matchLineRE(text, path string, line int, out []Finding) []Finding {
	text = strings.TrimSuffix(text, "\r")
	var locs [][]int
	if r.at >= 0 {
		locs = r.re.FindAllStringSubmatchIndex(text, -1)
	} else {
		locs = r.re.FindAllStringIndex(text, -1)
	}
	for _, loc := range locs {
		at := loc[0]
		if r.at >= 0 {
			at = loc[2*r.at]
		}
		out = r.finding(text, path, line, at, out)
	}
	return out
}

// anchoredMatches returns the start of every match of the rule in text, as
// a global JavaScript search finds them (leftmost, not overlapping), trying
// the anchored expression only where a literal starts. Go's unanchored
// search costs microseconds per line for the rules with large case-folded
// alternations; an anchored attempt costs a few hundred nanoseconds.
func (r *Rule) anchoredMatches(text, hay string) []int {
	var starts []int
	for pos := 0; pos < len(hay); {
		c := -1
		for _, lit := range r.literals {
			if i := strings.Index(hay[pos:], lit); i >= 0 && (c < 0 || pos+i < c) {
				c = pos + i
			}
		}
		if c < 0 {
			break
		}
		if r.wordStart && c > 0 && isWordByte(text[c-1]) {
			pos = c + 1
			continue
		}
		loc := r.anchored.FindStringIndex(text[c:])
		if loc == nil {
			pos = c + 1
			continue
		}
		starts = append(starts, c)
		pos = c + max(loc[1], 1)
	}
	return starts
}

// isWordByte reports whether b is a JavaScript \w character. Bytes of
// multi-byte characters are not.
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func (r *Rule) finding(text, path string, line, at int, out []Finding) []Finding {
	return append(out, Finding{
		RuleID:      r.ID,
		Severity:    r.Severity,
		Message:     r.Message,
		Remediation: r.Remediation,
		File:        path,
		Line:        line,
		Column:      utf16Len(text[:at]) + 1,
		Excerpt:     text,
		Secret:      r.Secret,
		Engine:      EngineTierA,
	})
}

// EngineTierA is the Engine of findings of the built-in rules.
const EngineTierA = "tier_a"
