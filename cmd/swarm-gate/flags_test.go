package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/demo"
)

// TestCLIConsistency: what a new user tried (issue 21 item 8).
func TestCLIConsistency(t *testing.T) {
	plan := "../../internal/planhash/testdata/vectors/ZaxbyHub__trainingapp@a4abf52dd5.plan.json"
	emptyDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(emptyDir, ".swarm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(emptyDir, ".swarm", "plan-ledger.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		args      []string
		code      int
		out, errs string // substrings of stdout and stderr
	}{
		{"flag after FILE", []string{"plan", "hash", plan, "--format", "json"}, 0, `"ledger_hash": "4aa37af1f761`, ""},
		{"flag=value after FILE", []string{"plan", "hash", plan, "--format=json"}, 0, `"ledger_hash"`, ""},
		{"-- ends the flags", []string{"plan", "hash", "--", "--format"}, 2, "", "--format"},
		{"repeated flag", []string{"plan", "hash", "--format", "json", "--format", "text", plan}, 3, "", "flag -format given twice"},
		{"repeated flag, = form", []string{"check", "--base", "main", "--base=dev"}, 3, "", "flag -base given twice"},
		{"unknown flag after a positional", []string{"ledger", "verify", ".", "--bogus"}, 3, "", "flag provided but not defined: -bogus"},
		{"flag before the command", []string{"-x", "check"}, 3, "", "unknown flag -x"},
		{"ledger verify names the path", []string{"ledger", "verify", filepath.Join(emptyDir, "nope")}, 2, "", filepath.Join(emptyDir, "nope") + " does not exist"},
		{"ledger verify on a file", []string{"ledger", "verify", filepath.Join(emptyDir, ".swarm", "plan-ledger.jsonl")}, 2, "", filepath.Join(emptyDir, ".swarm", "plan-ledger.jsonl") + " is a file; give the folder that holds .swarm/"},
		{"ledger verify on a folder without .swarm", []string{"ledger", "verify", t.TempDir()}, 2, "", " has no .swarm/ folder"},
		{"phase-wrap on a missing folder", []string{"phase-wrap", "--dir", filepath.Join(emptyDir, "nope")}, 2, "", filepath.Join(emptyDir, "nope") + " does not exist"},
		{"check on a missing repository", []string{"check", "--repo", filepath.Join(emptyDir, "nope"), "--base", "main"}, 2, "", filepath.Join(emptyDir, "nope") + " does not exist"},
		{"config validate on a missing file", []string{"config", "validate", filepath.Join(emptyDir, "nope.yml")}, 2, "", filepath.Join(emptyDir, "nope.yml") + " does not exist"},
		{"empty ledger", []string{"ledger", "verify", emptyDir}, 1, filepath.Join(emptyDir, ".swarm", "plan-ledger.jsonl") + " is empty", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.errs) {
				t.Errorf("%q: exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout with %q, stderr with %q", c.args, code, c.code, out, errs, c.out, c.errs)
			}
			if strings.Contains(out, "OK:") && c.code != 0 {
				t.Errorf("says OK: %s", out)
			}
		})
	}
}

// TestPhaseNotInPlan: --phase naming a phase the plan does not have
// says so and lists the plan's phases, for check and phase-wrap (issue 21
// item 8).
func TestPhaseNotInPlan(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	const want = "phase 999 (from flag) is not in .swarm/plan.json, which has phases 1"
	for _, args := range [][]string{
		{"check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--phase", "999"},
		{"phase-wrap", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--phase", "999"},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d (want 2)\nstdout: %s\nstderr: %s\nwant stderr with %q", args, code, out, errs, want)
		}
	}
}

// TestServeHelpShowsRealDefaults: serve -h shows each setting's value when
// the flag is not given: the default the server uses (not a 0 that stands
// for it), or the variable's value when it is set (issue 21 item 8).
func TestServeHelpShowsRealDefaults(t *testing.T) {
	t.Setenv("SWARM_GATE_JOB_TIMEOUT", "7m")
	code, out, errs := runCLI(t, "serve", "-h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	help := out + errs
	for _, want := range [][2]string{
		{"-listen", `(default ":8080")`},
		{"-queue-size", `(default "256")`},
		{"-workers", fmt.Sprintf(`(default "%d")`, min(2*runtime.GOMAXPROCS(0), 4096))},
		{"-job-timeout", `(default "7m")`},
		{"-shutdown-timeout", `(default "20s")`},
	} {
		_, rest, ok := strings.Cut(help, "  "+want[0]+" ")
		line, _, _ := strings.Cut(rest, "\n  -")
		if !ok || !strings.Contains(line, want[1]) {
			t.Errorf("serve -h: %s does not show %s:\n%s", want[0], want[1], line)
		}
	}
	if strings.Contains(help, `(default "0")`) {
		t.Errorf("serve -h shows a default of 0:\n%s", help)
	}
}
