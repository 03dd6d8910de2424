package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// gitLog puts a git on PATH that notes each command it runs (its first
// argument that is not an option) in a file, then runs the real git; it
// returns a function reading the commands so far.
func gitLog(t *testing.T) func() []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for git")
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	// -c takes the next argument as its value.
	script := fmt.Sprintf("#!/bin/sh\nv=\nfor a in \"$@\"; do\n  if [ -n \"$v\" ]; then v=; continue; fi\n  case $a in -c) v=1 ;; -*) ;; *) echo \"$a\" >>%q; break ;; esac\ndone\nexec %q \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		b, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}
}

// TestSmallChangeGitProcesses: a small pull request is judged with the two
// git diffs alone (the sizes, the .gitattributes and the files swarm/sast
// reads come through go-git: starting git costs more); a big one lists
// and reads through git.
func TestSmallChangeGitProcesses(t *testing.T) {
	for _, tc := range []struct {
		files int
		want  string
	}{
		{3, "diff diff"},
		{40, "cat-file cat-file diff diff ls-tree"},
	} {
		t.Run(fmt.Sprint(tc.files), func(t *testing.T) {
			r := newRepo(t)
			r.commit("", map[string]string{"README.md": "x\n", ".swarm/plan.json": miniPlan})
			changed := map[string]string{}
			for i := range tc.files {
				changed[fmt.Sprintf("a/d%d/f.go", i)] = "package a\n"
			}
			r.commit("swarm/phase-1", changed)
			commands := gitLog(t)
			if _, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-1", Phase: 1}); err != nil {
				t.Fatal(err)
			}
			got := commands()
			sort.Strings(got) // the order depends on the goroutines
			if strings.Join(got, " ") != tc.want {
				t.Errorf("%d files: git ran %q, want %q", tc.files, got, tc.want)
			}
		})
	}
}
