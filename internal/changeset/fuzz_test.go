package changeset

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse, seeded with the testdata diffs.
// Parse must never panic, a change set it returns must be well formed, and
// on input go-diff's reader (parseGoDiff, the parser before ours) also
// accepts, both must give the same change set.
func FuzzParse(f *testing.F) {
	diffs, err := filepath.Glob(filepath.Join("testdata", "*.diff"))
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range diffs {
		in, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		cs, err := Parse(bytes.NewReader(in))
		if err != nil {
			if cs != nil {
				t.Fatalf("Parse returned a change set with its error %v", err)
			}
			return
		}
		checkWellFormed(t, cs)
		if old, err := parseGoDiff(bytes.NewReader(in)); err == nil && !reflect.DeepEqual(old, cs) {
			t.Fatalf("Parse and go-diff differ:\n ours %+v\ngo-diff %+v", cs, old)
		}
	})
}

// checkWellFormed checks the invariants every parsed ChangeSet has.
func checkWellFormed(t *testing.T, cs *ChangeSet) {
	t.Helper()
	if cs.Files == nil {
		t.Fatal("Files is nil")
	}
	for i, f := range cs.Files {
		if i > 0 && cs.Files[i-1].Path() > f.Path() {
			t.Fatalf("files not sorted: %q before %q", cs.Files[i-1].Path(), f.Path())
		}
		if f.Path() == "" {
			t.Fatalf("file %d has no path: %+v", i, f)
		}
		switch f.Status {
		case Added:
			if f.OldPath != "" || f.OldMode != 0 {
				t.Fatalf("added file with an old side: %+v", f)
			}
		case Deleted:
			if f.NewPath != "" || f.NewMode != 0 || len(f.Added) > 0 {
				t.Fatalf("deleted file with a new side: %+v", f)
			}
		case Modified, Renamed, Copied:
			if f.OldPath == "" || f.NewPath == "" {
				t.Fatalf("%s file without both paths: %+v", f.Status, f)
			}
		default:
			t.Fatalf("unknown status %q", f.Status)
		}
		if f.Binary && len(f.Added) > 0 {
			t.Fatalf("binary file with added lines: %+v", f)
		}
		if f.Similarity < 0 || f.Similarity > 100 {
			t.Fatalf("similarity out of range: %+v", f)
		}
		for j, l := range f.Added {
			if l.Line < 1 || (j > 0 && l.Line <= f.Added[j-1].Line) {
				t.Fatalf("added lines not ascending from 1: %+v", f.Added)
			}
		}
	}
}
