package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/internal/fdtest"
)

// readHead reads every file of head's snapshot.
func readHead(t *testing.T, g *Git, head plumbing.Hash) {
	t.Helper()
	fsys, err := g.Snapshot(head)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".swarm/plan.json", ".swarm/evidence/1.json", ".swarm/evidence/2.json", "main.go"} {
		if _, err := fs.ReadFile(fsys, name); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKeepFilesOpen: a Git opened with KeepFilesOpen holds its pack open
// between reads (one descriptor, however many objects are read) and Close
// releases it; a Git opened without holds nothing between calls. A read
// after Close is an error, not a pack opened again.
func TestKeepFilesOpen(t *testing.T) {
	r, _, head, _ := packed(t)
	gitDir := filepath.Join(r.dir, ".git")

	plain := r.open()
	readHead(t, plain, head)
	if n := fdtest.Under(t, gitDir); n != 0 {
		t.Errorf("without KeepFilesOpen, %d files are open in .git after the reads, want 0", n)
	}
	if err := plain.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	g, err := OpenGitWith(r.dir, OpenOptions{KeepFilesOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	readHead(t, g, head)
	if n := fdtest.Under(t, gitDir); n != 1 {
		t.Errorf("with KeepFilesOpen, %d files are open in .git after the reads, want 1 (the pack)", n)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := fdtest.Under(t, gitDir); n != 0 {
		t.Errorf("%d files are still open in .git after Close, want 0", n)
	}
	if err := g.Close(); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	if _, err := g.repo.Storer.EncodedObject(plumbing.AnyObject, head); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("reading after Close: %v, want fs.ErrClosed", err)
	}
	if n := fdtest.Under(t, gitDir); n != 0 {
		t.Errorf("a read after Close left %d files open in .git", n)
	}
}

// TestObjectSizesCached: a blob's size asked for once is answered again
// without the pack (here: gone), also through a new snapshot; a size
// never asked for still comes from the pack (and fails).
func TestObjectSizesCached(t *testing.T) {
	r, _, head, pack := packed(t)
	g := r.open()
	defer g.Close()
	fsys, err := g.Snapshot(head)
	if err != nil {
		t.Fatal(err)
	}
	info, err := fs.Stat(fsys, ".swarm/evidence/2.json")
	if err != nil || info.Size() != int64(len("[2, 2]\n")) {
		t.Fatalf("stat: %v, %v", info, err)
	}
	if err := os.Rename(pack, pack+".gone"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Rename(pack+".gone", pack) })
	again, err := g.Snapshot(head)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := fs.Stat(again, ".swarm/evidence/2.json"); err != nil || info.Size() != int64(len("[2, 2]\n")) {
		t.Errorf("the same size again: %v, %v; want %d from the cache", info, err, len("[2, 2]\n"))
	}
	if _, err := fs.Stat(again, "main.go"); err == nil {
		t.Errorf("the size of main.go, never asked for, was found without the pack")
	}
}

// TestHandle: a Handle reads through its Git's open pack, has its own
// Engine, and its Close leaves the Git open; once the Git is closed, the
// Handle's reads fail too.
func TestHandle(t *testing.T) {
	r, base, head, _ := packed(t)
	owner, err := OpenGitWith(r.dir, OpenOptions{KeepFilesOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	h := owner.Handle()
	h.Engine = DiffEngineGoGit
	if h.repo != owner.repo || h.st != nil || owner.Engine == DiffEngineGoGit {
		t.Fatalf("Handle opened the repository again or shares its Engine")
	}
	if _, err := h.MergeBase(base, head); err != nil {
		t.Errorf("a handle: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("closing a handle: %v", err)
	}
	// The owner still reads, through its open pack, after the handle's Close.
	readHead(t, owner, head)
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ResolveCommit(head.String()); err == nil {
		t.Errorf("a handle read after its Git was closed")
	}
}
