package gates

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// prescanFiles is a change set with what the per-file scan reports:
// findings in code and in a document, a suppression, a moved line, a
// generated, a test, a binary and a deleted file.
func prescanFiles() (files []changeset.File, head, base map[string]string) {
	head = map[string]string{
		"src/a.go":  "package a\n\n// TODO: moved\nfunc A() {}\n// FIXME: new\n",
		"src/b.py":  "x = 1  # swarm-gate:allow placeholder kept on purpose TODO later\n",
		"README.md": "# T\nTODO: write it\n",
	}
	base = map[string]string{"src/a.go": "package a\n// TODO: moved\n"}
	files = []changeset.File{
		modifiedAt("src/a.go", head["src/a.go"], 3, 5),
		added("README.md", "# T", "TODO: write it"),
		added("src/b.py", "x = 1  # swarm-gate:allow placeholder kept on purpose TODO later"),
		added("dist/app.min.js", "// TODO: generated"),
		added("src/a_test.go", "// TODO: a test"),
		{Status: changeset.Added, NewPath: "img.png", Binary: true, Size: 10},
		{Status: changeset.Deleted, OldPath: "old.go", Size: -1},
	}
	return files, head, base
}

// TestPrescanSameResult: swarm/placeholders gives the same result whether
// its files were scanned ahead (Input.Prescan) or in Evaluate, and uses
// the scan ahead for every file it got unchanged.
func TestPrescanSameResult(t *testing.T) {
	files, head, base := prescanFiles()
	in := func() *Input {
		return &Input{Head: empty(), Changes: &changeset.ChangeSet{Files: files}, HeadFile: headFS(t, head),
			BaseFile: func(p string) ([]byte, bool) { c, ok := base[p]; return []byte(c), ok }}
	}
	want := eval(Placeholders{}, in())
	if len(want.Findings) == 0 || len(want.Suppressions) == 0 {
		t.Fatalf("the fixture has no findings or suppressions: %+v", want)
	}
	// As the source streams them: the Prescan gets each file, and the
	// change set keeps it without its added lines (Released).
	pre := in()
	released := slices.Clone(files)
	p := StartPrescan(context.Background(), pre)
	for i := range files {
		p.File(&files[i])
		released[i].Released, released[i].Added = len(files[i].Added), nil
	}
	p.Wait()
	pre.Prescan = p
	pre.Changes = &changeset.ChangeSet{Files: released}
	for i := range released {
		if f := &released[i]; f.NewPath != "" && p.placeholders(f) == nil {
			t.Errorf("no scan ahead of %s", f.NewPath)
		}
	}
	if got := eval(Placeholders{}, pre); !reflect.DeepEqual(got, want) {
		t.Errorf("with Prescan:\n%+v\nwithout:\n%+v", got, want)
	}
}

// TestPrescanReleasedWithoutScan: a file whose added lines were released
// (changeset.File.Released) with no scan ahead of it as it is now makes the
// gate fail closed: nothing is left to scan, and it must not pass unread.
func TestPrescanReleasedWithoutScan(t *testing.T) {
	streamed := added("src/c.go", "package c", "// TODO: later")
	final := streamed
	final.Size = 99 // not the file scanned
	final.Released, final.Added = len(streamed.Added), nil
	in := &Input{Head: empty(), Changes: &changeset.ChangeSet{Files: []changeset.File{final}}}
	p := StartPrescan(context.Background(), in)
	p.File(&streamed)
	p.Wait()
	in.Prescan = p
	if r := eval(Placeholders{}, in); r.Outcome != Error || !strings.Contains(r.Title, "released") {
		t.Errorf("released lines without a scan: %s %q, want an error", r.Outcome, r.Title)
	}
	in.Prescan = nil
	if r := eval(Placeholders{}, in); r.Outcome != Error {
		t.Errorf("released lines and no Prescan: %s %q, want an error", r.Outcome, r.Title)
	}
}

// TestPrescanChangedFile: a file that changed after it was scanned ahead
// (here its added lines; the source completes a copy's lines after the
// diff) is scanned again, not reported from the stale scan.
func TestPrescanChangedFile(t *testing.T) {
	streamed := added("src/c.go", "// TODO: only in the streamed file")
	final := added("src/c.go", "package c")
	in := &Input{Head: empty(), Changes: &changeset.ChangeSet{Files: []changeset.File{final}}}
	p := StartPrescan(context.Background(), in)
	p.File(&streamed)
	p.Wait()
	in.Prescan = p
	if r := eval(Placeholders{}, in); len(r.Findings) != 0 || r.Outcome != Passed {
		t.Errorf("the stale scan was used: %s, %+v", r.Outcome, r.Findings)
	}
	key := changeset.KeyOf(&streamed)
	for name, change := range map[string]func(*changeset.File){
		"size":        func(f *changeset.File) { f.Size = 99 },
		"binary":      func(f *changeset.File) { f.Binary = true },
		"status":      func(f *changeset.File) { f.Status = changeset.Copied },
		"lines again": func(f *changeset.File) {}, // Added kept: set again after the stream
		"fewer lines": func(f *changeset.File) { f.Added, f.Released = nil, len(f.Added)-1 },
	} {
		f := streamed
		change(&f)
		if key.Same(&f) {
			t.Errorf("a file changed (%s) counts as the one scanned", name)
		}
	}
	f := streamed
	f.Added, f.Released = nil, len(streamed.Added)
	if !key.Same(&f) {
		t.Error("the file scanned, its lines released, is not the same")
	}
}

// TestPlaceholderStatsAdd: add sums every field of placeholderStats (a
// new field must be added there too).
func TestPlaceholderStatsAdd(t *testing.T) {
	if n := reflect.TypeOf(placeholderStats{}).NumField(); n != 24 {
		t.Errorf("placeholderStats has %d fields; placeholderStats.add knows 24: add the new ones there and here", n)
	}
}
