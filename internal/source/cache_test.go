package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	"github.com/go-git/go-git/v5/plumbing"
)

// TestChangeSetSizesAroundBatch checks the git engine's file sizes (asked
// of one git cat-file, which also finds the files over the size limit) for
// a few files and for many. Both give the go-git engine's change set.
func TestChangeSetSizesAroundBatch(t *testing.T) {
	needGit(t)
	for _, n := range []int{1, 64, 65, 192} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := newTestRepo(t)
			baseFiles := tree{"keep.txt": {content: "keep\n"}, "dir/old.txt": {content: "old\n"}}
			base := r.commit(baseFiles, "base")
			headFiles := tree{"keep.txt": {content: "keep\n"}}
			for i := range n {
				// Sizes differ per file, so that a size given to the wrong
				// file shows.
				headFiles[fmt.Sprintf("dir/sub%d/f%03d.txt", i%3, i)] = file{content: fmt.Sprintf("file %d\n%s\n", i, strings.Repeat("x", i%7))}
			}
			head := r.commit(headFiles, "head")
			var got [2][]any
			for k, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
				g := r.open()
				g.Engine = engine
				cs, err := g.ChangeSet(context.Background(), base, head)
				if err != nil {
					t.Fatalf("%s: %v", engine, err)
				}
				if len(cs.Files) != n+1 { // n added, dir/old.txt deleted
					t.Fatalf("%s: %d files, want %d", engine, len(cs.Files), n+1)
				}
				checked := checkSizes(t, cs.Files, headFiles)
				for _, f := range checked {
					got[k] = append(got[k], f)
				}
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Errorf("the engines disagree:\n git    %v\n go-git %v", got[0], got[1])
			}
		})
	}
}

// packed builds a repository with a base and a head commit, packs every
// object into one pack (no loose objects left) and returns it with the
// commits and the pack's path.
func packed(t *testing.T) (r *testRepo, base, head plumbing.Hash, pack string) {
	t.Helper()
	needGit(t)
	r = newTestRepo(t)
	base = r.commit(tree{".swarm/plan.json": {content: "{}\n"}, ".swarm/evidence/1.json": {content: "[1]\n"}, "main.go": {content: "package main\n"}}, "base")
	head = r.commit(tree{".swarm/plan.json": {content: "{}\n"}, ".swarm/evidence/1.json": {content: "[1]\n"},
		".swarm/evidence/2.json": {content: "[2, 2]\n"}, "main.go": {content: "package main\n\nfunc main() {}\n"}}, "head")
	runGit(t, r.dir, "repack", "-a", "-d", "-q")
	runGit(t, r.dir, "prune-packed")
	packs, err := filepath.Glob(filepath.Join(r.dir, ".git", "objects", "pack", "*.pack"))
	if err != nil || len(packs) != 1 {
		t.Fatalf("want one pack after git repack, got %v (%v)", packs, err)
	}
	return r, base, head, packs[0]
}

// TestCachedObjectsNeedNoPack checks that an object read once is read
// again from the object cache, without opening the pack (go-git's storage
// opens it before looking in its cache); that an object not read yet still
// comes from the pack (here: fails, the pack gone); and that the cache
// keeps the object types apart.
func TestCachedObjectsNeedNoPack(t *testing.T) {
	r, _, head, pack := packed(t)
	g := r.open()
	read := func() ([]byte, error) {
		fsys, err := g.Snapshot(head)
		if err != nil {
			return nil, err
		}
		if _, err := fs.Stat(fsys, ".swarm/evidence/2.json"); err != nil {
			return nil, err
		}
		return fs.ReadFile(fsys, ".swarm/evidence/2.json")
	}
	first, err := read()
	if err != nil || string(first) != "[2, 2]\n" {
		t.Fatalf("first read: %q, %v", first, err)
	}
	// The head commit is cached now; asked for as a blob, it is not found.
	if _, err := g.repo.Storer.EncodedObject(plumbing.BlobObject, head); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("the head commit read as a blob: %v, want plumbing.ErrObjectNotFound", err)
	}
	if err := os.Rename(pack, pack+".gone"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Rename(pack+".gone", pack) })

	cases := []struct {
		name    string
		read    func() (string, error)
		want    string
		wantErr bool
	}{
		{"the same file again, through a new snapshot", func() (string, error) {
			b, err := read()
			return string(b), err
		}, "[2, 2]\n", false},
		{"a file never read", func() (string, error) {
			fsys, err := g.Snapshot(head)
			if err != nil {
				return "", err
			}
			b, err := fs.ReadFile(fsys, "main.go")
			return string(b), err
		}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.read()
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// BenchmarkSnapshotReadFiles reads every file of a packed commit's .swarm
// folder (a plan, a ledger and 40 evidence files) through one snapshot,
// stating each first, as swarm.Load does.
func BenchmarkSnapshotReadFiles(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the git CLI is not on PATH")
	}
	dir := b.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	paths := []string{".swarm/plan.json", ".swarm/plan-ledger.jsonl", ".swarm/spec.md"}
	for i := range 40 {
		paths = append(paths, fmt.Sprintf(".swarm/evidence/%d.json", i))
	}
	for i, p := range paths {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprintf("{\"n\": %d}\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "swarm")
	git("repack", "-a", "-d", "-q")
	g, err := OpenGit(dir)
	if err != nil {
		b.Fatal(err)
	}
	head, err := g.ResolveCommit("HEAD")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		fsys, err := g.Snapshot(head)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range paths {
			if _, err := fs.Stat(fsys, p); err != nil {
				b.Fatal(err)
			}
			if _, err := fs.ReadFile(fsys, p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestBufferedIdx checks that pack index files are opened buffered, other
// files as they are, and that a buffered file reads and seeks as the file
// itself does.
func TestBufferedIdx(t *testing.T) {
	mem := memfs.New()
	content := []byte("0123456789abcdef")
	for _, name := range []string{"objects/pack/pack-1.idx", "objects/pack/pack-1.pack"} {
		if err := util.WriteFile(mem, name, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := bufferedIdx{mem}
	if f, err := fsys.Open("objects/pack/pack-1.pack"); err != nil {
		t.Fatal(err)
	} else if _, buffered := f.(*bufferedFile); buffered {
		t.Errorf("the pack file is opened buffered: only indexes should be")
	}
	cases := []struct {
		name string
		ops  func(f billy.File) (string, int64, error)
		want string
		pos  int64
	}{
		{"read all", func(f billy.File) (string, int64, error) {
			b, err := io.ReadAll(f)
			return string(b), int64(len(b)), err
		}, "0123456789abcdef", 16},
		{"read 3, where am I", func(f billy.File) (string, int64, error) {
			b := make([]byte, 3)
			if _, err := io.ReadFull(f, b); err != nil {
				return "", 0, err
			}
			pos, err := f.Seek(0, io.SeekCurrent)
			return string(b), pos, err
		}, "012", 3},
		{"read 3, skip 2, read 2", func(f billy.File) (string, int64, error) {
			b := make([]byte, 3)
			if _, err := io.ReadFull(f, b); err != nil {
				return "", 0, err
			}
			pos, err := f.Seek(2, io.SeekCurrent)
			if err != nil {
				return "", 0, err
			}
			c := make([]byte, 2)
			_, err = io.ReadFull(f, c)
			return string(b) + string(c), pos, err
		}, "01256", 5},
		{"seek from the start", func(f billy.File) (string, int64, error) {
			b := make([]byte, 1)
			if _, err := io.ReadFull(f, b); err != nil {
				return "", 0, err
			}
			pos, err := f.Seek(10, io.SeekStart)
			if err != nil {
				return "", 0, err
			}
			_, err = io.ReadFull(f, b)
			return string(b), pos, err
		}, "a", 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := fsys.Open("objects/pack/pack-1.idx")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, buffered := f.(*bufferedFile); !buffered {
				t.Fatalf("the index is opened as %T, want buffered", f)
			}
			got, pos, err := tc.ops(f)
			if err != nil || got != tc.want || pos != tc.pos {
				t.Errorf("got %q at %d (%v), want %q at %d", got, pos, err, tc.want, tc.pos)
			}
		})
	}
}
