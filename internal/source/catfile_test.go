package source

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestPrefetch: files come back in the order asked, as the snapshot reads
// them; a path the commit lacks, a directory, a symlink and a blob over
// the size limit are said to be what they are, without content; Close
// before the end stops git.
func TestPrefetch(t *testing.T) {
	r := newTestRepo(t)
	big := strings.Repeat("x", 300)
	c1 := r.commit(tree{"a.go": {content: "package a\n"}, "dir/b.txt": {content: "b\r\nline\x00two"}, "big.txt": {content: big},
		"link": {link: "a.go"}, "sp ace/colon:name.go": {content: "spaces\n"}}, "one")
	c2 := r.commit(tree{"a.go": {content: "package a // two\n"}, "dir/b.txt": {content: "b\n"}}, "two")
	g, err := OpenGit(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.CanPrefetch() {
		t.Skip("git is not on PATH")
	}
	refs := []FileRef{{c2, "a.go"}, {c1, "a.go"}, {c1, "dir/b.txt"}, {c1, "nope.go"}, {c1, "dir"}, {c1, "big.txt"},
		{c1, "link"}, {c1, "sp ace/colon:name.go"}, {c2, "dir/b.txt"}}
	p, err := g.Prefetch(context.Background(), refs, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := []struct {
		typ  string
		size int64
		data string
	}{
		{"blob", 17, "package a // two\n"}, {"blob", 10, "package a\n"}, {"blob", 11, "b\r\nline\x00two"}, {"missing", -1, ""},
		{"tree", -2, ""}, {"blob", 300, ""}, {"blob", 4, "a.go"}, {"blob", 7, "spaces\n"}, {"blob", 2, "b\n"},
	}
	for i, w := range want {
		f, ok, err := p.Next()
		if !ok || err != nil {
			t.Fatalf("file %d: ok %v, error %v", i, ok, err)
		}
		if f.Ref != refs[i] || f.Type != w.typ || (w.size != -2 && f.Size != w.size) || string(f.Data) != w.data {
			t.Errorf("file %d (%s): got %s %d %q, want %s %d %q", i, refs[i].Path, f.Type, f.Size, f.Data, w.typ, w.size, w.data)
		}
		if w.typ == "blob" && w.data != "" {
			snap, err := g.Snapshot(refs[i].Commit)
			if err != nil {
				t.Fatal(err)
			}
			if refs[i].Path != "link" {
				data, err := fs.ReadFile(snap, refs[i].Path)
				if err != nil || !bytes.Equal(data, f.Data) {
					t.Errorf("%s: the snapshot reads %q (%v), git cat-file %q", refs[i].Path, data, err, f.Data)
				}
			}
		}
	}
	if _, ok, err := p.Next(); ok || err != nil {
		t.Errorf("after the last file: ok %v, error %v", ok, err)
	}

	// Many files, closed after a few: Close returns (git is stopped).
	var many []FileRef
	for i := 0; i < 10*PrefetchWindow; i++ {
		many = append(many, FileRef{c1, "big.txt"})
	}
	p2, err := g.Prefetch(context.Background(), many, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok, err := p2.Next(); !ok || err != nil || len(f.Data) != 300 {
		t.Fatalf("first of many: %d bytes, ok %v, error %v", len(f.Data), ok, err)
	}
	if err := p2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p2.Next(); ok {
		t.Error("Next after Close returned a file")
	}

	for _, bad := range []string{"a\nb", "./a.go", "../a.go", ""} {
		if PrefetchSafe(bad) {
			t.Errorf("PrefetchSafe(%q) = true", bad)
		}
		if _, err := g.Prefetch(context.Background(), []FileRef{{c1, bad}}, 10); err == nil {
			t.Errorf("Prefetch of %q: no error", bad)
		}
	}
}

// TestFilesNamed: every path whose last element is the name, at the root
// and below, a symlink of that name too; not a file that only ends so.
func TestFilesNamed(t *testing.T) {
	r := newTestRepo(t)
	c := r.commit(tree{".gitattributes": {content: "*.gen.go linguist-generated\n"}, "web/.gitattributes": {content: "x\n"},
		"web/x.gitattributes": {content: "no\n"}, "a/b/c/.gitattributes": {link: "../../../.gitattributes"}, "main.go": {content: "package main\n"}}, "one")
	g, err := OpenGit(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.CanPrefetch() {
		t.Skip("git is not on PATH")
	}
	got, err := g.FilesNamed(context.Background(), c, ".gitattributes")
	if err != nil {
		t.Fatal(err)
	}
	if want := ".gitattributes,a/b/c/.gitattributes,web/.gitattributes"; strings.Join(got, ",") != want {
		t.Errorf("FilesNamed = %q, want %s", got, want)
	}
	if _, err := g.FilesNamed(context.Background(), plumbing.NewHash("1234567890123456789012345678901234567890"), ".gitattributes"); err == nil {
		t.Error("a commit the repository lacks: no error")
	}
}
