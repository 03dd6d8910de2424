package secrets

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mask returns line with every copy of secret replaced by its first two
// characters, "…" and its length in characters, e.g. "AK…(20)" (a secret
// shorter than 8 characters keeps none of them). A secret that spans lines
// (a private key block) is masked piece by piece: each of its lines of 8
// characters or more found in line.
func Mask(line, secret string) string {
	var values []string
	for _, v := range strings.Split(secret, "\n") {
		v = strings.TrimSuffix(v, "\r")
		if v == secret || utf8.RuneCountInString(v) >= 8 {
			values = append(values, v)
		}
	}
	var spans [][2]int
	for _, v := range values {
		if v == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(line[i:], v)
			if j < 0 {
				break
			}
			spans = append(spans, [2]int{i + j, i + j + len(v)})
			i += j + len(v)
		}
	}
	if len(spans) == 0 {
		return line
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
			continue
		}
		b.WriteString(line[last:sp[0]])
		b.WriteString(MaskValue(line[sp[0]:sp[1]]))
		last = sp[1]
	}
	b.WriteString(line[last:])
	return b.String()
}

// MaskValue is a secret as it may be shown: its first two characters (when
// it has at least 8), "…" and its length in characters.
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
