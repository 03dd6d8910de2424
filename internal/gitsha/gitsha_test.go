package gitsha

import (
	"strings"
	"testing"
)

func TestFullAndPrefix(t *testing.T) {
	full := strings.Repeat("0123456789", 4)
	for _, tc := range []struct {
		s            string
		full, prefix bool
		any          bool // FullAny; set only where it differs from full
	}{
		{full, true, true, false},
		{strings.Repeat("a", 40), true, true, false},
		{strings.ToUpper(strings.Repeat("ab", 20)), false, true, false},
		{full[:39], false, true, false},
		{full + "0", false, false, false},
		{strings.Repeat("a", 64), false, false, true},
		{"abc1234", false, true, false},
		{"abc123", false, false, false},
		{"abc123g", false, false, false},
		{strings.Repeat("0", 39) + "g", false, false, false},
		{"", false, false, false},
		{" " + full[:39], false, false, false},
	} {
		if got := Full(tc.s); got != tc.full {
			t.Errorf("Full(%q) = %v, want %v", tc.s, got, tc.full)
		}
		if got := FullAny(tc.s); got != (tc.full || tc.any) {
			t.Errorf("FullAny(%q) = %v", tc.s, got)
		}
		if got := Prefix(tc.s); got != tc.prefix {
			t.Errorf("Prefix(%q) = %v, want %v", tc.s, got, tc.prefix)
		}
	}
}
