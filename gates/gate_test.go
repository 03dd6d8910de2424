package gates

import (
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	names := func(gs []Gate) string {
		var out []string
		for _, g := range gs {
			out = append(out, g.Name())
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		in      []string
		want    string
		wantErr string
	}{
		{[]string{"swarm/scope"}, "swarm/scope", ""},
		{[]string{"scope"}, "swarm/scope", ""},
		{[]string{" sast ", "swarm/plan-freeze", "sast", ""}, "swarm/plan-freeze,swarm/sast", ""},
		{[]string{"scope", "lint", "nope"}, "", `unknown check "swarm/lint" (known: swarm/plan-freeze, `},
		{[]string{"other/scope"}, "", `unknown check "other/scope"`},
		{[]string{"", " "}, "", "no check named (known: "},
		{nil, "", "no check named"},
	} {
		gs, err := Select(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Select(%q) error %v, want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || names(gs) != tc.want):
			t.Errorf("Select(%q) = %s, %v; want %s", tc.in, names(gs), err, tc.want)
		}
	}
}
