package evaluate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// TestReadArtifact: a report read back from a fork's artifact is checked
// field by field; each row breaks one rule.
func TestReadArtifact(t *testing.T) {
	head, base := strings.Repeat("a", 40), strings.Repeat("b", 40)
	valid := func() map[string]any {
		return map[string]any{"version": 1, "outcome": "failed", "exit_code": 0, "base": base, "head": head, "merge_base": base, "phase": 2, "phase_source": "branch",
			"gates": []any{
				map[string]any{"name": "swarm/scope", "outcome": "failed", "title": "1 file outside", "summary": "![x](https://evil.example/x.png)",
					"findings": []any{map[string]any{"path": "src/a.go", "line": 3, "end_line": 3, "column": 2, "rule": "scope/out-of-scope", "severity": "error", "message": "outside"}}},
				map[string]any{"name": "swarm/critic", "outcome": "passed", "title": "APPROVED", "summary": "", "findings": []any{}},
			}}
	}
	finding := func(m map[string]any) map[string]any {
		return m["gates"].([]any)[0].(map[string]any)["findings"].([]any)[0].(map[string]any)
	}
	gate := func(m map[string]any, i int) map[string]any { return m["gates"].([]any)[i].(map[string]any) }
	cases := []struct {
		name    string
		edit    func(m map[string]any)
		raw     string // instead of the edited report
		wantErr string
	}{
		{name: "valid"},
		{name: "another commit", edit: func(m map[string]any) { m["head"] = strings.Repeat("c", 40) }, wantErr: "the workflow run was for commit " + head},
		{name: "version 2", edit: func(m map[string]any) { m["version"] = 2 }, wantErr: "version 2"},
		{name: "short base", edit: func(m map[string]any) { m["base"] = "bbbb" }, wantErr: "not a full commit SHA"},
		{name: "outcome not following from the gates", edit: func(m map[string]any) { m["outcome"] = "passed" }, wantErr: "does not follow from the checks' outcomes (failed)"},
		{name: "unknown outcome", edit: func(m map[string]any) { gate(m, 1)["outcome"] = "approved" }, wantErr: `outcome "approved"`},
		{name: "unknown check", edit: func(m map[string]any) { gate(m, 1)["name"] = "swarm/lgtm" }, wantErr: `"swarm/lgtm" is not one of swarm-gate's checks`},
		{name: "the aggregate as a gate", edit: func(m map[string]any) { gate(m, 1)["name"] = "swarm-gate" }, wantErr: "is not one of swarm-gate's checks"},
		{name: "a check twice", edit: func(m map[string]any) { gate(m, 1)["name"] = "swarm/scope" }, wantErr: "swarm/scope appears twice"},
		{name: "absolute path", edit: func(m map[string]any) { finding(m)["path"] = "/etc/passwd" }, wantErr: "is not a clean repository-relative path"},
		{name: "dot-dot path", edit: func(m map[string]any) { finding(m)["path"] = "src/../../x" }, wantErr: "is not a clean repository-relative path"},
		{name: "newline in a path", edit: func(m map[string]any) { finding(m)["path"] = "a\n::error::x" }, wantErr: "is not a clean repository-relative path"},
		{name: "negative line", edit: func(m map[string]any) { finding(m)["line"] = -1 }, wantErr: "out of range"},
		{name: "huge column", edit: func(m map[string]any) { finding(m)["column"] = 1 << 40 }, wantErr: "out of range"},
		{name: "unknown severity", edit: func(m map[string]any) { finding(m)["severity"] = "critical" }, wantErr: `severity "critical"`},
		{name: "long rule", edit: func(m map[string]any) { finding(m)["rule"] = strings.Repeat("r", 201) }, wantErr: "rule or message"},
		{name: "too many findings", edit: func(m map[string]any) {
			var fs []any
			for range MaxArtifactFindings + 1 {
				fs = append(fs, map[string]any{"path": "a", "rule": "r", "severity": "error", "message": "m"})
			}
			gate(m, 0)["findings"] = fs
		}, wantErr: "more than 20000 findings"},
		{name: "nothing evaluated", edit: func(m map[string]any) {
			m["outcome"] = "passed"
			gate(m, 0)["outcome"], gate(m, 0)["findings"] = "not_applicable", []any{}
			gate(m, 1)["outcome"] = "not_applicable"
		}, wantErr: "no gate in it was evaluated"},
		{name: "two JSON values", raw: `{"version":1}{"version":1}`, wantErr: "data after the JSON object"},
		{name: "not JSON", raw: `<html>`, wantErr: "not a swarm-gate JSON report"},
		{name: "a list", raw: `[1]`, wantErr: "not a swarm-gate JSON report"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.raw)
			if tc.raw == "" {
				m := valid()
				if tc.edit != nil {
					tc.edit(m)
				}
				var err error
				if data, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			file := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := readArtifact(file, head)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.ExitCode != report.ExitFailed || rep.Outcome != gates.Failed || len(rep.Gates) != 2 {
				t.Errorf("report %+v", rep)
			}
			for _, g := range rep.Gates {
				if strings.Contains(g.Summary, "evil.example") || g.Findings == nil {
					t.Errorf("%s: summary %q, findings %v", g.Name, g.Summary, g.Findings)
				}
			}
		})
	}
}

func TestReadArtifactFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxArtifactBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, wantErr string }{
		{link, "is not a regular file"},
		{dir, "is not a regular file"},
		{big, "over the 16777216-byte limit"},
		{filepath.Join(dir, "missing.json"), "no such file"},
	}
	for _, tc := range cases {
		if _, err := readArtifact(tc.file, strings.Repeat("a", 40)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: got %v, want %q", filepath.Base(tc.file), err, tc.wantErr)
		}
	}
}
