package editdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"help", "help", 0}, {"hlep", "help", 2}, {"recheck", "rechek", 1}, {"", "abc", 3}, {"ä", "a", 1},
		{"plan_frezee", "plan_freeze", 2}, {"api2", "api", 1}, {"utils.ts", "util.ts", 1}} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
