// Package changeset describes what a pull request changes, file by file and
// added line by added line, and parses git's unified diff text into that form.
package changeset

import "sort"

// Status is how a file changed between the merge base and the head commit,
// in git's own terms (the letters of `git diff --name-status`).
type Status string

// The statuses a File can have.
const (
	Added    Status = "added"    // A: the file exists only at head
	Modified Status = "modified" // M: content and/or mode changed, same path
	Deleted  Status = "deleted"  // D: the file exists only at the merge base
	Renamed  Status = "renamed"  // R: OldPath moved to NewPath (content may also change)
	Copied   Status = "copied"   // C: NewPath was created as a copy of OldPath, which still exists
)

// AddedLine is one line the change adds, as the head file has it.
type AddedLine struct {
	// Line is the 1-based line number in the head version of the file.
	Line int `json:"line"`
	// Text is the line without its terminator: a trailing "\n" or "\r\n" is
	// removed, everything else (including a lone "\r" inside the line and
	// invalid UTF-8) is kept byte for byte.
	Text string `json:"text"`
}

// File is one changed path. Paths are repository-relative, '/'-separated,
// unquoted and decoded (no "a/" or "b/" prefix, no C-style escapes); a path
// that does not exist on one side is "".
type File struct {
	Status  Status `json:"status"`
	OldPath string `json:"old_path,omitempty"` // "" when Status is Added
	NewPath string `json:"new_path,omitempty"` // "" when Status is Deleted
	// OldMode and NewMode are git file modes (0o100644, 0o100755, 0o120000
	// symlink, 0o160000 submodule, ...); 0 when that side does not exist or
	// the source did not report it.
	OldMode uint32 `json:"old_mode,omitempty"`
	NewMode uint32 `json:"new_mode,omitempty"`
	// Binary is true when git treats either side as binary; a binary file
	// has no Added lines.
	Binary bool `json:"binary,omitempty"`
	// Similarity is git's similarity index (0..100) for renames and copies.
	Similarity int `json:"similarity,omitempty"`
	// Size is the size in bytes of the head side's blob (for a symlink, of
	// its target text), read from the object header; -1 when the file has
	// no head blob (deleted, a submodule) or the source does not know it (a
	// parsed diff does not say; Parse sets -1). A File built by hand should
	// set -1 unless it knows the size.
	Size int64 `json:"size,omitempty"`
	// NewBlob is the head side's object name from the diff's "index" line
	// (full with git diff --full-index, else abbreviated); "" when the diff
	// does not give one (a pure rename, a deletion). Not part of the JSON
	// form.
	NewBlob string `json:"-"`
	// TooLarge is true when the head blob (Size bytes) is over the
	// reader's size limit (source.Git.MaxFileBytes): its content was not
	// read, so it has no Added lines and Binary says nothing about it. The
	// gates that read added lines report it as not scanned.
	TooLarge bool `json:"too_large,omitempty"`
	// Added holds the added lines in ascending Line order. For a copy built
	// by internal/source, every line of the new file is added; for a rename,
	// only the lines that differ from the old file are.
	Added []AddedLine `json:"added,omitempty"`
	// Released counts the added lines the source handed to the streaming
	// readers of a diff (source.Git.OnFile) and then dropped: Added is
	// nil then, and those readers' results (by Key) are all that is left
	// of them, so that a pull request's added text is never held whole
	// (issue 25). 0 when Added holds every added line. Not part of the
	// JSON form.
	Released int `json:"-"`
}

// Release drops f's added lines, counting them in Released, once the
// streaming readers have them. A symlink keeps its one line: that is its
// target, what the file is, which the gates read from the change set
// (gates/symlink.go).
func (f *File) Release() {
	if f.NewMode&0o170000 == 0o120000 {
		return
	}
	f.Released, f.Added = f.Released+len(f.Added), nil
}

// AddedCount is the number of lines the change adds to the file, released
// ones included.
func (f *File) AddedCount() int { return len(f.Added) + f.Released }

// Key is what a streaming reader of a File remembers of it, to tell later
// whether the ChangeSet's final File is the one it read: what a scan of
// the added lines depends on, and how many there were. See Same.
type Key struct {
	Status           Status
	OldPath, NewPath string
	Binary, TooLarge bool
	Size             int64
	Lines            int
}

// KeyOf is f's Key.
func KeyOf(f *File) Key {
	return Key{Status: f.Status, OldPath: f.OldPath, NewPath: f.NewPath, Binary: f.Binary, TooLarge: f.TooLarge, Size: f.Size, Lines: f.AddedCount()}
}

// Same reports whether f is the file k was taken of, as far as a scan of
// its added lines goes: the same fields, and its added lines, if any, the
// released ones. A File whose lines were set again after the stream (the
// source completes a copy's lines) holds them in Added and is not the
// same.
func (k Key) Same(f *File) bool {
	return len(f.Added) == 0 && k == KeyOf(f)
}

// Path is the path the file has at head, or its old path when deleted.
func (f *File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// ModeChanged reports whether both sides exist and their modes differ.
func (f *File) ModeChanged() bool {
	return f.OldMode != 0 && f.NewMode != 0 && f.OldMode != f.NewMode
}

// ChangeSet is every file changed from the merge base to the head commit,
// sorted by Path.
type ChangeSet struct {
	Files []File `json:"files"`
}

// AddedLineCount is the number of added lines over all files.
func (c *ChangeSet) AddedLineCount() int {
	n := 0
	for i := range c.Files {
		n += c.Files[i].AddedCount()
	}
	return n
}

// Sort orders Files by Path. Files with the same path (git lists a file whose
// type changed, such as a regular file replaced by a symlink, as a deletion
// and an addition) keep their relative order.
func (c *ChangeSet) Sort() {
	sort.SliceStable(c.Files, func(i, j int) bool {
		return c.Files[i].Path() < c.Files[j].Path()
	})
}
