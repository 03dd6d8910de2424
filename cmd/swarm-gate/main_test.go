package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDemoCommand(t *testing.T) {
	code, out, stderr := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("demo exited %d: %s", code, stderr)
	}
	for _, want := range []string{"PASS       swarm/plan-freeze", "FAIL       swarm/scope", "main.go", "internal/export/csv.go:12:6", ".swarm/plan.json:28", "result: failed (exit code 1)", "would exit with code 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// docs/cli.md shows this output: each of its gate lines is the demo's.
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	sample, _, _ := strings.Cut(string(doc), "## Can the phase close?") // phase-wrap's sample is another run
	for _, line := range strings.Split(sample, "\n") {
		if strings.HasPrefix(line, "PASS       swarm/") || strings.HasPrefix(line, "FAIL       swarm/") || strings.HasPrefix(line, "result: ") || strings.HasPrefix(line, "           next step: ") {
			shown++
			if !strings.Contains(out, line+"\n") {
				t.Errorf("docs/cli.md shows %q, which the demo no longer prints", line)
			}
		}
	}
	if shown < 11 {
		t.Errorf("docs/cli.md shows %d lines of the demo's output, want its 8 gates, 2 next steps and the result", shown)
	}
}

func TestCheckCommandFormats(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	var rep struct {
		Version   int    `json:"version"`
		Outcome   string `json:"outcome"`
		Base      string `json:"base"`
		Head      string `json:"head"`
		MergeBase string `json:"merge_base"`
		Phase     int    `json:"phase"`
		Gates     []struct {
			Name     string `json:"name"`
			Outcome  string `json:"outcome"`
			Findings []struct {
				Path     string `json:"path"`
				Line     int    `json:"line"`
				Rule     string `json:"rule"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
			} `json:"findings"`
		} `json:"gates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if rep.Version != 1 || rep.Outcome != "failed" || len(rep.Base) != 40 || len(rep.Head) != 40 || rep.MergeBase != rep.Base || rep.Phase != 1 || len(rep.Gates) != len(gates.Default()) {
		t.Errorf("report header: %+v", rep)
	}
	code, out, _ = runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--format", "markdown")
	if code != 1 || !strings.Contains(out, "| `swarm/scope` | ❌ failed |") {
		t.Errorf("markdown (exit %d):\n%s", code, out)
	}
}

func TestCheckCommandSARIF(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--format", "sarif")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "swarm-gate" || len(log.Runs[0].Results) < 3 {
		t.Fatalf("SARIF log: %+v", log)
	}
	rules := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		rules[r.RuleID] = true
		if r.Level == "" || len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result without level or location: %+v", r)
		}
	}
	for _, want := range []string{"scope/out-of-scope", "placeholder/comment-todo"} {
		if !rules[want] {
			t.Errorf("no %s result among %v", want, rules)
		}
	}
	// A check that cannot start still writes a SARIF log on stdout.
	code, out, _ = runCLI(t, "check", "--repo", t.TempDir(), "--base", "main", "--format", "sarif")
	if code != 2 || !strings.Contains(out, `"executionSuccessful": false`) || !strings.Contains(out, "not a git repository") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"check"}, {"check", "--base", "main", "--format", "xml"}, {"check", "--base", "main", "--phase", "0"}, {"check", "--base", "main", "extra"}, {"check", "--base", "main", "--diff-engine", "foo"},
		{"check", "--base", "main", "--max-findings", "-1"}, {"check", "--base", "main", "--gates", "swarm/nope"}, {"check", "--base", "main", "--gates", ","}, {"check", "--base", "main", "--gates", ""}, {"check", "--base", "main", "--head", ""}, {"check", "--base", " ", "--head", "HEAD"}, {"phase-wrap", "--base", "main", "--head", ""}, {"demo", "extra"}, {"plan"}, {"ledger"}, {"plan", "hash", "--canonical", "x"}, {"plan", "hash", "a", "b"}} {
		if code, _, _ := runCLI(t, args...); code != 3 {
			t.Errorf("%q: exit %d, want 3", args, code)
		}
	}
}

func TestCheckGatesFlag(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch, "--gates", " swarm/placeholders , swarm/critic", "--format", "json")
	var rep struct {
		Gates []struct{ Name string } `json:"gates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s%s", err, out, stderr)
	}
	var names []string
	for _, g := range rep.Gates {
		names = append(names, g.Name)
	}
	if code != 1 || strings.Join(names, " ") != "swarm/critic swarm/placeholders" {
		t.Errorf("exit %d, gates %v (want registry order)", code, names)
	}
}

// TestHelpExitsZero: help asked for is printed on stdout (nothing on
// stderr), with exit code 0, for the program and every subcommand.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"check", "--help"}, {"demo", "-h"}, {"plan", "hash", "--help"}, {"ledger", "verify", "-h"},
		{"plan", "--help"}, {"ledger", "-h"}, {"serve", "--help"}, {"action", "-h"}, {"phase-wrap", "-help"}, {"config", "validate", "--help"}, {"config", "-h"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || strings.TrimSpace(stdout) == "" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q: want 0, the usage on stdout, nothing on stderr", args, code, len(stdout), stderr)
		}
	}
}

func TestStartupErrorAsJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "check", "--repo", t.TempDir(), "--base", "main", "--format", "json")
	var rep struct {
		Outcome  string `json:"outcome"`
		ExitCode int    `json:"exit_code"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, out)
	}
	if code != 2 || rep.Outcome != "error" || rep.ExitCode != 2 || !strings.Contains(rep.Error, "not a git repository") || !strings.Contains(stderr, "not a git repository") {
		t.Errorf("exit %d, report %+v, stderr %q", code, rep, stderr)
	}
}

func TestPlanHashCommand(t *testing.T) {
	plan := "../../internal/planhash/testdata/vectors/ZaxbyHub__trainingapp@a4abf52dd5.plan.json"
	code, out, stderr := runCLI(t, "plan", "hash", plan)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Spec section 11: this plan.json hashes to trainingapp's last plan_hash_after.
	if !strings.Contains(out, "ledger hash     4aa37af1f761e6b9bded0f6a11eccd8809e74dc52f399107ead33f52a147c257") {
		t.Errorf("output:\n%s", out)
	}
	code, _, stderr = runCLI(t, "plan", "hash", filepath.Join(t.TempDir(), "missing.json"))
	if code != 2 || !strings.Contains(stderr, "not found") {
		t.Errorf("missing file: exit %d %s", code, stderr)
	}
}

func TestLedgerVerifyPlanMarkdown(t *testing.T) {
	dir := "../../../shared/corpus/VerduzcoTristan__landingpage"
	if _, err := os.Stat(dir); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo)", dir)
	}
	code, out, _ := runCLI(t, "ledger", "verify", dir)
	// Spec section 11: landingpage's plan.md was written under Node (djb2).
	if code != 0 || !strings.Contains(out, ".swarm/plan.md PLAN_HASH 3ahfzjx6hkuke matches plan.json (djb2)") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestLedgerVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	swarmDir := filepath.Join(dir, ".swarm")
	if err := os.MkdirAll(swarmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile := func(src, dst string, edit func(string) string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(swarmDir, dst), []byte(edit(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := func(s string) string { return s }
	copyFile("../../internal/demo/_example/head/.swarm/plan.json", "plan.json", same)
	copyFile("../../internal/demo/_example/head/.swarm/plan-ledger.jsonl", "plan-ledger.jsonl", same)
	code, out, stderr := runCLI(t, "ledger", "verify", dir)
	if code != 0 || !strings.Contains(out, "OK:") || !strings.Contains(out, "plan-critic approval seq 2: plan.json has the approved structure hash") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	// Edit an embedded plan on line 1 and the plan.json description.
	copyFile("../../internal/demo/_example/head/.swarm/plan-ledger.jsonl", "plan-ledger.jsonl", func(s string) string {
		return strings.Replace(s, "Add an RFC 4180 CSV writer", "Add a CSV writer", 1)
	})
	copyFile("../../internal/demo/_example/head/.swarm/plan.json", "plan.json", func(s string) string {
		return strings.Replace(s, "Document the export command", "Document every command", 1)
	})
	// A repeated key in a ledger line and in plan.json: check fails both
	// (plan-freeze/duplicate-key), so verify may not say OK.
	copyFile("../../internal/demo/_example/head/.swarm/plan-ledger.jsonl", "plan-ledger.jsonl", func(s string) string {
		return strings.Replace(s, `{"seq":1,`, `{"seq":1,"seq":1,`, 1)
	})
	copyFile("../../internal/demo/_example/head/.swarm/plan.json", "plan.json", func(s string) string {
		return strings.Replace(s, `"title":`, `"title": "x", "title":`, 1)
	})
	code, out, stderr = runCLI(t, "ledger", "verify", dir)
	for _, want := range []string{"DUPLICATE KEY " + filepath.Join(dir, ".swarm", "plan-ledger.jsonl") + ":1: seq 1 (plan_created): seq appears twice",
		"DUPLICATE KEY .swarm/plan.json: title appears twice", "2 repeated keys: "} {
		if !strings.Contains(out, want) {
			t.Errorf("duplicate keys: output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || strings.Contains(out, "OK:") {
		t.Errorf("duplicate keys: exit %d, want 1 and no OK\n%s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "plan", "hash", filepath.Join(swarmDir, "plan.json")); code != 0 || !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, "title appears twice") {
		t.Errorf("plan hash on a repeated key: exit %d, stderr %q", code, stderr)
	}
	copyFile("../../internal/demo/_example/head/.swarm/plan-ledger.jsonl", "plan-ledger.jsonl", func(s string) string {
		return strings.Replace(s, "Add an RFC 4180 CSV writer", "Add a CSV writer", 1)
	})
	copyFile("../../internal/demo/_example/head/.swarm/plan.json", "plan.json", func(s string) string {
		return strings.Replace(s, "Document the export command", "Document every command", 1)
	})
	code, out, _ = runCLI(t, "ledger", "verify", swarmDir)
	for _, want := range []string{"MISMATCH seq 1 (line 1)", "plan.json was changed outside the ledger", "task 1.3: description changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}

// TestBrokenArtifactSaysWhatToDo: a damaged .swarm file makes gates
// "error" (exit 2) and puts one line per cause on stderr with the fix.
func TestBrokenArtifactSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipping: git is not on PATH")
	}
	git("checkout", "-q", demo.HeadBranch)
	if err := os.WriteFile(filepath.Join(dir, ".swarm", "plan-ledger.jsonl"), []byte("{\"seq\":1,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-qam", "damage the ledger")
	code, _, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], ".swarm/plan-ledger.jsonl: line 1") || !strings.Contains(lines[0], "repair the file") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestUnknownLogLevelIsSaid: an unknown SWARM_GATE_LOG is not silently
// ignored by the commands that go on (serve refuses it: TestServeSettings).
func TestUnknownLogLevelIsSaid(t *testing.T) {
	t.Setenv("SWARM_GATE_LOG", "verbose")
	if _, _, stderr := runCLI(t, "plan", "hash", "--help"); !strings.Contains(stderr, `SWARM_GATE_LOG="verbose" is not a log level (debug, info, warn or error)`) {
		t.Errorf("stderr %q does not name the bad level", stderr)
	}
	t.Setenv("SWARM_GATE_LOG", "debug")
	if _, _, stderr := runCLI(t, "plan", "hash", "--help"); strings.Contains(stderr, "is not a log level") {
		t.Errorf("a valid level was refused: %q", stderr)
	}
}

// TestCheckRanges: a range with no commit of the pull request in it is a
// clear exit 2, saying which way round the refs go; a dirty work tree is
// said on stderr, since only commits are checked.
func TestCheckRanges(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		base, head string
		code       int
		says       []string
	}{
		{"base and head are one commit", demo.HeadBranch, demo.HeadBranch, 2, []string{"empty range", "are the same commit"}},
		{"swapped arguments", demo.HeadBranch, demo.BaseBranch, 2, []string{"empty range", "is an ancestor of base", "were --base and --head swapped?"}},
		{"the right way round", demo.BaseBranch, demo.HeadBranch, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "check", "--repo", dir, "--base", c.base, "--head", c.head)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, stderr)
			}
			for _, s := range c.says {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}

	if err := demo.Checkout(dir, demo.HeadBranch); err != nil {
		t.Fatal(err)
	}
	if _, _, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch); strings.Contains(stderr, "uncommitted") {
		t.Errorf("a clean work tree is reported dirty:\n%s", stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch)
	if !strings.Contains(stderr, "the work tree has 2 uncommitted changes, which are not checked: only commits are") {
		t.Errorf("stderr does not say the work tree has uncommitted changes:\n%s", stderr)
	}
	// An explicit head commit is not the work tree: nothing to say.
	if _, _, stderr := runCLI(t, "check", "--repo", dir, "--base", demo.BaseBranch, "--head", demo.HeadBranch); strings.Contains(stderr, "uncommitted") {
		t.Errorf("with --head, the work tree is not mentioned:\n%s", stderr)
	}
}

// A plan.json or ledger saved as UTF-16 (PowerShell's Out-File) was
// reported as an unexpected byte; the message names the encoding.
func TestPlanFilesInUTF16(t *testing.T) {
	utf16le := func(s string, bom bool) []byte {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return b
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".swarm"), 0o755); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, ".swarm", "plan.json")
	for _, bom := range []bool{true, false} {
		if err := os.WriteFile(plan, utf16le(`{"schema_version":"1.0.0","title":"t","swarm":"s","phases":[]}`, bom), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "plan", "hash", plan)
		if code != exitError || !strings.Contains(stderr, "plan.json: line 1: the file ") || !strings.Contains(stderr, "UTF-16 (little-endian)") || !strings.Contains(stderr, "save it as UTF-8") {
			t.Errorf("plan hash, byte order mark %v: exit %d, stderr %q", bom, code, stderr)
		}
	}
	if err := os.Remove(plan); err != nil {
		t.Fatal(err)
	}
	ledger := `{"seq":1,"timestamp":"2026-01-01T00:00:00Z","plan_id":"s-t","event_type":"plan_created"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".swarm", "plan-ledger.jsonl"), utf16le(ledger, false), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "ledger", "verify", dir)
	if code != exitError || !strings.Contains(stderr, "plan-ledger.jsonl: line 1: the file looks like UTF-16 (little-endian) without a byte order mark") {
		t.Errorf("ledger verify: exit %d, stderr %q", code, stderr)
	}
}

func TestPlanHashReadsStdin(t *testing.T) {
	data, err := os.ReadFile("../../internal/planhash/testdata/vectors/ZaxbyHub__trainingapp@a4abf52dd5.plan.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := runPlanHash([]string{"-"}, strings.NewReader(string(data)), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "(stdin)\n") || !strings.Contains(out.String(), "4aa37af1f761e6b9bded0f6a11eccd8809e74dc52f399107ead33f52a147c257") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := runPlanHash([]string{"-"}, strings.NewReader(" \n"), &out, &errb); code != exitError || !strings.Contains(errb.String(), "standard input is empty") {
		t.Errorf("empty stdin: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = runPlanHash([]string{"a", "b"}, strings.NewReader(""), &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), `one FILE at most, got ["a" "b"]`) {
		t.Errorf("two files: exit %d, stderr %q", code, errb.String())
	}
}
