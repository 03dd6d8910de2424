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
	var values []string
	for _, v := range strings.Split(secret, "\n") {
		v = strings.TrimSuffix(v, "\r")
		if v == secret || utf8.RuneCountInString(v) >= 8 {
			values = append(values, v)
		}
	}
	return sast.MaskValues(line, values)
}
