package actions

import (
	"strings"
	"testing"
)

func TestInputVar(t *testing.T) {
	cases := map[string]string{
		"phase":             "INPUT_PHASE",
		"github-token":      "INPUT_GITHUB-TOKEN",
		"fail on warnings":  "INPUT_FAIL_ON_WARNINGS",
		"Config_Path":       "INPUT_CONFIG_PATH",
		"extra  scope":      "INPUT_EXTRA__SCOPE",
		"sarif-output-file": "INPUT_SARIF-OUTPUT-FILE",
	}
	for name, want := range cases {
		if got := InputVar(name); got != want {
			t.Errorf("InputVar(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestInput(t *testing.T) {
	env := NewEnv(MapLookup(map[string]string{
		"INPUT_GITHUB-TOKEN":     "ghs_x",
		"INPUT_GITHUB_TOKEN":     "wrong variable",
		"INPUT_PHASE":            "  3 \n",
		"INPUT_FAIL_ON_WARNINGS": "\ufeff\u00a0true\u2028",
	}))
	cases := map[string]string{
		"github-token":     "ghs_x",
		"phase":            "3",
		"fail on warnings": "true",
		"missing":          "",
	}
	for name, want := range cases {
		if got := env.Input(name); got != want {
			t.Errorf("Input(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestBoolInput(t *testing.T) {
	cases := []struct {
		value   string
		want    bool
		wantErr bool
	}{
		{"true", true, false}, {"True", true, false}, {"TRUE", true, false},
		{"false", false, false}, {"False", false, false}, {"FALSE", false, false},
		{" true\n", true, false},
		{"", false, true}, {"yes", false, true}, {"1", false, true}, {"on", false, true},
		{"tRUE", false, true}, {"y", false, true}, {"0", false, true},
	}
	for _, c := range cases {
		env := NewEnv(MapLookup(map[string]string{"INPUT_FAIL-ON-WARNINGS": c.value}))
		got, err := env.BoolInput("fail-on-warnings")
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("BoolInput(%q) = %v, %v", c.value, got, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "fail-on-warnings") || !strings.Contains(err.Error(), "INPUT_FAIL-ON-WARNINGS")) {
			t.Errorf("error %q does not name the input", err)
		}
	}
}

func TestListInput(t *testing.T) {
	cases := []struct {
		value string
		want  []string
	}{
		{"", nil},
		{"docs/**", []string{"docs/**"}},
		{"docs/**, .github/**", []string{"docs/**", ".github/**"}},
		{"docs/**\n.github/**\n", []string{"docs/**", ".github/**"}},
		{"a,\r\n b ,,\n\n  ,c", []string{"a", "b", "c"}},
		{" , \n ", nil},
	}
	for _, c := range cases {
		env := NewEnv(MapLookup(map[string]string{"INPUT_EXTRA-SCOPE": c.value}))
		got := env.ListInput("extra-scope")
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("ListInput(%q) = %q, want %q", c.value, got, c.want)
		}
	}
}
