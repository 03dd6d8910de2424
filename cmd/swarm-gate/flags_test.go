package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
