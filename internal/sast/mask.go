package sast

import (
	"regexp"
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
		return mask(s)
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(mask(s[sp[0]:sp[1]]))
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// mask replaces a credential by its first two characters (when it has at
// least 8), "…" and its length in characters.
func mask(v string) string {
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
