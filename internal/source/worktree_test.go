package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/demo"
)

func TestUncommittedChanges(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	if err := demo.Checkout(dir, demo.HeadBranch); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"git CLI", "go-git"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "go-git" {
				t.Setenv("PATH", "") // no git: the go-git fallback
			}
			n, err := UncommittedChanges(context.Background(), dir)
			if err != nil || n != 0 {
				t.Fatalf("clean work tree: %d, %v", n, err)
			}
		})
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"git CLI", "go-git"} {
		t.Run(engine+", dirty", func(t *testing.T) {
			if engine == "go-git" {
				t.Setenv("PATH", "")
			}
			if n, err := UncommittedChanges(context.Background(), dir); err != nil || n != 2 {
				t.Fatalf("a modified and an untracked file: %d, %v; want 2", n, err)
			}
		})
	}
}

func TestCountPorcelainZ(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want int
	}{
		{"nothing", "", 0},
		{"modified and untracked", " M a.go\x00?? b.txt\x00", 2},
		{"a rename carries its old path as one more field", "R  new.go\x00old.go\x00 M c.go\x00", 2},
		{"a path with spaces", "?? my file.txt\x00", 1},
	}
	for _, c := range cases {
		if got := countPorcelainZ([]byte(c.out)); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
