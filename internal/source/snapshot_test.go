package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// TestSnapshotFS runs the standard fs.FS conformance checks on a commit
// without symlinks or submodules, and compares every file with the commit.
func TestSnapshotFS(t *testing.T) {
	files := tree{
		"README.md":          {content: "# readme\n"},
		"a.b":                {content: "sorts before the directory a in git, after it by name\n"},
		"a/x.txt":            {content: "x\n"},
		"dir/sub/c.go":       {content: "package sub\n"},
		"dir/empty.txt":      {content: ""},
		"docs/café.md":       {content: "unicode\n"},
		"notes/a b.txt":      {content: "space\n"},
		"scripts/run.sh":     {content: "#!/bin/sh\n", exec: true},
		".swarm/plan.json":   {content: `{"phase":1}` + "\n"},
		"win/crlf.txt":       {content: "a\r\nb\r\n"},
		"bin/blob.dat":       {content: "\x00\x01\x02"},
		"deep/er/still/f.md": {content: strings.Repeat("long line\n", 1000)},
	}
	r := newTestRepo(t)
	h := r.commit(files, "files")
	fsys, err := r.open().Snapshot(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, sortedPaths(files)...); err != nil {
		t.Fatal(err)
	}
	for _, p := range sortedPaths(files) {
		got, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Fatalf("ReadFile(%q): %v", p, err)
		}
		if string(got) != files[p].content {
			t.Errorf("ReadFile(%q) = %q, want %q", p, got, files[p].content)
		}
		info, err := fs.Stat(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		wantMode := fs.FileMode(0o644)
		if files[p].exec {
			wantMode = 0o755
		}
		if info.Mode() != wantMode || info.Size() != int64(len(files[p].content)) {
			t.Errorf("Stat(%q) = mode %v size %d, want %v %d", p, info.Mode(), info.Size(), wantMode, len(files[p].content))
		}
		if _, ok := info.Sys().(object.TreeEntry); !ok {
			t.Errorf("Stat(%q).Sys() = %T, want object.TreeEntry", p, info.Sys())
		}
	}
}

// TestSnapshotReadsCommitNotWorktree checks that the snapshot shows the
// commit even when the working directory has other content.
func TestSnapshotReadsCommitNotWorktree(t *testing.T) {
	r := newTestRepo(t)
	h := r.commit(tree{"a.txt": {content: "committed\n"}}, "one")
	if err := os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("edited in the worktree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "untracked.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := r.open().Snapshot(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile(fsys, "a.txt")
	if err != nil || string(got) != "committed\n" {
		t.Errorf("ReadFile(a.txt) = %q, %v; want the committed content", got, err)
	}
	if _, err := fs.Stat(fsys, "untracked.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(untracked.txt) err = %v, want fs.ErrNotExist", err)
	}
}

// noBlobReads fails any read of a blob's content, to show Stat does not
// read one.
type noBlobReads struct {
	storer.EncodedObjectStorer
	sized interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}
}

func (s noBlobReads) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if t == plumbing.BlobObject || t == plumbing.AnyObject {
		obj, err := s.EncodedObjectStorer.EncodedObject(plumbing.AnyObject, h)
		if err == nil && obj.Type() == plumbing.BlobObject {
			return nil, errors.New("test: blob content read")
		}
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

func (s noBlobReads) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	return s.sized.EncodedObjectSize(h)
}

func TestSnapshotStatReadsNoBlob(t *testing.T) {
	r := newTestRepo(t)
	content := strings.Repeat("0123456789", 5000)
	h := r.commit(tree{"big/file.txt": {content: content}}, "one")
	fsys, err := r.open().Snapshot(h)
	if err != nil {
		t.Fatal(err)
	}
	s := fsys.(*snapshot)
	sized, ok := s.objects.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	})
	if !ok {
		t.Fatal("go-git's filesystem storage has no EncodedObjectSize")
	}
	s.objects = noBlobReads{EncodedObjectStorer: s.objects, sized: sized}

	info, err := s.Stat("big/file.txt")
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if info.Size() != int64(len(content)) {
		t.Errorf("Size = %d, want %d", info.Size(), len(content))
	}
	entries, err := s.ReadDir("big")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := entries[0].Info(); err != nil || info.Size() != int64(len(content)) {
		t.Errorf("ReadDir entry Info = %v, %v; want size %d", info, err, len(content))
	}
	if _, err := s.ReadFile("big/file.txt"); err == nil || !strings.Contains(err.Error(), "test: blob content read") {
		t.Errorf("ReadFile with blob reads refused: err = %v; the test storer does not intercept reads", err)
	}
}

// TestSnapshotSymlinksAndSubmodules checks that symlinks are never followed
// and submodules never entered.
func TestSnapshotSymlinksAndSubmodules(t *testing.T) {
	r := newTestRepo(t)
	h := r.commit(tree{
		"target.txt":       {content: "secret?\n"},
		"dir/x.txt":        {content: "x\n"},
		"link":             {link: "target.txt"},
		"dirlink":          {link: "dir"},
		"escape":           {link: "../../etc/passwd"},
		"vendor/lib":       {gitlink: strings.Repeat("1", 40)},
		"vendor/README.md": {content: "vendored\n"},
	}, "links")
	fsys, err := r.open().Snapshot(h)
	if err != nil {
		t.Fatal(err)
	}

	type call struct {
		name string
		do   func() error
	}
	open := func(name string) func() error {
		return func() error { f, err := fsys.Open(name); closeIf(f); return err }
	}
	readFile := func(name string) func() error {
		return func() error { _, err := fs.ReadFile(fsys, name); return err }
	}
	stat := func(name string) func() error {
		return func() error { _, err := fs.Stat(fsys, name); return err }
	}
	readDir := func(name string) func() error {
		return func() error { _, err := fs.ReadDir(fsys, name); return err }
	}
	tests := []struct {
		call
		want    error
		wantMsg string
	}{
		{call{"Open link", open("link")}, ErrSymlink, "open link: is a symlink, and swarm-gate does not follow symlinks"},
		{call{"ReadFile link", readFile("link")}, ErrSymlink, "link: is a symlink"},
		{call{"Stat link", stat("link")}, ErrSymlink, "is a symlink"},
		{call{"Open escape", open("escape")}, ErrSymlink, "does not follow symlinks"},
		{call{"Open through a symlink", open("dirlink/x.txt")}, ErrSymlink, "open dirlink/x.txt: dirlink is a symlink"},
		{call{"ReadDir of a symlink to a directory", readDir("dirlink")}, ErrSymlink, "dirlink: is a symlink"},
		{call{"Open submodule", open("vendor/lib")}, ErrSubmodule, "vendor/lib: is a git submodule"},
		{call{"ReadFile inside a submodule", readFile("vendor/lib/go.mod")}, ErrSubmodule, "vendor/lib is a git submodule"},
		{call{"Stat submodule", stat("vendor/lib")}, ErrSubmodule, "submodule"},
		{call{"missing file", open("nope.txt")}, fs.ErrNotExist, "open nope.txt"},
		{call{"missing in a directory", readFile("dir/nope.txt")}, fs.ErrNotExist, "dir/nope.txt"},
		{call{"file used as a directory", stat("target.txt/x")}, fs.ErrNotExist, "target.txt/x"},
		{call{"absolute path", open("/etc/passwd")}, fs.ErrInvalid, "/etc/passwd"},
		{call{"dot-dot path", open("dir/../target.txt")}, fs.ErrInvalid, "dir/../target.txt"},
		{call{"trailing slash", open("dir/")}, fs.ErrInvalid, "dir/"},
		{call{"empty name", open("")}, fs.ErrInvalid, "open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want errors.Is(err, %v)", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}

	t.Run("ReadDir lists symlinks and submodules without following them", func(t *testing.T) {
		got := map[string]fs.FileMode{}
		for _, dir := range []string{".", "vendor"} {
			entries, err := fs.ReadDir(fsys, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				got[filepath.ToSlash(filepath.Join(dir, e.Name()))] = e.Type()
			}
		}
		want := map[string]fs.FileMode{
			"target.txt": 0, "dir": fs.ModeDir, "link": fs.ModeSymlink, "dirlink": fs.ModeSymlink, "escape": fs.ModeSymlink,
			"vendor": fs.ModeDir, "vendor/lib": fs.ModeIrregular, "vendor/README.md": 0,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("entry types = %v, want %v", got, want)
		}
	})

	t.Run("WalkDir does not descend into symlinks or submodules", func(t *testing.T) {
		var walked []string
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			walked = append(walked, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{".", "dir", "dir/x.txt", "dirlink", "escape", "link", "target.txt", "vendor", "vendor/README.md", "vendor/lib"}
		if !reflect.DeepEqual(walked, want) {
			t.Errorf("walked %q, want %q", walked, want)
		}
	})

	t.Run("Lstat and ReadLink describe a symlink without following it", func(t *testing.T) {
		rl := fsys.(fs.ReadLinkFS)
		info, err := rl.Lstat("escape")
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Type() != fs.ModeSymlink || info.Size() != int64(len("../../etc/passwd")) {
			t.Errorf("Lstat(escape) = mode %v size %d", info.Mode(), info.Size())
		}
		target, err := rl.ReadLink("escape")
		if err != nil || target != "../../etc/passwd" {
			t.Errorf("ReadLink(escape) = %q, %v", target, err)
		}
		if _, err := rl.ReadLink("target.txt"); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("ReadLink of a regular file: err = %v, want fs.ErrInvalid", err)
		}
		if _, err := rl.Lstat("dirlink/x.txt"); !errors.Is(err, ErrSymlink) {
			t.Errorf("Lstat through a symlink: err = %v, want ErrSymlink", err)
		}
	})
}

// TestSnapshotOpenFiles checks the fs.File and fs.ReadDirFile contracts
// that fstest does not: reading a directory, closing twice, paging ReadDir.
func TestSnapshotOpenFiles(t *testing.T) {
	r := newTestRepo(t)
	h := r.commit(tree{"d/a": {content: "a"}, "d/b": {content: "b"}, "d/c": {content: "c"}}, "one")
	fsys, err := r.open().Snapshot(h)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(make([]byte, 1)); err == nil {
		t.Error("Read of a directory succeeded")
	}
	dir := f.(fs.ReadDirFile)
	var names []string
	for {
		entries, err := dir.ReadDir(2)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Errorf("paged ReadDir = %q, want a,b,c", names)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close: err = %v, want fs.ErrClosed", err)
	}
	if _, err := fs.ReadFile(fsys, "d"); err == nil {
		t.Error("ReadFile of a directory succeeded")
	}

	if _, err := r.open().Snapshot(plumbing.NewHash(strings.Repeat("34", 20))); err == nil || !strings.Contains(err.Error(), "3434343") {
		t.Errorf("Snapshot of a missing commit: err = %v, want one naming it", err)
	}
}

func closeIf(f fs.File) {
	if f != nil {
		f.Close()
	}
}

// TestSnapshotNonUTF8Name: Git names are bytes; a changed file whose name
// is not UTF-8 is read like any other (fs.ValidPath would refuse it, and a
// gate would skip the file), while "..", "." and empty elements stay
// invalid.
func TestSnapshotNonUTF8Name(t *testing.T) {
	const name = "src/caf\xe9.ts"
	r := newTestRepo(t)
	h := r.commit(tree{name: {content: "eval(x)\n"}}, "latin-1 name")
	fsys, err := r.open().Snapshot(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile(fsys, name)
	if err != nil || string(got) != "eval(x)\n" {
		t.Fatalf("ReadFile(%q) = %q, %v", name, got, err)
	}
	if info, err := fs.Stat(fsys, name); err != nil || info.Size() != 8 {
		t.Fatalf("Stat(%q) = %v, %v", name, info, err)
	}
	for _, bad := range []string{"src/../src/caf\xe9.ts", "src//caf\xe9.ts", "./src", "/src", "src/", ""} {
		if _, err := fsys.Open(bad); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want fs.ErrInvalid", bad, err)
		}
	}
}

// TestSnapshotsShareTrees: snapshots of one Git share the trees they
// decode (the base tip and the merge base mostly hold the same
// directories), and reading two of them from two goroutines at once is
// safe (go test -race).
func TestSnapshotsShareTrees(t *testing.T) {
	r := newTestRepo(t)
	files := tree{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("d%d/sub/f%d.txt", i%7, i)] = file{content: fmt.Sprintf("%d\n", i)}
	}
	c1 := r.commit(files, "one")
	files["d0/sub/new.txt"] = file{content: "new\n"}
	c2 := r.commit(files, "two")
	g, err := OpenGit(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := g.Snapshot(c1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := g.Handle().Snapshot(c2)
	if err != nil {
		t.Fatal(err)
	}
	if s1.(*snapshot).trees != s2.(*snapshot).trees {
		t.Fatal("a handle's snapshot has a tree memo of its own")
	}
	var wg sync.WaitGroup
	for _, s := range []fs.FS{s1, s2} { // each by one goroutine, as Snapshot asks
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range files {
				if _, err := fs.Stat(s, p); err != nil && p != "d0/sub/new.txt" {
					t.Errorf("%s: %v", p, err)
				}
			}
		}()
	}
	wg.Wait()
	if _, err := fs.Stat(s1, "d0/sub/new.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the first commit's snapshot sees the second's file: %v", err)
	}
	if data, err := fs.ReadFile(s2, "d0/sub/new.txt"); err != nil || string(data) != "new\n" {
		t.Errorf("the second commit's file: %q, %v", data, err)
	}
}
