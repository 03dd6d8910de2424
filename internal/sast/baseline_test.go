package sast

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

const corpusDir = "../../../shared/corpus"

// TestCorpusBaselines reads the real baselines of the corpus in place: all
// three are legacy 1.0.0 files with no fingerprints.
func TestCorpusBaselines(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		sharedtest.Skip(t, "skipping: the shared corpus is not at %s", corpusDir)
	}
	for _, tc := range []struct {
		repo  string
		phase int
		files []string
	}{
		{"DediGadot__IMU-Parkinson", 1, []string{"run_baselines.py"}},
		{"DediGadot__IMU-Parkinson", 2, []string{"run_baselines.py"}},
		{"JG1995__fm-value-scout", 5, []string{"src-tauri/src/import.rs", "src-tauri/src/db.rs", "src-tauri/src/scoring.rs", "src-tauri/src/lib.rs"}},
	} {
		t.Run(tc.repo+"/"+BaselinePath(tc.phase), func(t *testing.T) {
			b, err := LoadBaseline(os.DirFS(filepath.Join(corpusDir, tc.repo)), tc.phase)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				t.Fatal("not found")
			}
			if b.Path != BaselinePath(tc.phase) || b.SchemaVersion != SchemaLegacy || b.Phase != tc.phase || b.Engine != "tier_a" {
				t.Errorf("header: %+v", b)
			}
			if len(b.Fingerprints) != 0 || b.ReflowKeys != nil || len(b.Snapshot) != 0 || b.Truncated || b.CreatedAt == "" || b.UpdatedAt == "" {
				t.Errorf("body: %+v", b)
			}
			if strings.Join(b.FilesIndexed, ",") != strings.Join(tc.files, ",") {
				t.Errorf("files_indexed %v, want %v", b.FilesIndexed, tc.files)
			}
			// Every finding is new against an empty legacy baseline.
			head := scanPrint(t, "run.py", "x = eval(s)\n")
			if pre, moved, nw := Partition(head, b); len(pre)+len(moved) != 0 || len(nw) != 1 {
				t.Errorf("partition: %d %d %d", len(pre), len(moved), len(nw))
			}
		})
	}
}

const baselineV11 = `{
  "schema_version": "1.1.0",
  "phase": 3,
  "created_at": "2026-07-01T10:00:00.000Z",
  "updated_at": "2026-07-02T10:00:00.000Z",
  "engine": "tier_a",
  "files_indexed": [
    "app/main.go"
  ],
  "fingerprints": [
    "app/main.go|sast/go-shell-injection|bd098d5b652726eb|#0",
    "gone.go|sast/go-pprof|L4|UNSTABLE|#0"
  ],
  "reflow_keys": [
    "app/main.go|sast/go-shell-injection|5bf5636bc4c23d4c",
    ""
  ],
  "findings_snapshot": [
    {
      "rule_id": "sast/go-shell-injection",
      "severity": "critical",
      "message": "exec.Command with shell interpretation allows command injection",
      "location": {
        "file": "/srv/project/app/main.go",
        "line": 2,
        "column": 9
      },
      "remediation": "Use exec.Command with separate arguments."
    },
    {
      "rule_id": "sast/go-pprof",
      "severity": "medium",
      "message": "pprof",
      "location": {
        "file": "/srv/project/gone.go",
        "line": 4
      }
    }
  ],
  "triage_log": [
    {
      "fingerprint": "app/main.go|sast/go-shell-injection|bd098d5b652726eb|#0",
      "rel_file": "app/main.go",
      "rule_id": "sast/go-shell-injection",
      "rationale": "pre-existing shell-out, tracked in #12",
      "actor": "ses_abc",
      "absorbed_at": "2026-07-02T10:00:00.000Z"
    }
  ],
  "truncated": false
}
`

func TestParseBaselineV11(t *testing.T) {
	b, err := ParseBaseline("b.json", []byte(baselineV11))
	if err != nil {
		t.Fatal(err)
	}
	if b.SchemaVersion != SchemaReflow || b.Phase != 3 || len(b.Fingerprints) != 2 || len(b.ReflowKeys) != 2 || b.ReflowKeys[1] != "" {
		t.Fatalf("%+v", b)
	}
	if s := b.Snapshot[0]; s.RuleID != "sast/go-shell-injection" || s.Severity != Critical || s.File != "/srv/project/app/main.go" || s.Line != 2 || s.Column != 9 || s.Remediation == "" {
		t.Errorf("snapshot[0] %+v", s)
	}
	if s := b.Snapshot[1]; s.Column != 0 || s.Line != 4 {
		t.Errorf("snapshot[1] %+v", s)
	}
	if len(b.TriageLog) != 1 || b.TriageLog[0].Actor != "ses_abc" || b.TriageLog[0].Line != 41 || b.TriageLog[0].RelFile != "app/main.go" {
		t.Errorf("triage %+v", b.TriageLog)
	}
	if !b.Has("app/main.go|sast/go-shell-injection|bd098d5b652726eb|#0") || b.Has("x") {
		t.Error("Has")
	}
}

func TestParseBaselineErrors(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(baselineV11, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(baselineV11, old, new, 1)
	}
	for _, tc := range []struct {
		name    string
		data    string
		line    int
		schema  bool // wraps ErrInvalidSchema
		message string
	}{
		{"truncated JSON", baselineV11[:200], 10, true, "unexpected end of JSON input"},
		{"trailing comma", replace(`"tier_a",`, `"tier_a",,`), 6, true, "unexpected"},
		{"not JSON", "not json", 1, true, "invalid literal"},
		{"a byte order mark", "\ufeff" + baselineV11, 1, true, "byte order mark"},
		{"an array", "[]", 1, true, "want a JSON object"},
		{"unknown schema", replace(`"1.1.0"`, `"2.0.0"`), 2, true, `unknown schema_version "2.0.0"`},
		{"schema as a number", replace(`"1.1.0"`, `1.1`), 2, true, "unknown schema_version 1.1"},
		{"no schema", replace(`"schema_version": "1.1.0",`, ``), 1, true, "schema_version is missing"},
		{"fingerprints not an array", replace(`"fingerprints": [`, `"fingerprints": "x", "fp": [`), 10, true, "fingerprints must be an array"},
		{"a fingerprint not a string", replace(`"gone.go|sast/go-pprof|L4|UNSTABLE|#0"`, `7`), 12, true, "fingerprints[1] must be a string"},
		{"misaligned reflow_keys", replace(`,
    ""
  ]`, `
  ]`), 14, true, "reflow_keys has 1 entries but fingerprints has 2"},
		{"reflow_keys not an array", replace(`"reflow_keys": [`, `"reflow_keys": "x", "y": [`), 14, true, "reflow_keys must be a string array"},
		{"a reflow key not a string", replace(`""
  ]`, `null
  ]`), 16, true, "reflow_keys[1] must be a string"},
		{"triage_log not an array", replace(`"triage_log": [`, `"triage_log": 5, "t": [`), 40, false, "triage_log must be an array"},
		{"a triage field of the wrong type", replace(`"actor": "ses_abc"`, `"actor": 5`), 46, false, "actor must be a string"},
		{"a snapshot line not an integer", replace(`"line": 2`, `"line": 2.5`), 25, false, "line must be an integer"},
		{"truncated not a boolean", replace(`"truncated": false`, `"truncated": "no"`), 50, false, "truncated must be a boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBaseline(".swarm/evidence/3/sast-baseline.json", []byte(tc.data))
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *swarm.ArtifactError", err)
			}
			if ae.Path != ".swarm/evidence/3/sast-baseline.json" || ae.Line != tc.line {
				t.Errorf("at %s line %d, want line %d (%v)", ae.Path, ae.Line, tc.line, err)
			}
			if errors.Is(err, ErrInvalidSchema) != tc.schema {
				t.Errorf("invalid_schema = %v, want %v (%v)", !tc.schema, tc.schema, err)
			}
			if !strings.Contains(err.Error(), tc.message) || !strings.HasPrefix(err.Error(), ".swarm/evidence/3/sast-baseline.json: line ") {
				t.Errorf("message %q, want it to contain %q", err, tc.message)
			}
		})
	}
}

// TestParseBaselineLenient covers what the plugin tolerates.
func TestParseBaselineLenient(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		reflow     bool // ReflowKeys non-nil
	}{
		{"1.1.0 without reflow_keys: exact only", `{"schema_version":"1.1.0","fingerprints":["a|r|h|#0"]}`, false},
		{"1.1.0 with null reflow_keys: exact only", `{"schema_version":"1.1.0","fingerprints":["a|r|h|#0"],"reflow_keys":null}`, false},
		{"1.0.0 ignores reflow_keys, even misaligned", `{"schema_version":"1.0.0","fingerprints":["a|r|h|#0"],"reflow_keys":[]}`, false},
		{"1.1.0 empty and aligned", `{"schema_version":"1.1.0","fingerprints":[],"reflow_keys":[]}`, true},
		{"unknown fields and duplicate keys (last wins)", `{"schema_version":"0","schema_version":"1.1.0","fingerprints":[],"reflow_keys":[],"extra":{"x":1}}`, true},
		{"a phase that is not an integer", `{"schema_version":"1.0.0","fingerprints":[],"phase":"one"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ParseBaseline("b.json", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if (b.ReflowKeys != nil) != tc.reflow {
				t.Errorf("ReflowKeys = %#v", b.ReflowKeys)
			}
		})
	}
}

func TestLoadBaseline(t *testing.T) {
	fsys := fstest.MapFS{
		".swarm/evidence/1/sast-baseline.json":            {Data: []byte(baselineV11)},
		".swarm/evidence/2/sast-baseline.json/not-a-file": {Data: []byte("x")},
		".swarm/evidence/4/sast-baseline.json":            {Data: []byte(`{"schema_version":"1.1.0",`)},
	}
	if b, err := LoadBaseline(fsys, 1); err != nil || b == nil || len(b.Fingerprints) != 2 {
		t.Errorf("phase 1: %v %v", b, err)
	}
	if b, err := LoadBaseline(fsys, 3); err != nil || b != nil {
		t.Errorf("absent: %v %v", b, err)
	}
	var ae *swarm.ArtifactError
	if _, err := LoadBaseline(fsys, 2); !errors.As(err, &ae) || ae.Path != ".swarm/evidence/2/sast-baseline.json" || !strings.Contains(err.Error(), "directory") {
		t.Errorf("unreadable: %v", err)
	}
	if _, err := LoadBaseline(fsys, 4); !errors.As(err, &ae) || ae.Line != 1 || !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("invalid: %v", err)
	}
}
