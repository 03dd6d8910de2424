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

// TestShare: while a Git is shared, OpenGit at its directory (relative or
// absolute) gives a handle on it, whose Close leaves it open; a
// subdirectory, or any directory after stop or Close, is opened afresh.
func TestShare(t *testing.T) {
	r, base, head, _ := packed(t)
	owner, err := OpenGitWith(r.dir, OpenOptions{KeepFilesOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	stop := owner.Share()

	h, err := OpenGit(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if h.repo != owner.repo || h.st != nil {
		t.Fatalf("OpenGit while shared opened the repository again")
	}
	if err := h.Close(); err != nil {
		t.Errorf("closing a handle: %v", err)
	}
	// The owner still reads, through its open pack, after the handle's Close.
	readHead(t, owner, head)
	if _, err := owner.MergeBase(base, head); err != nil {
		t.Errorf("the owner after a handle's Close: %v", err)
	}
	t.Chdir(r.dir)
	if rel, err := OpenGit("."); err != nil || rel.repo != owner.repo {
		t.Errorf("OpenGit(\".\") in the shared directory did not give a handle (%v)", err)
	}
	if err := os.MkdirAll(filepath.Join(r.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if sub, err := OpenGit(filepath.Join(r.dir, "sub")); err != nil || sub.repo == owner.repo {
		t.Errorf("a subdirectory gave a handle on the shared Git (%v)", err)
	}

	stop()
	stop() // idempotent
	if g, err := OpenGit(r.dir); err != nil || g.repo == owner.repo {
		t.Errorf("after stop, OpenGit still gave a handle on the shared Git (%v)", err)
	}

	owner.Share()
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	if g, err := OpenGit(r.dir); err != nil || g.repo == owner.repo {
		t.Errorf("after Close, OpenGit still gave a handle on the closed Git (%v)", err)
	}
}
