package actions

import (
	"strings"
	"testing"
)

func TestSaveStateRoundTrips(t *testing.T) {
	path := tempFile(t, "state")
	env := NewEnv(MapLookup(map[string]string{"GITHUB_STATE": path}))
	values := []kv{
		{"check_runs", `{"repo":"octo/demo","ids":[1001,1002]}`},
		{"multi_line", "a\nb\n::error::x"},
		{"check_runs", ""},
	}
	for _, v := range values {
		if err := env.SaveState(v.name, v.value); err != nil {
			t.Fatalf("SaveState(%q): %v", v.name, err)
		}
	}
	got, err := parseFileCommands(readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(values) {
		t.Fatalf("read back %d records, want %d: %v", len(got), len(values), got)
	}
	for i := range values {
		if got[i] != values[i] {
			t.Errorf("record %d: %q, want %q", i, got[i], values[i])
		}
	}
}

func TestSaveStateRefuses(t *testing.T) {
	cases := []struct {
		name, state, wantErr string
	}{
		{"no GITHUB_STATE", "check_runs", "GITHUB_STATE is not set"},
		{"hyphen", "check-runs", "not a valid state name"},
		{"newline", "a\nb", "not a valid state name"},
		{"empty", "", "not a valid state name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{}
			if tc.name != "no GITHUB_STATE" {
				vars["GITHUB_STATE"] = tempFile(t, "state")
			}
			err := NewEnv(MapLookup(vars)).SaveState(tc.state, "v")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestStateReadsThePostStepsVariable(t *testing.T) {
	env := NewEnv(MapLookup(map[string]string{"STATE_check_runs": "x"}))
	if got := env.State("check_runs"); got != "x" {
		t.Errorf("State = %q", got)
	}
	if got := env.State("other"); got != "" {
		t.Errorf("unset State = %q", got)
	}
}
