package secrets

import (
	"context"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// TestValueOnNextLine: gitleaks' expressions let the white space between
// a name and its value be a line break ([\s'"]{0,3}, [\x60'"\s=]{0,5}),
// and its detector runs them on the whole added text, so it finds a value
// written on the line after its name ("api_key:" then the key indented,
// as YAML allows); so must ScanLines, on the same consecutive added lines.
func TestValueOnNextLine(t *testing.T) {
	cfg, err := DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := detect.NewDetector(cfg)
	d.IgnoreGitleaksAllow = true
	for _, text := range []string{
		"password =\n  \"Zx8kQ2mP9vL4nR7tW3yB\"",
		"api_key:\n  Zx8kQ2mP9vL4nR7tW3yB",
		"api_key =\n\"Zx8kQ2mP9vL4nR7tW3yB\"",
		"token\n= \"Zx8kQ2mP9vL4nR7tW3yB\"",
		"aws_secret_access_key =\n wJalrXUtnFEMI/K7MDENG/bPxRfiCYzx8kQ2mP9v",
		"# settings\napi_key:\n\n  Zx8kQ2mP9vL4nR7tW3yB\nname: x",
	} {
		want := map[key]bool{}
		for _, f := range d.DetectContext(context.Background(), detect.Fragment{Raw: text, FilePath: "config/app.yml"}) {
			want[key{f.RuleID, f.Secret, f.StartLine + 1}] = true
		}
		if len(want) == 0 {
			t.Fatalf("%q: gitleaks finds nothing; the case tests nothing", text)
		}
		var ls []Line
		for n, l := range strings.Split(text, "\n") {
			ls = append(ls, Line{n + 1, l})
		}
		got := map[key]bool{}
		fs, ds, _ := s.ScanLines("config/app.yml", ls)
		for _, f := range append(fs, ds...) {
			got[key{f.RuleID, f.Secret, f.Line}] = true
		}
		if !sameKeys(want, got) {
			t.Errorf("%q:\n gitleaks %v\n ours     %v", text, sorted(want), sorted(got))
		}
	}
}
