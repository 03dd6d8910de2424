package changeset

import "testing"

// TestRelease: a file's added lines go to Released, except a symlink's
// one line, its target, which the gates read from the change set.
func TestRelease(t *testing.T) {
	f := File{NewPath: "a.go", NewMode: 0o100644, Added: []AddedLine{{Line: 1, Text: "package a"}, {Line: 2, Text: ""}}}
	f.Release()
	if f.Added != nil || f.Released != 2 || f.AddedCount() != 2 {
		t.Errorf("regular file: Added %v, Released %d", f.Added, f.Released)
	}
	l := File{NewPath: "b.go", NewMode: 0o120000, Added: []AddedLine{{Line: 1, Text: "a.go"}}}
	l.Release()
	if len(l.Added) != 1 || l.Added[0].Text != "a.go" || l.Released != 0 {
		t.Errorf("symlink: Added %v, Released %d", l.Added, l.Released)
	}
}
