package source

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// go-git's path lookups (object.Tree.FindEntry, Tree.Tree, Tree.File) refuse
// names git would not check out: a control character such as a newline,
// ".", "..", ".git". swarm-gate never writes a tree to disk, and a file it
// cannot look up would be hidden from the gates, so it looks names up itself.

// entryByName returns the entry of t with exactly that name (one path
// element), or false.
func entryByName(t *object.Tree, name string) (*object.TreeEntry, bool) {
	e, err := t.FindEntry(name) // go-git's index, when it accepts the name
	if err == nil {
		return e, true
	}
	if errors.Is(err, object.ErrEntryNotFound) {
		return nil, false
	}
	for i := range t.Entries {
		if t.Entries[i].Name == name {
			return &t.Entries[i], true
		}
	}
	return nil, false
}

// entryAt resolves a "/"-separated path in root, element by element.
func entryAt(objects storer.EncodedObjectStorer, root *object.Tree, p string) (*object.TreeEntry, error) {
	t := root
	elems := strings.Split(p, "/")
	for i, elem := range elems {
		e, ok := entryByName(t, elem)
		if !ok {
			return nil, object.ErrEntryNotFound
		}
		if i == len(elems)-1 {
			return e, nil
		}
		if e.Mode != filemode.Dir {
			return nil, object.ErrDirectoryNotFound
		}
		var err error
		if t, err = object.GetTree(objects, e.Hash); err != nil {
			return nil, fmt.Errorf("reading tree %s: %w", short(e.Hash), err)
		}
	}
	return nil, object.ErrEntryNotFound
}

// checkDiffTrees reads every tree that differs between from and to (the
// trees a diff descends into) before go-git's diff does, because that diff
// skips a folder whose tree object is corrupt without an error (its files
// would vanish from the change set) and fails with a bare "directory not
// found" on a folder whose name it refuses. The error names the folder.
func checkDiffTrees(objects storer.EncodedObjectStorer, from, to *object.Tree) error {
	var walk func(dir string, a, b *object.Tree) error
	walk = func(dir string, a, b *object.Tree) error {
		old := map[string]object.TreeEntry{}
		if a != nil {
			for _, e := range a.Entries {
				old[e.Name] = e
			}
		}
		seen := map[string]bool{}
		visit := func(parent *object.Tree, e object.TreeEntry, other *object.TreeEntry) error {
			if e.Mode != filemode.Dir || (other != nil && other.Hash == e.Hash) {
				return nil
			}
			p := dir + e.Name
			t, err := object.GetTree(objects, e.Hash)
			if err != nil {
				return fmt.Errorf("the folder %q is not a readable tree object (%v): git fsck reports it; rewrite the commit without it", p, err)
			}
			if _, err := parent.Tree(e.Name); err != nil {
				return fmt.Errorf("go-git cannot open the folder %q: git refuses such a name (a control character such as a newline, \".\", \"..\" or \".git\") and so does go-git's diff; rename it, or install git, whose engine can diff it", p)
			}
			var ot *object.Tree
			if other != nil && other.Mode == filemode.Dir {
				if ot, err = object.GetTree(objects, other.Hash); err != nil {
					return fmt.Errorf("the folder %q is not a readable tree object (%v): git fsck reports it; rewrite the commit without it", p, err)
				}
			}
			if parent == b {
				return walk(p+"/", ot, t)
			}
			return walk(p+"/", t, ot)
		}
		if b != nil {
			for _, e := range b.Entries {
				if seen[e.Name] {
					return duplicateEntry(dir + e.Name)
				}
				seen[e.Name] = true
				var other *object.TreeEntry
				if o, ok := old[e.Name]; ok {
					other = &o
				}
				if err := visit(b, e, other); err != nil {
					return err
				}
			}
		}
		if a != nil {
			for _, e := range a.Entries {
				if !seen[e.Name] {
					if err := visit(a, e, nil); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return walk("", from, to)
}
