package fdtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/fdtest"
)

// TestUnder: a file opened under the folder counts, through a symbolic
// link to the folder too, until it is closed; one outside does not.
func TestUnder(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if n := fdtest.Under(t, dir); n != 0 {
		t.Fatalf("%d open under a new folder, want 0", n)
	}
	f, err := os.Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.Create(filepath.Join(other, "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	all, under := fdtest.Open(t, dir)
	if len(under) != 1 || all < 2 {
		t.Errorf("Open = %d, %v: want one file under the folder among at least 2", all, under)
	}
	if n := fdtest.Under(t, link); n != 1 {
		t.Errorf("Under(link to the folder) = %d, want 1", n)
	}
	f.Close()
	if n := fdtest.Under(t, dir); n != 0 {
		t.Errorf("after Close: %d, want 0", n)
	}
}
