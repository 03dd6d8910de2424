package commands

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// LocalCommit writes into the git repository at dir (a checkout that holds
// c.Parent) the commit GitHub made for a durable record, so that the
// Action can evaluate the new head without fetching it: a push made with a
// workflow's GITHUB_TOKEN starts no workflow run, so the Action must check
// the new head itself.
//
// It writes the two blobs, the trees on the way to them, and a commit with
// GitHub's parent, author, committer and message. It checks that the tree
// it built is the tree GitHub reports, byte for byte (same id), so what is
// evaluated is exactly what is on the branch. It returns the local
// commit's SHA: GitHub's own when GitHub did not sign the commit, another
// one with the same tree when it did (a signature cannot be reproduced).
// It moves no ref and touches no working tree file.
func LocalCommit(dir string, c *Committed) (string, error) {
	if c == nil || c.Commit == nil {
		return "", fmt.Errorf("writing the record's commit into the checkout: no commit")
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", fmt.Errorf("opening the checkout at %s: %w", dir, err)
	}
	st := repo.Storer
	parent, err := object.GetCommit(st, plumbing.NewHash(c.Parent))
	if err != nil {
		return "", fmt.Errorf("the checkout does not hold the branch's head %s: %w", shortSHA(c.Parent), err)
	}
	root := parent.TreeHash
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		blob, err := writeObject(st, plumbing.BlobObject, c.Files[p])
		if err != nil {
			return "", err
		}
		if root, err = setPath(st, root, strings.Split(p, "/"), blob); err != nil {
			return "", fmt.Errorf("writing %s into the checkout: %w", p, err)
		}
	}
	if root.String() != c.Commit.TreeSHA {
		return "", fmt.Errorf("the tree built in the checkout (%s) is not GitHub's tree of commit %s (%s): the files GitHub holds differ from the record", shortSHA(root.String()), shortSHA(c.Commit.SHA), shortSHA(c.Commit.TreeSHA))
	}
	commit := &object.Commit{
		Author:       object.Signature{Name: c.Commit.Author.Name, Email: c.Commit.Author.Email, When: c.Commit.Author.Date.UTC()},
		Committer:    object.Signature{Name: c.Commit.Committer.Name, Email: c.Commit.Committer.Email, When: c.Commit.Committer.Date.UTC()},
		Message:      c.Commit.Message,
		TreeHash:     root,
		ParentHashes: []plumbing.Hash{parent.Hash},
	}
	o := st.NewEncodedObject()
	if err := commit.Encode(o); err != nil {
		return "", err
	}
	h, err := st.SetEncodedObject(o)
	if err != nil {
		return "", fmt.Errorf("writing the commit into the checkout: %w", err)
	}
	return h.String(), nil
}

func writeObject(st storer.EncodedObjectStorer, t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	o := st.NewEncodedObject()
	o.SetType(t)
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(o)
}

// setPath writes the tree that is tree with the file at parts set to blob
// (mode 100644, as the record's tree entries), creating directories on the
// way, and returns its id.
func setPath(st storer.EncodedObjectStorer, tree plumbing.Hash, parts []string, blob plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !tree.IsZero() {
		t, err := object.GetTree(st, tree)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	name := parts[0]
	i := -1
	for j, e := range entries {
		if e.Name == name {
			i = j
		}
	}
	var entry object.TreeEntry
	if len(parts) == 1 {
		entry = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob}
	} else {
		sub := plumbing.ZeroHash
		if i >= 0 {
			if entries[i].Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%s is not a directory", path.Join(parts...))
			}
			sub = entries[i].Hash
		}
		h, err := setPath(st, sub, parts[1:], blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entry = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	if i >= 0 {
		entries[i] = entry
	} else {
		entries = append(entries, entry)
	}
	sort.Sort(object.TreeEntrySorter(entries))
	o := st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(o)
}
