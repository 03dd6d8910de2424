package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden verdicts in testdata/golden from this run")

const (
	replayDir     = "../../../shared/replay"
	goldenDir     = "testdata/golden"
	judgmentsFile = "testdata/JUDGMENTS.md"
)

// TestReplay runs every real range of ../shared/replay through the whole
// pipeline and checks, per range: that it evaluates (no exit 2); that the
// verdict equals its golden file; that the gates that fail are exactly the
// ones the reviewer's judgment (testdata/JUDGMENTS.md) says must block; and
// that no gate fails the pull request for a finding that already holds,
// identically, on the merge base.
func TestReplay(t *testing.T) {
	if _, err := os.Stat(filepath.Join(replayDir, "ranges.json")); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo to run the replay suite)", replayDir)
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("skipping: the replay bundles are cloned with the git CLI, which is not installed")
	}
	ranges, err := LoadRanges(replayDir)
	if err != nil {
		t.Fatal(err)
	}
	judgments, err := LoadJudgments(judgmentsFile)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll(goldenDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	clones := map[string]string{}
	work := t.TempDir()
	for i, r := range ranges {
		t.Run(fmt.Sprintf("%02d-%s", i, r.Repo), func(t *testing.T) {
			dir, ok := clones[r.Bundle]
			if !ok {
				dir = filepath.Join(work, r.Repo)
				out, err := exec.Command(gitPath, "clone", "--quiet", "--no-checkout", filepath.Join(replayDir, r.Bundle), dir).CombinedOutput()
				if err != nil {
					t.Fatalf("range %d: cloning %s: %v\n%s", i, r.Bundle, err, out)
				}
				clones[r.Bundle] = dir
			}
			var in *gates.Input
			rep, err := pipeline.Check(context.Background(), pipeline.Options{RepoDir: dir, Base: r.Base, Head: r.Head, OnInput: func(x *gates.Input) { in = x }})
			if err != nil {
				t.Fatalf("range %d (%s %s..%s) could not be evaluated: %v", i, r.Repo, r.Base[:8], r.Head[:8], err)
			}
			v := NewVerdict(i, r, rep)
			checkGolden(t, i, r, v)
			checkJudgment(t, judgments, i, v)
			if in == nil {
				t.Fatalf("range %d: the pipeline did not report its input", i)
			}
			for _, p := range notOnBase(i, in, rep.Gates) {
				t.Error(p)
			}
		})
	}
	if !*update {
		// A golden file no range has any more is a stale record.
		files, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
		want := map[string]bool{}
		for i, r := range ranges {
			want[FileName(i, r)] = true
		}
		for _, f := range files {
			if !want[filepath.Base(f)] {
				t.Errorf("%s belongs to no range of ranges.json; run go test ./internal/replay -update", f)
			}
		}
	}
	for i := range judgments {
		if i < 0 || i >= len(ranges) {
			t.Errorf("%s judges range %d, which ranges.json does not have", judgmentsFile, i)
		}
	}
}

func checkGolden(t *testing.T, i int, r Range, v *Verdict) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	p := filepath.Join(goldenDir, FileName(i, r))
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("range %d: no golden verdict (%v); run go test ./internal/replay -update and judge it in %s", i, err, judgmentsFile)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("range %d (%s %s..%s): the verdict differs from %s (go test ./internal/replay -update rewrites it; then re-judge the range in %s):\n%s",
			i, r.Repo, r.Base[:8], r.Head[:8], p, judgmentsFile, lineDiff(string(want), string(got)))
	}
}

func checkJudgment(t *testing.T, judgments map[int]Judgment, i int, v *Verdict) {
	t.Helper()
	j, ok := judgments[i]
	if !ok {
		t.Errorf("range %d (%s) is not judged in %s", i, v.Repo, judgmentsFile)
		return
	}
	got := v.Failed()
	slices.Sort(got)
	if !slices.Equal(got, j.Blocks) {
		t.Errorf("range %d (%s): blocking gates %v, but the judgment in %s says %v: %s", i, v.Repo, got, judgmentsFile, j.Blocks, j.Why)
	}
}

// digits are replaced in messages compared across the two sides: counts
// and line numbers move while the finding stays the same.
var digits = regexp.MustCompile(`[0-9]+`)

// notOnBase checks the principle "judge the pull request": a failing
// finding must not already hold on the merge base. It is checked three
// ways, apart from how the gates classify: by the finding's key against
// the gate evaluated at the merge base; by rule, path and message (numbers
// aside) when the file the finding is on is the same on both sides; and,
// for findings on a line (placeholders, SAST), by the line's text, which
// must not be as frequent in the merge base's file as at head.
func notOnBase(i int, in *gates.Input, results []gates.Result) []string {
	var problems []string
	byName := map[string]gates.Gate{}
	for _, g := range gates.Registry() {
		byName[g.Name()] = g
	}
	for _, r := range results {
		g := byName[r.Name]
		var keys map[string]bool
		var texts map[string]bool
		if g != nil && gates.ComparesWithBase(g) {
			base := gates.EvaluateAtMergeBase(context.Background(), g, in)
			if base.Outcome == gates.Error {
				continue // nothing to compare with: all counted as introduced, and said so
			}
			keys, texts = map[string]bool{}, map[string]bool{}
			for _, f := range base.Findings {
				if f.Severity == gates.SeverityError {
					keys[f.Key] = true
					texts[f.Rule+"\x00"+f.Path+"\x00"+digits.ReplaceAllString(f.Message, "#")] = true
				}
			}
		}
		for _, f := range r.Findings {
			if f.Severity != gates.SeverityError {
				continue
			}
			what := fmt.Sprintf("range %d: %s fails the pull request for a finding that already holds on the merge base: %s:%d %s: %s", i, r.Name, f.Path, f.Line, f.Rule, f.Message)
			switch {
			case f.Key != "" && keys[f.Key]:
				problems = append(problems, what+" (same key)")
			case texts[f.Rule+"\x00"+f.Path+"\x00"+digits.ReplaceAllString(f.Message, "#")] && sameFile(in, f.Path):
				problems = append(problems, what+" (same message, same file)")
			case f.Line > 0 && keys == nil && lineOnBase(in, f.Path, f.Line):
				problems = append(problems, what+" (the line is as frequent in the merge base's file)")
			}
		}
	}
	return problems
}

// sameFile reports whether path has the same content (or is absent) on
// both sides.
func sameFile(in *gates.Input, path string) bool {
	h, hok := read(in.HeadFile, path)
	b, bok := read(in.BaseFile, path)
	return hok == bok && bytes.Equal(h, b)
}

// lineOnBase reports whether the text of the head file's line occurs in the
// merge base's version of the file (its old path for a rename or copy) at
// least as often as in the head file.
func lineOnBase(in *gates.Input, path string, line int) bool {
	h, ok := read(in.HeadFile, path)
	if !ok {
		return false
	}
	lines := strings.Split(string(h), "\n")
	if line > len(lines) {
		return false
	}
	text := strings.TrimSpace(lines[line-1])
	if text == "" {
		return false
	}
	old := path
	for _, f := range in.Changes.Files {
		if f.NewPath == path && (f.Status == changeset.Renamed || f.Status == changeset.Copied) {
			old = f.OldPath
		}
	}
	b, ok := read(in.BaseFile, old)
	if !ok {
		return false
	}
	return count(string(b), text) >= count(string(h), text)
}

func count(content, text string) int {
	n := 0
	for _, l := range strings.Split(content, "\n") {
		if strings.TrimSpace(l) == text {
			n++
		}
	}
	return n
}

// read copies a file through a reader of the input (whose buffer the next
// call reuses).
func read(f func(string) ([]byte, bool), path string) ([]byte, bool) {
	if f == nil {
		return nil, false
	}
	b, ok := f(path)
	return bytes.Clone(b), ok
}

// lineDiff shows where want and got first part, with a few lines of each
// from there, for the golden failure message.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	k := 0
	for k < len(w) && k < len(g) && w[k] == g[k] {
		k++
	}
	const n = 8
	return fmt.Sprintf("from line %d\n  golden: %s\n  now:    %s", k+1,
		strings.Join(w[k:min(len(w), k+n)], "\n          "), strings.Join(g[k:min(len(g), k+n)], "\n          "))
}

// TestNotOnBaseCanFail: the check above finds a finding on a line the merge
// base already has, and one whose key the merge base's evaluation has.
func TestNotOnBaseCanFail(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, bool) {
		return func(p string) ([]byte, bool) { c, ok := m[p]; return []byte(c), ok }
	}
	in := &gates.Input{
		HeadFile: files(map[string]string{"a.go": "package a\n// TODO: x\n", "b.go": "// TODO: y\n// TODO: y\n"}),
		BaseFile: files(map[string]string{"old.go": "package a\n// TODO: x\n", "b.go": "// TODO: y\n"}),
		Changes: &changeset.ChangeSet{Files: []changeset.File{
			{Status: changeset.Renamed, OldPath: "old.go", NewPath: "a.go"},
			{Status: changeset.Modified, OldPath: "b.go", NewPath: "b.go"},
		}},
	}
	res := []gates.Result{{Name: "swarm/placeholders", Findings: []gates.Finding{
		{Path: "a.go", Line: 2, Rule: "placeholder/comment-todo", Severity: gates.SeverityError, Message: "moved from the old path"},
		{Path: "b.go", Line: 2, Rule: "placeholder/comment-todo", Severity: gates.SeverityError, Message: "a second copy: new"},
		{Path: "a.go", Line: 2, Rule: "placeholder/comment-todo", Severity: gates.SeverityWarning, Message: "a warning never counts"},
	}}}
	got := notOnBase(0, in, res)
	if len(got) != 1 || !strings.Contains(got[0], "moved from the old path") {
		t.Fatalf("want one problem, the renamed line:\n%s", strings.Join(got, "\n"))
	}
}
