package source

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// DiffEngine chooses what computes a ChangeSet.
type DiffEngine string

// The diff engines.
const (
	// DiffEngineAuto uses the git CLI when it is on PATH and falls back to
	// go-git when it is not, or when running it fails (for example "dubious
	// ownership" in a container), logging the fallback at Info.
	DiffEngineAuto DiffEngine = "auto"
	// DiffEngineGit runs `git diff` and parses its output; an error if git
	// is not on PATH or fails.
	DiffEngineGit DiffEngine = "git"
	// DiffEngineGoGit diffs the trees with go-git, in process.
	DiffEngineGoGit DiffEngine = "go-git"
)

// ChangeSet returns every file changed from commit from to commit to, with
// added lines numbered in to's version, sorted by path. Pass the merge base
// as from and the pull request's head as to (see MergeBase).
//
// The git engine runs `git diff -M -C --full-index -U1` with every option a
// user's config or the environment could change pinned, against an empty
// work tree and index, so that a .gitattributes in the checked-out head
// cannot mark the pull request's own files binary and hide their lines.
//
// Renames and copies are detected as `git diff -M -C` does: a copy's source
// must be a file changed or deleted in the same diff. The go-git engine
// finds renames with go-git's detector (similarity 50%), plus exact renames
// whose mode also changed, drops renames that git would score under 50%, and
// reports git's similarity index; it finds exact copies only. Both engines
// give the same ChangeSet for ordinary changes; they can differ where git's
// and go-git's line diff or inexact rename choices differ, and git honours
// .git/info/attributes (binary) while go-git does not.
//
// Memory is bounded by MaxFileBytes (default MaxDiffSize, 16 MiB): a changed
// file whose head blob is bigger and differs from the merge base's is not
// read at all. Its Size is the blob's size and TooLarge is set; it has no
// Added lines and is never a rename or copy (a big file moved counts as
// deleted and added). The git engine lists such files first, with one
// `git diff --raw` and one `git cat-file --batch-check`, and keeps their
// paths out of the content diff with `:(exclude,literal)` pathspecs (git's
// rename and copy detection would otherwise read them); the go-git engine
// checks each blob's size before reading it. A merge-base blob over the limit
// counts as binary, its content unread (git's core.bigFileThreshold, lowered
// from its default of 512 MiB).
//
// A copied file's lines all count as added (see expandCopies), whichever
// engine found the copy.
//
// Each file's Size is its head blob's size, read from the object header
// (the git engine looks the blob up in the head tree; nothing is read
// twice): -1 for deleted files and submodules.
//
// More than MaxChangedFiles paths in the tree diff is a *TooManyFilesError
// (wrapped): both engines count the paths before reading any blob and stop
// there, so that memory is bounded by the limit, not by the pull request.
//
// Errors name the commits and the engine; ctx cancels the work.
func (g *Git) ChangeSet(ctx context.Context, from, to plumbing.Hash) (*changeset.ChangeSet, error) {
	what := fmt.Sprintf("diffing %s..%s", short(from), short(to))
	_, fromTree, err := g.commitTree(from)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	_, toTree, err := g.commitTree(to)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}

	cs, err := g.diff(ctx, what, from, to, fromTree, toTree)
	if err != nil {
		return nil, err
	}
	if err := checkUniquePaths(cs); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := expandCopies(cs, toTree, g.repo.Storer, g.maxFileBytes()); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return cs, nil
}

// TooManyFilesError is ChangeSet's error when the tree diff lists more than
// Git.MaxChangedFiles paths: Seen is how many it had counted when it
// stopped (Limit+1: there may be more), Limit is MaxChangedFiles.
type TooManyFilesError struct {
	Seen, Limit int
}

func (e *TooManyFilesError) Error() string {
	return fmt.Sprintf("the diff changes at least %d paths, over the limit of %d; stopped before reading any file", e.Seen, e.Limit)
}

// countPaths returns a *TooManyFilesError once n, the paths counted so
// far, is over limit (0: no limit).
func countPaths(n, limit int) error {
	if limit > 0 && n > limit {
		return &TooManyFilesError{Seen: n, Limit: limit}
	}
	return nil
}

// checkUniquePaths refuses a change set that lists one head path twice: a
// head tree naming a path twice has no one content for it (git diff shows
// both blobs, a lookup by path finds the first).
func checkUniquePaths(cs *changeset.ChangeSet) error {
	seen := make(map[string]bool, len(cs.Files))
	for i := range cs.Files {
		p := cs.Files[i].NewPath
		if p == "" {
			continue
		}
		if seen[p] {
			return duplicateEntry(p)
		}
		seen[p] = true
	}
	return nil
}

// duplicateEntry is the error for a head tree that names p twice.
func duplicateEntry(p string) error {
	return fmt.Errorf("the head commit's tree names %q twice (git fsck reports duplicateEntries; git add never writes such a tree), so the path has no one content to check; rewrite the commit without the duplicate", p)
}

// expandCopies makes every line of a copied file an added line: a copy
// brings its whole content into a new file (a TODO in the source is a new
// TODO in the copy), while git's diff lists only the lines that differ
// from the source. Binary copies are left as they are.
func expandCopies(cs *changeset.ChangeSet, toTree *object.Tree, objects storer.EncodedObjectStorer, limit int64) error {
	for i := range cs.Files {
		f := &cs.Files[i]
		if f.Status != changeset.Copied || f.Binary {
			continue
		}
		e, err := entryAt(objects, toTree, f.NewPath)
		if err != nil {
			return fmt.Errorf("reading the copy %s: %w", f.NewPath, err)
		}
		blob, err := object.GetBlob(objects, e.Hash)
		if err != nil {
			return fmt.Errorf("reading the copy %s: %w", f.NewPath, err)
		}
		file := object.NewFile(f.NewPath, e.Mode, blob)
		if file.Size > limit {
			// Both engines keep a big head blob out of copy detection; this
			// is the same bound, should one get here.
			f.TooLarge, f.Added, f.Released = true, nil, 0
			continue
		}
		text, err := file.Contents()
		if err != nil {
			return fmt.Errorf("reading the copy %s: %w", f.NewPath, err)
		}
		if isBinary([]byte(text)) {
			f.Binary, f.Added, f.Released = true, nil, 0
			continue
		}
		f.Added, f.Released = AllLines(text), 0
	}
	return nil
}

// diff runs the chosen engine.
func (g *Git) diff(ctx context.Context, what string, from, to plumbing.Hash, fromTree, toTree *object.Tree) (*changeset.ChangeSet, error) {
	engine := g.Engine
	if engine == "" {
		engine = DiffEngineAuto
	}
	switch engine {
	case DiffEngineGoGit:
		return g.goGitChangeSet(ctx, what, fromTree, toTree)
	case DiffEngineGit:
		gitPath, err := exec.LookPath("git")
		if err != nil {
			return nil, fmt.Errorf("%s with the git CLI: %w; install git or use the go-git engine", what, err)
		}
		if g.gitDir == "" {
			return nil, fmt.Errorf("%s with the git CLI: the repository is not on disk; use the go-git engine", what)
		}
		return g.gitCLIChangeSet(ctx, what, gitPath, from, to, fromTree, toTree)
	case DiffEngineAuto:
		gitPath, err := exec.LookPath("git")
		if err != nil || g.gitDir == "" {
			return g.goGitChangeSet(ctx, what, fromTree, toTree)
		}
		cs, err := g.gitCLIChangeSet(ctx, what, gitPath, from, to, fromTree, toTree)
		var cliErr *gitCLIError
		if errors.As(err, &cliErr) && ctx.Err() == nil {
			g.logger().LogAttrs(ctx, slog.LevelInfo, "git CLI failed; diffing with go-git instead",
				slog.String("from", from.String()), slog.String("to", to.String()), slog.String("error", err.Error()))
			return g.goGitChangeSet(ctx, what, fromTree, toTree)
		}
		return cs, err
	default:
		return nil, fmt.Errorf("%s: unknown diff engine %q (want %q, %q or %q)", what, engine, DiffEngineAuto, DiffEngineGit, DiffEngineGoGit)
	}
}

func (g *Git) logger() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return slog.Default()
}

// fillModes sets the modes the diff text did not report (git prints no mode
// for a pure rename or copy) from the trees.
func fillModes(cs *changeset.ChangeSet, fromTree, toTree *object.Tree, objects storer.EncodedObjectStorer) error {
	for i := range cs.Files {
		f := &cs.Files[i]
		if f.OldPath != "" && f.OldMode == 0 {
			m, err := entryMode(objects, fromTree, f.OldPath)
			if err != nil {
				return err
			}
			f.OldMode = m
		}
		if f.NewPath != "" && f.NewMode == 0 {
			m, err := entryMode(objects, toTree, f.NewPath)
			if err != nil {
				return err
			}
			f.NewMode = m
		}
	}
	return nil
}

// fillSizes sets each file's Size (changeset.Parse leaves -1) from the head
// tree's entry and the blob's object header, without reading contents.
// Files without a head blob (deleted, submodules) keep -1.
func fillSizes(cs *changeset.ChangeSet, toTree *object.Tree, objects storer.EncodedObjectStorer) error {
	return fillSizesFrom(cs, nil, toTree, objects)
}

// fillSizesFrom is fillSizes that first takes sizes already known by blob
// name (from one git cat-file --batch-check); only the files not in known
// are looked up in the tree, with each directory's tree decoded once.
func fillSizesFrom(cs *changeset.ChangeSet, known map[string]int64, toTree *object.Tree, objects storer.EncodedObjectStorer) error {
	trees := &treeCache{objects: objects, root: toTree, dirs: map[string]*object.Tree{}}
	for i := range cs.Files {
		f := &cs.Files[i]
		f.Size = -1
		if f.NewPath == "" {
			continue
		}
		if n, ok := known[f.NewBlob]; ok && f.NewBlob != "" {
			f.Size = n
			continue
		}
		e, err := trees.entry(f.NewPath)
		if err != nil {
			return fmt.Errorf("looking up %q in tree %s: %w", f.NewPath, short(toTree.Hash), err)
		}
		if !e.Mode.IsFile() {
			continue
		}
		if f.Size, err = blobSize(objects, e.Hash); err != nil {
			return fmt.Errorf("reading the size of %q (blob %s): %w", f.NewPath, short(e.Hash), err)
		}
	}
	return nil
}

// treeCache finds entries of a tree by path, decoding each directory's tree
// at most once (object.Tree.FindEntry decodes every directory on the path
// again for each lookup).
type treeCache struct {
	objects storer.EncodedObjectStorer
	root    *object.Tree
	dirs    map[string]*object.Tree
}

func (c *treeCache) entry(p string) (*object.TreeEntry, error) {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	t, err := c.dir(dir)
	if err != nil {
		return nil, err
	}
	if e, ok := entryByName(t, name); ok {
		return e, nil
	}
	return nil, object.ErrEntryNotFound
}

func (c *treeCache) dir(d string) (*object.Tree, error) {
	if d == "" {
		return c.root, nil
	}
	if t, ok := c.dirs[d]; ok {
		return t, nil
	}
	parent, name := path.Split(d)
	pt, err := c.dir(strings.TrimSuffix(parent, "/"))
	if err != nil {
		return nil, err
	}
	e, ok := entryByName(pt, name)
	if !ok || e.Mode != filemode.Dir {
		return nil, object.ErrDirectoryNotFound
	}
	t, err := object.GetTree(c.objects, e.Hash)
	if err != nil {
		return nil, err
	}
	c.dirs[d] = t
	return t, nil
}

func entryMode(objects storer.EncodedObjectStorer, t *object.Tree, path string) (uint32, error) {
	e, err := entryAt(objects, t, path)
	if err != nil {
		return 0, fmt.Errorf("looking up %q in tree %s: %w", path, short(t.Hash), err)
	}
	return uint32(e.Mode), nil
}

// modeKind groups git modes the way git decides a "type change": regular
// files (with or without the executable bit) are one kind.
func modeKind(m filemode.FileMode) filemode.FileMode {
	switch m {
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
		return filemode.Regular
	default:
		return m
	}
}
