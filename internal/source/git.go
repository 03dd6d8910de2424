// Package source builds swarm-gate's inputs (a Snapshot per side and the
// ChangeSet) from a git repository; an API-backed source for the GitHub App
// comes later.
package source

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Git is a local git repository opened with go-git. Its methods only read
// git objects and refs; the working directory is never read or written.
// A Git may be used by one goroutine at a time.
type Git struct {
	// Engine chooses how ChangeSet diffs two commits; "" means DiffEngineAuto.
	Engine DiffEngine
	// Logger receives the Info record written when the "auto" engine falls
	// back from the git CLI to go-git; nil means slog.Default().
	Logger *slog.Logger

	dir    string // as given to OpenGit
	gitDir string // the repository's git directory ("" when not on disk)
	repo   *git.Repository
}

// OpenGit opens the git repository that contains dir (dir itself or one of
// its parents, like git does). It returns an error saying "DIR is not a git
// repository" when there is none.
func OpenGit(dir string) (*Git, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s is not a git repository (nor is any of its parents)", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening git repository at %s: %w", dir, err)
	}
	g := &Git{dir: dir, repo: repo}
	if fs, ok := repo.Storer.(*filesystem.Storage); ok {
		// Absolute: the git CLI runs in another directory.
		if g.gitDir, err = filepath.Abs(fs.Filesystem().Root()); err != nil {
			return nil, fmt.Errorf("opening git repository at %s: %w", dir, err)
		}
		// Reopen the same object store streaming big objects: go-git's
		// default reads every object whole into memory (and caches it)
		// before anything can look at it, so a 200 MB blob would cost 200
		// MB even when swarm-gate only asks for its size.
		objects := cache.NewObjectLRUDefault()
		st := &cachedStorage{
			Storage: filesystem.NewStorageWithOptions(bufferedIdx{fs.Filesystem()}, objects, filesystem.Options{LargeObjectThreshold: largeObject}),
			cache:   objects,
		}
		if w, werr := repo.Worktree(); werr == nil {
			g.repo, err = git.Open(st, w.Filesystem)
		} else {
			g.repo, err = git.Open(st, nil) // bare
		}
		if err != nil {
			return nil, fmt.Errorf("opening git repository at %s: %w", dir, err)
		}
	}
	return g, nil
}

// cachedStorage is go-git's filesystem storage answering object reads
// from its object cache first. The storage itself opens the pack file (and
// closes it again) before it looks in the cache, on every read: a snapshot
// reading the same trees again for each file it opens, or a merge base
// walk, would open the pack hundreds of times per evaluation. Objects are
// immutable and the cache is keyed by their hash, so what a read returns
// does not change. Big objects (over largeObject) are streamed, never
// cached, and read from the storage each time as before.
type cachedStorage struct {
	*filesystem.Storage
	cache cache.Object
}

// EncodedObject returns the cached object when it has type t (or t is
// AnyObject), else what the storage returns.
func (s *cachedStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.cache.Get(h); ok && (t == plumbing.AnyObject || o.Type() == t) {
		return o, nil
	}
	return s.Storage.EncodedObject(t, h)
}

// EncodedObjectSize returns the cached object's size, else the size from
// the storage's object header.
func (s *cachedStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if o, ok := s.cache.Get(h); ok {
		return o.Size(), nil
	}
	return s.Storage.EncodedObjectSize(h)
}

// bufferedIdx is a git directory's filesystem whose pack index files
// (objects/pack/*.idx) are read through a buffer: go-git decodes an index
// with one read call per field (its 256-entry fan-out table alone is 256
// read system calls), and every repository opened decodes it again.
type bufferedIdx struct{ billy.Filesystem }

// Open opens name, buffered when it is a pack index.
func (f bufferedIdx) Open(name string) (billy.File, error) {
	file, err := f.Filesystem.Open(name)
	if err != nil || !strings.HasSuffix(name, ".idx") {
		return file, err
	}
	b := bufferedFile{File: file, r: bufio.NewReaderSize(file, 64<<10)}
	if _, ok := file.(statter); ok {
		// go-git checks the index's size when the file can say it.
		return &bufferedStatFile{b}, nil
	}
	return &b, nil
}

// Capabilities are the wrapped filesystem's.
func (f bufferedIdx) Capabilities() billy.Capability { return billy.Capabilities(f.Filesystem) }

type statter interface {
	Stat() (iofs.FileInfo, error)
}

// bufferedFile reads a billy.File through r; Seek drops what r buffered.
type bufferedFile struct {
	billy.File
	r *bufio.Reader
}

func (b *bufferedFile) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *bufferedFile) Seek(offset int64, whence int) (int64, error) {
	if whence == io.SeekCurrent {
		offset -= int64(b.r.Buffered())
	}
	n, err := b.File.Seek(offset, whence)
	b.r.Reset(b.File)
	return n, err
}

// bufferedStatFile is a bufferedFile whose file can say its size.
type bufferedStatFile struct{ bufferedFile }

func (b *bufferedStatFile) Stat() (iofs.FileInfo, error) { return b.File.(statter).Stat() }

// largeObject is the object size, in bytes, above which git objects are
// streamed from disk instead of being read whole into memory (and kept in
// go-git's object cache).
const largeObject = 1 << 20

// ResolveCommit returns the commit a revision names: a full or abbreviated
// SHA, a branch, a tag (annotated tags are peeled to their commit), a
// remote-tracking branch such as origin/main, HEAD, or a suffixed revision
// such as HEAD~1 or main^2. An unknown revision gives an error that names it
// and says how to fetch it, since CI clones are often shallow or
// single-branch.
func (g *Git) ResolveCommit(ref string) (plumbing.Hash, error) {
	if strings.TrimSpace(ref) == "" {
		return plumbing.ZeroHash, fmt.Errorf("resolving commit: empty revision")
	}
	h, err := g.repo.ResolveRevision(plumbing.Revision(ref))
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) || errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("resolving %q: no such commit, branch or tag in %s; %s", ref, g.dir, g.fetchHint(ref))
		}
		if errors.Is(err, io.EOF) {
			return plumbing.ZeroHash, fmt.Errorf("resolving %q: the history in %s ends before that commit (at a root commit, or where a shallow clone was cut: `git fetch --unshallow`)", ref, g.dir)
		}
		return plumbing.ZeroHash, fmt.Errorf("resolving %q in %s: %w", ref, g.dir, err)
	}
	if _, err := g.repo.CommitObject(*h); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolving %q: %s is not a commit: %w", ref, short(*h), err)
	}
	return *h, nil
}

// hexRef is a commit SHA, full or abbreviated.
var hexRef = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

// fetchHint says how to get a ref that is not in the clone. CI checkouts
// are often single-branch and shallow.
func (g *Git) fetchHint(ref string) string {
	if remotes, err := g.repo.Remotes(); err == nil {
		for _, r := range remotes {
			name := r.Config().Name
			if branch, ok := strings.CutPrefix(ref, name+"/"); ok && branch != "" {
				return fmt.Sprintf("CI clones often lack it: run `git fetch %s %s:refs/remotes/%s/%s`, or check out with full history (actions/checkout with fetch-depth: 0)", name, branch, name, branch)
			}
		}
	}
	if strings.Contains(ref, "/") {
		return "CI clones often lack it: fetch it (`git fetch <remote> <branch>`), or check out with full history (actions/checkout with fetch-depth: 0)"
	}
	if hexRef.MatchString(ref) {
		if len(ref) < 40 {
			return "CI clones often lack it: fetch the commit by its full SHA (`git fetch origin <full SHA>`; servers do not serve abbreviated ones), or check out with full history (actions/checkout with fetch-depth: 0)"
		}
		return fmt.Sprintf("CI clones often lack it: run `git fetch origin %s` (the server must still have the commit), or check out with full history (actions/checkout with fetch-depth: 0)", ref)
	}
	return fmt.Sprintf("CI clones often lack it: run `git fetch origin %s` and pass origin/%s for a branch or the commit SHA, or check out with full history (actions/checkout with fetch-depth: 0)", ref, ref)
}

// MergeBase returns the best common ancestor of base and head, the commit a
// pull request's changes are measured from. When there are several (a
// criss-cross merge history), it returns the one with the latest committer
// time, ties broken by the smallest hash, so the choice is deterministic.
//
// When base or head is missing, or no merge base is found, in a shallow clone
// the error says the clone is shallow and how to fetch the history
// (actions/checkout with fetch-depth: 0, or `git fetch --unshallow`). In a
// full clone, histories without a common commit give a "no common ancestor"
// error.
func (g *Git) MergeBase(base, head plumbing.Hash) (plumbing.Hash, error) {
	what := fmt.Sprintf("finding the merge base of %s and %s", short(base), short(head))
	baseCommit, err := g.repo.CommitObject(base)
	if err != nil {
		return plumbing.ZeroHash, g.historyError(what, fmt.Errorf("reading commit %s: %w", short(base), err))
	}
	headCommit, err := g.repo.CommitObject(head)
	if err != nil {
		return plumbing.ZeroHash, g.historyError(what, fmt.Errorf("reading commit %s: %w", short(head), err))
	}
	bases, err := baseCommit.MergeBase(headCommit)
	if err != nil {
		return plumbing.ZeroHash, g.historyError(what, err)
	}
	if len(bases) == 0 {
		return plumbing.ZeroHash, g.historyError(what, nil)
	}
	sort.Slice(bases, func(i, j int) bool {
		ti, tj := bases[i].Committer.When, bases[j].Committer.When
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return bases[i].Hash.String() < bases[j].Hash.String()
	})
	return bases[0].Hash, nil
}

// historyError explains a failed history walk; err is nil when the walk
// ended without finding a common commit.
func (g *Git) historyError(what string, err error) error {
	shallow, serr := g.repo.Storer.Shallow()
	if serr == nil && len(shallow) > 0 {
		msg := fmt.Sprintf("%s: the clone at %s is shallow and lacks the history down to the merge base; fetch the full history: actions/checkout with `fetch-depth: 0`, or `git fetch --unshallow`", what, g.dir)
		if err != nil {
			return fmt.Errorf("%s: %w", msg, err)
		}
		return errors.New(msg)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: they have no common ancestor (unrelated histories); compare a head with the branch it was made from", what)
}

// short abbreviates a hash for messages.
func short(h plumbing.Hash) string {
	return h.String()[:7]
}

// commitTree reads the tree of a commit.
func (g *Git) commitTree(h plumbing.Hash) (*object.Commit, *object.Tree, error) {
	c, err := g.repo.CommitObject(h)
	if err != nil {
		return nil, nil, fmt.Errorf("reading commit %s: %w", short(h), err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("reading tree of %s: %w", short(h), err)
	}
	return c, t, nil
}

// Root is the absolute path of the repository's working tree, "" for a
// bare repository or when it cannot be told.
func (g *Git) Root() string {
	wt, err := g.repo.Worktree()
	if err != nil {
		return ""
	}
	root, err := filepath.Abs(wt.Filesystem.Root())
	if err != nil {
		return ""
	}
	return root
}
