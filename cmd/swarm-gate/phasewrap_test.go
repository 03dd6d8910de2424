package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

const corpusRoot = "../../../shared/corpus"

func corpusDir(t *testing.T, repo string) string {
	t.Helper()
	dir := filepath.Join(corpusRoot, repo)
	if _, err := os.Stat(dir); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent", dir)
	}
	return dir
}

func TestPhaseWrapFolder(t *testing.T) {
	cases := []struct {
		repo    string
		args    []string
		code    int
		mention []string
	}{
		{"DediGadot__IMU-Parkinson", nil, 1, []string{"can phase 1 close? (phase from current_phase; the plan's last phase is 3)",
			" 1. PASS     retrospective        .swarm/evidence/retro-1/evidence.json",
			" 3. FAIL     drift                .swarm/evidence/1/drift-verifier.json:15: DRIFT_VERIFICATION_REJECTED: entry 1 has verdict \"approved\", but its summary contains NEEDS_REVISION",
			"result: phase 1 cannot close: DRIFT_VERIFICATION_REJECTED"}},
		// Phase 1 closed at events line 77, but its tasks 1.2 and 1.3 were
		// later reset, redefined and completed again on the old records.
		{"JG1995__fm-value-scout", []string{"--phase", "1"}, 1, []string{"the newest phase_complete event for phase 1, .swarm/events.jsonl line 77 (success)", "TASK_EVIDENCE_STALE: 2 of 3 completed tasks without passing evidence (1.2, 1.3)"}},
		{"sleuthy-sloth__quest-forge", []string{"--phase", "1"}, 0, []string{"result: phase 1 can close (6 PASS, 4 SKIPPED; exit code 0)", "all 2 completed tasks have passing gate evidence"}},
		{"basel-ax__saleor-tma-frontend", nil, 1, []string{"DRIFT_VERIFICATION_MISSING", "TASKS_INCOMPLETE: 1 of 5 tasks not completed: 1.4 pending"}},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			dir := corpusDir(t, c.repo)
			code, out, stderr := runCLI(t, append([]string{"phase-wrap", "--dir", dir, "--at", "2026-06-01T00:00:00Z"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, stderr)
			}
			for _, m := range c.mention {
				if !strings.Contains(out, m) {
					t.Errorf("output lacks %q:\n%s", m, out)
				}
			}
			if !strings.Contains(out, "now: 2026-06-01T00:00:00Z (--at)") {
				t.Errorf("output does not say which time it used:\n%s", out)
			}
		})
	}
}

func TestPhaseWrapJSON(t *testing.T) {
	dir := corpusDir(t, "DediGadot__IMU-Parkinson")
	code, out, _ := runCLI(t, "phase-wrap", "--dir", filepath.Join(dir, ".swarm"), "--phase", "1", "--format", "json")
	var rep struct {
		Version   int    `json:"version"`
		Outcome   string `json:"outcome"`
		CanClose  bool   `json:"can_close"`
		ExitCode  int    `json:"exit_code"`
		Phase     int    `json:"phase"`
		Mode      string `json:"mode"`
		LastPhase int    `json:"last_phase"`
		QAProfile string `json:"qa_profile"`
		Items     []struct {
			Step, Status, Code, File, Detail string
			Line                             int
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 1 || rep.Version != 1 || rep.Outcome != "failed" || rep.CanClose || rep.ExitCode != 1 || rep.Phase != 1 || rep.Mode != "dir" || rep.LastPhase != 3 || len(rep.Items) != 10 {
		t.Errorf("exit %d, report %+v", code, rep)
	}
	if d := rep.Items[2]; d.Step != "drift" || d.Status != "FAIL" || d.Code != "DRIFT_VERIFICATION_REJECTED" || d.File != ".swarm/evidence/1/drift-verifier.json" || d.Line != 15 { // the summary's line
		t.Errorf("drift item %+v", d)
	}
	if !strings.Contains(rep.QAProfile, "plugin's defaults") {
		t.Errorf("qa_profile %q", rep.QAProfile)
	}
}

func TestPhaseWrapGit(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "phase-wrap", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch)
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, m := range []string{"can phase 1 close? (phase from branch", "(git)", "(the head commit's committer time)", "policy: built-in defaults",
		"RETROSPECTIVE_MISSING", "TASKS_INCOMPLETE: 1 of 3 tasks not completed: 1.3 pending", "TASK_EVIDENCE_MISSING", "result: phase 1 cannot close"} {
		if !strings.Contains(out, m) {
			t.Errorf("output lacks %q:\n%s", m, out)
		}
	}
	// The gate runs in check only when asked for.
	code, out, _ = runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch)
	if code != 1 || strings.Contains(out, "swarm/phase-wrap") {
		t.Errorf("default check ran phase-wrap (exit %d):\n%s", code, out)
	}
	code, out, _ = runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--gates", "swarm/phase-wrap")
	if code != 1 || !strings.Contains(out, "FAIL       swarm/phase-wrap     phase 1 cannot close: RETROSPECTIVE_MISSING") {
		t.Errorf("check --gates swarm/phase-wrap (exit %d):\n%s", code, out)
	}
}

func TestPhaseWrapUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--format", "markdown"}, 3, "--format must be text or json"},
		{[]string{"--phase", "x"}, 3, "--phase must be a phase number"},
		{[]string{"--base", "main", "--dir", "."}, 3, "--dir and --at are for folder mode"},
		{[]string{"--head", "x"}, 3, "need --base"},
		{[]string{"--at", "yesterday"}, 3, "RFC 3339"},
		{[]string{"extra"}, 3, "unexpected argument"},
		{[]string{"--dir", "/nonexistent/folder"}, 2, "/nonexistent/folder does not exist"},
	} {
		code, _, stderr := runCLI(t, append([]string{"phase-wrap"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	if code, stdout, _ := runCLI(t, "phase-wrap", "-h"); code != 0 || !strings.Contains(stdout, "Can plan phase N close?") {
		t.Errorf("-h: exit %d %q", code, stdout)
	}
}

// TestPhaseWrapReportsCauses: item 7: without --phase and without a plan the
// JSON report has no phase_source (it is not "flag"), and a step that cannot
// be read gives its cause on the result line, not its step name as a code.
func TestPhaseWrapReportsCauses(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".swarm"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "phase-wrap", "--dir", dir, "--format", "json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, ok := rep["phase_source"]; code != 2 || ok || !strings.Contains(rep["error"].(string), "plan.json is missing") {
		t.Errorf("exit %d, report %v", code, rep)
	}
	if _, out, _ := runCLI(t, "phase-wrap", "--dir", dir, "--phase", "1", "--format", "json"); !strings.Contains(out, `"phase_source": "flag"`) {
		t.Errorf("--phase 1 without phase_source flag:\n%s", out)
	}

	files := map[string]string{
		".swarm/plan.json": `{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":1,"phases":[{"id":1,"name":"A","tasks":[
 {"id":"1.1","phase":1,"status":"completed","description":"d"}]}]}`,
		".swarm/evidence/1.1.json":              `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{}}}`,
		".swarm/evidence/retro-1/evidence.json": `{"entries":[{"type":"retrospective","phase_number":1,"verdict":"pass"}]}`,
		".swarm/events.jsonl":                   "{bad json\n",
	}
	for p, d := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ = runCLI(t, "phase-wrap", "--dir", dir)
	want := "result: could not evaluate whether phase 1 can close: required-agents: .swarm/events.jsonl: line 1: "
	if code != 2 || !strings.Contains(out, want) || strings.Contains(out, "REQUIRED-AGENTS") || !strings.Contains(out, "(phase from current_phase;") {
		t.Errorf("exit %d, want the cause %q:\n%s", code, want, out)
	}
}
