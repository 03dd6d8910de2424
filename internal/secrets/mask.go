package secrets

import (
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// Mask returns line with every copy of secret replaced by its first two
// characters, "…" and its length in characters, e.g. "AK…(20)" (a secret
// shorter than 8 characters keeps none of them). A secret that spans lines
// (a private key block) is masked piece by piece: each of its lines of 8
// characters or more found in line.
func Mask(line, secret string) string {
	return sast.MaskValues(line, maskValues(secret))
}

func maskValues(secret string) []string {
	var values []string
	for _, v := range strings.Split(secret, "\n") {
		v = strings.TrimSuffix(v, "\r")
		if v == secret || utf8.RuneCountInString(v) >= 8 {
			values = append(values, v)
		}
	}
	return values
}

// Excerpt limits: a line of up to MaxExcerptLine bytes is a finding's
// excerpt whole; of a longer one the excerpt keeps ExcerptContext bytes
// either side of the match (widened to whole copies of the secret, "…"
// where cut), so that a line of thousands of matches costs memory and
// time linear in its length, not in matches × length.
const (
	MaxExcerptLine = 1000
	ExcerptContext = 100
)

// excerpt is line (a match's first line, the match at byte offsets
// [from, to), to possibly past the line's end) masked (Mask), cut to a
// window around the match when the line is longer than MaxExcerptLine.
func excerpt(line string, from, to int, secret string) string {
	if len(line) <= MaxExcerptLine {
		return Mask(line, secret)
	}
	values := maskValues(secret)
	a, b := max(0, from-ExcerptContext), min(len(line), max(from, to)+ExcerptContext)
	// Start and end between words, and never inside a copy of the secret.
	if i := strings.IndexAny(line[a:from], " \t"); a > 0 && i >= 0 {
		a += i + 1
	}
	if e := min(len(line), max(from, to)); b < len(line) {
		if i := strings.LastIndexAny(line[e:b], " \t"); i >= 0 {
			b = e + i
		}
	}
	for moved := true; moved; {
		moved = false
		for _, v := range values {
			if n := len(v); n > 1 {
				if lo := max(0, a-n+1); lo < a {
					if i := strings.Index(line[lo:min(len(line), a+n-1)], v); i >= 0 && lo+i < a {
						a, moved = lo+i, true
					}
				}
				if lo := max(0, b-n+1); lo < b && b < len(line) {
					if i := strings.LastIndex(line[lo:min(len(line), b+n-1)], v); i >= 0 && lo+i+n > b {
						b, moved = lo+i+n, true
					}
				}
			}
		}
	}
	s := Mask(line[a:b], secret)
	if a > 0 {
		s = "…" + s
	}
	if b < len(line) {
		s += "…"
	}
	return s
}
