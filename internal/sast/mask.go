package sast

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// MaxExcerpt is how many characters MaskedExcerpt keeps.
const MaxExcerpt = 120

// MaskedExcerpt is a finding's excerpt fit for display: trimmed, cut to
// MaxExcerpt characters (ending in "…" when cut), and for a Secret finding
// with every credential replaced by its first two characters, "…" and its
// length, e.g. "sk…(32)" (values shorter than 8 characters keep none). The
// credential is the value the finding's rule captured; when the rule is
// unknown (a SARIF finding) or does not match the excerpt, every quoted
// string is masked, and an excerpt with no quoted string is masked whole.
func MaskedExcerpt(f Finding) string {
	s := f.Excerpt
	if f.Secret {
		s = maskSecrets(f.RuleID, s)
	} else {
		s = MaskLine(s)
	}
	return cut(jsjson.Trim(s), MaxExcerpt)
}

var quoted = regexp.MustCompile("\"[^\"]*\"|'[^']*'|`[^`]*`")

func maskSecrets(ruleID, s string) string {
	var spans [][2]int
	if r := RuleByID(ruleID); r != nil && r.secret >= 0 {
		for _, loc := range r.re.FindAllStringSubmatchIndex(strings.TrimSuffix(s, "\r"), -1) {
			if a, b := loc[2*r.secret], loc[2*r.secret+1]; a >= 0 {
				spans = append(spans, [2]int{a, b})
			}
		}
	}
	if len(spans) == 0 {
		for _, loc := range quoted.FindAllStringIndex(s, -1) {
			spans = append(spans, [2]int{loc[0] + 1, loc[1] - 1})
		}
	}
	if len(spans) == 0 {
		return MaskValue(s)
	}
	return maskSpans(s, spans)
}

// maskSpans masks the given byte spans of s and every other occurrence of
// their text (a secret repeated in a comment on the same line).
func maskSpans(s string, spans [][2]int) string {
	values := make([]string, 0, len(spans))
	for _, sp := range spans {
		if sp[1] > sp[0] {
			values = append(values, s[sp[0]:sp[1]])
		}
	}
	return MaskValues(s, values)
}

// MaskValues replaces every occurrence in s of each non-empty value by
// MaskValue's form; where occurrences overlap, the one starting first (the
// longer at one start) wins.
func MaskValues(s string, values []string) string {
	var spans [][2]int
	for _, v := range values {
		if v == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(s[i:], v)
			if j < 0 {
				break
			}
			spans = append(spans, [2]int{i + j, i + j + len(v)})
			i += j + len(v)
		}
	}
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i][0] != spans[j][0] {
			return spans[i][0] < spans[j][0]
		}
		return spans[i][1] > spans[j][1]
	})
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp[0] < last {
			continue // overlaps a span already masked
		}
		b.WriteString(s[last:sp[0]])
		b.WriteString(MaskValue(s[sp[0]:sp[1]]))
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretLike finds values that look like credentials in any text: the value
// after a secret-like name (api_key, apiKey, password, secret, token, auth,
// credential, private_key) and "=", ":" or "=>", quoted or not, and tokens
// with well-known prefixes (sk_live_, ghp_, github_pat_, AKIA, xoxb-, ...).
var secretLike = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(?:api[_-]?key|passw(?:or)?d|secret|token|auth|credential|private[_-]?key|access[_-]?key)[\w.-]*["']?\s*(?::=|=>|[:=])\s*["'\x60]([^\s"'\x60…]{6,})["'\x60]`),
	regexp.MustCompile(`\b((?:sk|pk|rk)_(?:live|test)_[0-9A-Za-z]{8,}|gh[pousr]_[0-9A-Za-z]{20,}|github_pat_[0-9A-Za-z_]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[0-9A-Za-z-]{10,}|AIza[0-9A-Za-z_-]{30,}|eyJ[0-9A-Za-z_-]{10,}\.[0-9A-Za-z_-]{10,}\.[0-9A-Za-z_-]{10,})`),
	regexp.MustCompile(`(?i)(?:secret|password|passwd|token|api[_-]?key)\s*:\s+["']?([^\s"'…]{8,})`), // YAML values, "Secret: ..." in scanners' messages
}

// MaskLine masks what looks like a credential in a line of source or a
// scanner's message before it is shown anywhere (an annotation, a summary,
// a log): every value secretLike finds, and every other copy of it on the
// line, becomes its first two characters, "…" and its length. Lines
// without one are returned unchanged.
func MaskLine(s string) string {
	var spans [][2]int
	for _, re := range secretLike {
		for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
			if loc[2] >= 0 && loc[3] > loc[2] {
				spans = append(spans, [2]int{loc[2], loc[3]})
			}
		}
	}
	if len(spans) == 0 {
		return s
	}
	return maskSpans(s, spans)
}

// MaskValue is a credential as it may be shown: its first two characters
// (when it has at least 8), "…" and its length in characters ("AK…(20)").
func MaskValue(v string) string {
	n := utf8.RuneCountInString(v)
	keep := ""
	if n >= 8 {
		_, w1 := utf8.DecodeRuneInString(v)
		_, w2 := utf8.DecodeRuneInString(v[w1:])
		keep = v[:w1+w2]
	}
	return keep + "…(" + strconv.Itoa(n) + ")"
}

// cut keeps at most n characters of s, the last of them "…" when s is longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		count++
	}
	return s[:i] + "…"
}
