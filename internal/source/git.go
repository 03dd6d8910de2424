// Package source reads swarm-gate's inputs from a local git repository:
// it resolves refs, finds the merge base, gives each side's tree as an
// fs.FS and computes the ChangeSet (with the git CLI or go-git). The App
// fetches the commits into a local repository first, so both front doors
// read through it.
package source

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
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
	// MaxFileBytes is the largest head blob, in bytes, whose content
	// ChangeSet reads; 0 means MaxDiffSize. A changed file over it is
	// marked changeset.File.TooLarge (see ChangeSet).
	MaxFileBytes int64
	// MaxChangedFiles is the most paths ChangeSet lets the tree diff list
	// (before rename detection, so a rename counts its two paths); past
	// it ChangeSet stops and returns a *TooManyFilesError, having read no
	// blob. 0 means no limit.
	MaxChangedFiles int
	// OnFile, when not nil, receives each changed file as the git CLI
	// engine's diff produces it, so work on a file can start while git
	// writes the next one. It is called from the goroutine running
	// ChangeSet, in diff order, before the ChangeSet is complete: the
	// File is the diff's (Size from the blob sizes already known, else
	// -1; modes as the diff gives them; a copy's lines not yet read), and
	// the ChangeSet's own File may still be completed afterwards, so a
	// receiver compares before it reuses work. Files over MaxFileBytes,
	// and the go-git engine's files, are not passed. FilesDone (when not
	// nil) is called once the diff has been read, before ChangeSet reads
	// the repository again: OnFile's work may read the repository until
	// FilesDone returns, never after.
	OnFile    func(*changeset.File)
	FilesDone func()
	// ReleaseAdded, with OnFile, drops each passed file's added lines
	// from the ChangeSet as soon as OnFile returns (the ChangeSet's File
	// keeps their count in Released): OnFile's receivers, which hold the
	// passed File until they are done with it, are then their only
	// readers, and memory holds the added text of the files they have
	// not finished rather than of the whole pull request. A file whose
	// lines are set again afterwards (a copy's) holds those in Added.
	ReleaseAdded bool

	dir    string // as given to OpenGit
	gitDir string // the repository's git directory ("" when not on disk)
	repo   *git.Repository
	// st is the storage this Git owns and Close closes; nil for a handle
	// (Handle) and for a repository not on disk.
	st *cachedStorage
	// trees are the decoded trees every snapshot of this Git (and of its
	// handles) shares: the head, the merge base and the base tip mostly
	// hold the same directories.
	trees *treeMemo
	// childNice is OpenOptions.ChildNice.
	childNice int
}

// OpenOptions change how OpenGitWith opens a repository.
type OpenOptions struct {
	// KeepFilesOpen keeps each pack file open from the first object read
	// from it until Close, instead of opening the pack again (through
	// go-billy, which lstats every element of its path) for every object
	// read. The caller must then Close the Git, also after an error from
	// its methods; a Git not closed holds one file descriptor per pack
	// until it is garbage collected.
	KeepFilesOpen bool
	// ChildNice is added to the caller's nice value for the git processes
	// the Git starts (git diff, cat-file, ls-tree), at most 19; 0 runs
	// them at the caller's priority. A server sets it so that the kernel
	// prefers its own threads (the webhook intake) to the git work of
	// its evaluations.
	ChildNice int
}

// OpenGit opens the git repository that contains dir (dir itself or one of
// its parents, like git does). It returns an error saying "DIR is not a git
// repository" when there is none. It is OpenGitWith without options: the
// Git holds no file open between calls, and Close is optional.
func OpenGit(dir string) (*Git, error) {
	return OpenGitWith(dir, OpenOptions{})
}

// OpenGitWith is OpenGit with options. The repository is opened for
// reading: objects written to it after the open (by git or another Git)
// may not be seen, as the lists of loose objects and of packs are read
// once.
func OpenGitWith(dir string, opts OpenOptions) (*Git, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if _, serr := os.Stat(dir); errors.Is(serr, iofs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist", dir)
		}
		return nil, fmt.Errorf("%s is not a git repository (nor is any of its parents)", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening git repository at %s: %w", dir, err)
	}
	g := &Git{dir: dir, repo: repo, trees: newTreeMemo(), childNice: opts.ChildNice}
	if fs, ok := repo.Storer.(*filesystem.Storage); ok {
		// Absolute: the git CLI runs in another directory.
		if g.gitDir, err = filepath.Abs(fs.Filesystem().Root()); err != nil {
			return nil, fmt.Errorf("opening git repository at %s: %w", dir, err)
		}
		// Reopen the same object store streaming big objects: go-git's
		// default reads every object whole into memory (and caches it)
		// before anything can look at it, so a 200 MB blob would cost 200
		// MB even when swarm-gate only asks for its size. ExclusiveAccess
		// lists the loose objects and the packs once, instead of trying
		// to open a loose object file (and stating each element of its
		// path) before every read from a pack.
		objects := cache.NewObjectLRU(objectCacheSize)
		st := &cachedStorage{
			Storage: filesystem.NewStorageWithOptions(bufferedIdx{fs.Filesystem()}, objects, filesystem.Options{
				LargeObjectThreshold: largeObject,
				ExclusiveAccess:      true,
				KeepDescriptors:      opts.KeepFilesOpen,
			}),
			cache: objects,
			sizes: map[plumbing.Hash]int64{},
		}
		if w, werr := repo.Worktree(); werr == nil {
			g.repo, err = git.Open(st, w.Filesystem)
		} else {
			g.repo, err = git.Open(st, nil) // bare
		}
		if err != nil {
			_ = st.Close()
			return nil, fmt.Errorf("opening git repository at %s: %w", dir, err)
		}
		g.st = st
	}
	return g, nil
}

// Close releases the files the Git holds open (its pack files, with
// KeepFilesOpen). The Git, and every Handle on it, must not be used
// afterwards: object reads then fail with an error wrapping fs.ErrClosed.
// Closing a Handle does nothing; closing twice is harmless. The error is
// the first one closing a file gave.
func (g *Git) Close() error {
	if g.st == nil {
		return nil
	}
	st := g.st
	g.st = nil
	if err := st.Close(); err != nil {
		return fmt.Errorf("closing git repository at %s: %w", g.dir, err)
	}
	return nil
}

// Handle returns a Git reading through g's repository (its object cache
// and open pack files) with its own Engine and Logger, for code that sets
// those on the Git it is given (the pipeline). Its Close does nothing; it
// must not be used after g is closed. g and its handles together may be
// used by one goroutine at a time.
func (g *Git) Handle() *Git {
	return &Git{Engine: g.Engine, Logger: g.Logger, MaxFileBytes: g.MaxFileBytes, MaxChangedFiles: g.MaxChangedFiles, dir: g.dir, gitDir: g.gitDir, repo: g.repo, trees: g.trees}
}

// cachedStorage is go-git's filesystem storage answering object reads
// from its object cache first. The storage itself opens the pack file (and
// closes it again) before it looks in the cache, on every read: a snapshot
// reading the same trees again for each file it opens, or a merge base
// walk, would open the pack hundreds of times per evaluation. Objects are
// immutable and the cache is keyed by their hash, so what a read returns
// does not change. Big objects (over largeObject) are streamed, never
// cached, and read from the storage each time as before.
//
// Object sizes asked for are kept too (sizes, at most maxSizes of them):
// a blob's size is asked for by Stat and by the change set without the
// blob being read (and cached), and again for the same blob in the other
// snapshot.
type cachedStorage struct {
	*filesystem.Storage
	cache  cache.Object
	closed atomic.Bool

	sizesMu sync.Mutex
	sizes   map[plumbing.Hash]int64
}

// Close closes the storage's open files; the objects cannot be read
// afterwards (go-git's storage would open the packs again).
func (s *cachedStorage) Close() error {
	s.closed.Store(true)
	return s.Storage.Close()
}

// errClosed is the error for reading object h from a closed storage.
func errClosed(h plumbing.Hash) error {
	return fmt.Errorf("reading object %s: the git repository was closed: %w", short(h), iofs.ErrClosed)
}

// maxSizes bounds the object sizes a cachedStorage keeps (some 50 bytes
// each).
const maxSizes = 1 << 16

// EncodedObject returns the cached object when it has type t (or t is
// AnyObject), else what the storage returns.
func (s *cachedStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if s.closed.Load() {
		return nil, errClosed(h)
	}
	if o, ok := s.cache.Get(h); ok && (t == plumbing.AnyObject || o.Type() == t) {
		return o, nil
	}
	return s.Storage.EncodedObject(t, h)
}

// EncodedObjectSize returns the object's size in bytes: the cached
// object's, or one asked for before, else the size from the storage's
// object header.
func (s *cachedStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if s.closed.Load() {
		return 0, errClosed(h)
	}
	if o, ok := s.cache.Get(h); ok {
		return o.Size(), nil
	}
	s.sizesMu.Lock()
	n, ok := s.sizes[h]
	s.sizesMu.Unlock()
	if ok {
		return n, nil
	}
	n, err := s.Storage.EncodedObjectSize(h)
	if err != nil {
		return n, err
	}
	s.sizesMu.Lock()
	if len(s.sizes) < maxSizes {
		s.sizes[h] = n
	}
	s.sizesMu.Unlock()
	return n, nil
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

// objectCacheSize bounds go-git's object cache (its default is 96 MiB).
// What is read again is trees (each snapshot's lookups, the change set's
// modes and sizes) and delta bases; a changed file's blob is read once or
// twice, one read after the other, so a cache as big as the pull
// request's blobs only holds memory: with the default, the blobs the
// placeholder gate and the secret scan read through go-git (head and
// merge-base contents) stayed until 96 MiB of them were cached. On
// bench/gen's 3M-added-line repository the placeholder gate peaked at
// 102 MiB RSS with 8 MiB, 92-94 MiB with 4 MiB and 84-90 MiB with 2 MiB,
// at the same CPU time.
const objectCacheSize = 4 * cache.MiByte

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
	if gitsha.Full(ref) {
		// A full SHA names its object before any ref (as in git and
		// go-git's ResolveRevision, which would still look for a ref so
		// named: a file open per ref directory).
		if _, err := g.repo.CommitObject(plumbing.NewHash(ref)); err == nil {
			return plumbing.NewHash(ref), nil
		}
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

// CommitTime returns commit h's committer time. The error names the commit
// when it is not in the repository or cannot be read.
func (g *Git) CommitTime(h plumbing.Hash) (time.Time, error) {
	c, err := g.repo.CommitObject(h)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading commit %s: %w", short(h), err)
	}
	return c.Committer.When, nil
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

// maxFileBytes is MaxFileBytes, or MaxDiffSize when it is not set.
func (g *Git) maxFileBytes() int64 {
	if g.MaxFileBytes > 0 {
		return g.MaxFileBytes
	}
	return MaxDiffSize
}
