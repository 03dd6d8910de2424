package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

func outcomes(r *report.Report) map[string]gates.Outcome {
	m := map[string]gates.Outcome{}
	for _, g := range r.Gates {
		m[g.Name] = g.Outcome
	}
	return m
}

func TestCheckDemo(t *testing.T) {
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"go-git", "auto"} {
		t.Run(engine, func(t *testing.T) {
			r, err := Check(context.Background(), Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch, DiffEngine: engine})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]gates.Outcome{"swarm/plan-freeze": gates.Passed, "swarm/scope": gates.Failed, "swarm/placeholders": gates.Failed, "swarm/evidence": gates.Failed}
			for name, o := range want {
				if got := outcomes(r)[name]; got != o {
					t.Errorf("%s: %s, want %s", name, got, o)
				}
			}
			if r.ExitCode != 1 || r.Outcome != gates.Failed {
				t.Errorf("exit %d outcome %s, want 1 failed", r.ExitCode, r.Outcome)
			}
			if r.Base != base || r.Head != head || r.MergeBase != base || r.Phase != 1 || r.PhaseSource != gates.PhaseFromBranch {
				t.Errorf("report header %+v", r)
			}
			var where []string
			for _, g := range r.Gates {
				for _, f := range g.Findings {
					where = append(where, report.Location(f))
				}
			}
			if got := strings.Join(where, " "); got != "main.go internal/export/csv.go:12:6 .swarm/plan.json:28" {
				t.Errorf("findings at %s", got)
			}
		})
	}
}

// repo is a test repository built with go-git.
type repo struct {
	t    *testing.T
	dir  string
	git  *git.Repository
	when time.Time
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("main"))); err != nil {
		t.Fatal(err)
	}
	return &repo{t: t, dir: dir, git: g, when: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// commit writes files ("" content deletes) and commits them on the current
// branch, first switching to branch when it is not "".
func (r *repo) commit(branch string, files map[string]string) string {
	r.t.Helper()
	wt, err := r.git.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if branch != "" {
		if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Create: true}); err != nil {
			r.t.Fatal(err)
		}
	}
	for p, content := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if content == "" {
			if _, err := wt.Remove(p); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			r.t.Fatal(err)
		}
	}
	r.when = r.when.Add(time.Hour)
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: r.when}
	h, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

const miniPlan = `{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":2,"phases":[
 {"id":1,"name":"A","tasks":[{"id":"1.1","phase":1,"description":"d","files_touched":["a/"]}]},
 {"id":2,"name":"B","tasks":[{"id":"2.1","phase":2,"description":"d","files_touched":["b/"]}]}]}`

func TestCheckPhaseSources(t *testing.T) {
	r := newRepo(t)
	r.commit("", map[string]string{"README.md": "x\n", ".swarm/plan.json": miniPlan})
	head := r.commit("swarm/phase-1", map[string]string{"a/x.go": "package a\n"})
	cases := []struct {
		head   string
		phase  int
		want   int
		source gates.PhaseSource
	}{
		{"swarm/phase-1", 0, 1, gates.PhaseFromBranch},
		{"refs/heads/swarm/phase-1", 0, 1, gates.PhaseFromBranch},
		{"HEAD", 0, 1, gates.PhaseFromBranch},
		{head, 0, 1, gates.PhaseFromActivePhase}, // phase 1 is not complete; current_phase (2) is only the last resort
		{"swarm/phase-1", 2, 2, gates.PhaseFromFlag},
	}
	for _, c := range cases {
		rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: c.head, Phase: c.phase})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Phase != c.want || rep.PhaseSource != c.source {
			t.Errorf("head %s phase %d: got phase %d from %s, want %d from %s", c.head, c.phase, rep.Phase, rep.PhaseSource, c.want, c.source)
		}
	}
	// In CI the head is a SHA and the branch name comes separately.
	rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: head, HeadBranch: "swarm/phase-1"})
	if err != nil || rep.Phase != 1 || rep.PhaseSource != gates.PhaseFromBranch {
		t.Errorf("head SHA with HeadBranch: %v %+v", err, rep)
	}
	if rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: head, HeadBranch: "feature/swarm/phase-1"}); err != nil || rep.PhaseSource != gates.PhaseFromActivePhase {
		t.Errorf("a branch that only ends in swarm/phase-1 must not set the phase: %v %+v", err, rep)
	}
	for _, bad := range []string{"swarm/phase-0", "swarm/phase-99999999999999999999"} {
		if _, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: head, HeadBranch: bad}); err == nil || !strings.Contains(err.Error(), "--phase") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestCheckBadInput covers the bad inputs: each is exit code 2 with
// one line that says what is missing and what to do.
func TestCheckBadInput(t *testing.T) {
	r := newRepo(t)
	r.commit("", map[string]string{"README.md": "x\n", ".swarm/plan.json": miniPlan})
	r.commit("swarm/phase-2", map[string]string{"b/x.go": "package b\n"})

	noSwarm := newRepo(t)
	noSwarm.commit("", map[string]string{"README.md": "x\n"})
	noSwarm.commit("feature", map[string]string{"b.go": "package b\n"})

	cases := []struct {
		name string
		opts Options
		is   error
		text string
	}{
		{"base ref does not exist", Options{RepoDir: r.dir, Base: "origin/main", Head: "swarm/phase-2"}, nil, "git fetch"},
		{"head ref does not exist", Options{RepoDir: r.dir, Base: "main", Head: "nope"}, nil, "nope"},
		{"no .swarm at head", Options{RepoDir: noSwarm.dir, Base: "main", Head: "feature"}, ErrNoSwarm, "commit the plugin's .swarm/ folder"},
		{"not a repository", Options{RepoDir: t.TempDir(), Base: "main"}, nil, "not a git repository"},
		{"no base", Options{RepoDir: r.dir}, nil, "--base"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(context.Background(), c.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if !strings.Contains(err.Error(), c.text) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line mentioning %q", err, c.text)
			}
		})
	}
}

func TestCheckBrokenArtifactsFailClosed(t *testing.T) {
	r := newRepo(t)
	r.commit("", map[string]string{"README.md": "x\n", ".swarm/plan.json": miniPlan})
	r.commit("swarm/phase-2", map[string]string{
		"b/x.go":                   "package b\n",
		".swarm/plan.json":         miniPlan[:60],
		".swarm/plan-ledger.jsonl": "{\"seq\":1,\n",
	})
	// Without a phase the plan is needed to pick one; with the branch name
	// the gates run and say what is broken.
	rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-2"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != gates.Error || rep.ExitCode != 2 {
		t.Fatalf("outcome %s exit %d, want error 2", rep.Outcome, rep.ExitCode)
	}
	for _, g := range rep.Gates {
		if g.Name == "swarm/placeholders" || g.Name == "swarm/sast" {
			continue // they read the code, not the plan
		}
		if g.Outcome != gates.Error || !strings.Contains(g.Title, ".swarm/plan.json: line ") {
			t.Errorf("%s: %s %q, want error naming .swarm/plan.json and the line", g.Name, g.Outcome, g.Title)
		}
	}
	_, err = Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "HEAD~0"})
	if err == nil || !strings.Contains(err.Error(), ".swarm/plan.json: line") || !strings.Contains(err.Error(), "repair the file") || strings.Contains(err.Error(), "\n") {
		t.Errorf("no phase and a broken plan: %v", err)
	}
}

func TestCheckUnrelatedHistories(t *testing.T) {
	a := newRepo(t)
	a.commit("", map[string]string{".swarm/plan.json": miniPlan})
	// An orphan branch: a second root commit.
	wt, _ := a.git.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("orphan"), Create: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.git.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("orphan2"))); err != nil {
		t.Fatal(err)
	}
	a.commit("", map[string]string{"z.txt": "z\n"})
	_, err := Check(context.Background(), Options{RepoDir: a.dir, Base: "main", Head: "orphan2"})
	if err == nil || !strings.Contains(err.Error(), "merge base") && !strings.Contains(err.Error(), "common") {
		t.Errorf("unrelated histories: %v", err)
	}
}

// TestCheckCopiedTODO: copying a file that holds a TODO into a new file
// adds that TODO, even where git reports the file as a copy.
func TestCheckCopiedTODO(t *testing.T) {
	r := newRepo(t)
	plan := strings.Replace(miniPlan, `"files_touched":["b/"]`, `"files_touched":["b/","src/"]`, 1)
	todo := "def a():\n    # TODO: remove this hack\n    return 1\n"
	r.commit("", map[string]string{".swarm/plan.json": plan, "src/a.py": todo})
	r.commit("swarm/phase-2", map[string]string{"src/b.py": todo, "src/a.py": todo + "x = 2\n"})
	for _, engine := range []string{"git", "go-git"} {
		rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-2", DiffEngine: engine})
		if err != nil {
			if engine == "git" && strings.Contains(err.Error(), "executable file not found") {
				continue
			}
			t.Fatal(err)
		}
		for _, g := range rep.Gates {
			if g.Name != "swarm/placeholders" {
				continue
			}
			if g.Outcome != gates.Failed || len(g.Findings) != 1 || g.Findings[0].Path != "src/b.py" || g.Findings[0].Line != 2 {
				t.Errorf("%s: %s %+v, want one finding at src/b.py:2", engine, g.Outcome, g.Findings)
			}
		}
	}
}
