package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrSymlink is wrapped by the error for opening, reading or stating a path
// that is a symlink or goes through one. Snapshots never follow symlinks: a
// target can point outside the commit, or at a file the scope rules would
// not allow.
var ErrSymlink = errors.New("is a symlink, and swarm-gate does not follow symlinks")

// ErrSubmodule is wrapped by the error for opening, reading or stating a path
// that is a git submodule or inside one: a submodule is a commit of another
// repository, whose files are not in this commit's tree.
var ErrSubmodule = errors.New("is a git submodule, whose files are not part of this repository's commit")

// ErrBadEntryName is wrapped by the error for listing a directory whose tree
// has an entry that cannot be a path element: empty, ".", "..", or holding
// "/" or NUL. git refuses to check such a tree out (git fsck reports it), but
// a hand-written tree object can hold one, and walking it would loop ("..")
// or step outside the directory.
var ErrBadEntryName = errors.New("has an entry whose name is not a file name (empty, \".\", \"..\", or holding \"/\" or NUL), which git refuses to check out (git fsck reports the tree); rewrite the commit without it")

// Snapshot returns the file tree of a commit as an fs.FS, read from git
// objects (never from the working directory). It implements fs.FS,
// fs.ReadDirFS, fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS.
//
// Names are slash-separated paths relative to the repository root, checked
// as fs.ValidPath does but for its UTF-8 check ("." is the root; Git names
// are bytes). Missing paths give errors satisfying
// errors.Is(err, fs.ErrNotExist), invalid names fs.ErrInvalid. A symlink
// (mode 120000), or a path through one, gives an error wrapping ErrSymlink
// from Open, ReadFile and Stat; ReadDir lists it with fs.ModeSymlink, Lstat
// describes it and ReadLink returns its target without following it. A
// submodule (mode 160000) gives an error wrapping ErrSubmodule from Open,
// ReadFile and Stat, and is listed by ReadDir with fs.ModeIrregular. ReadDir
// refuses a directory holding an entry that is not a file name ("..", ".",
// "", a name with "/"), with an error wrapping ErrBadEntryName; other names
// git refuses to check out (a newline or other control character, ".git")
// are listed and read like any other.
//
// File sizes come from the object headers, so Stat does not read file
// contents. Modes are 0o644 for files, 0o755 for executables and directories
// and 0o777 for symlinks; ModTime is the commit's committer time; Sys returns
// the object.TreeEntry (its hash and git mode), or nil for the root. The
// returned fs.FS may be used by one goroutine at a time.
func (g *Git) Snapshot(commit plumbing.Hash) (fs.FS, error) {
	c, tree, err := g.commitTree(commit)
	if err != nil {
		return nil, fmt.Errorf("opening snapshot: %w", err)
	}
	trees := g.trees
	if trees == nil {
		trees = newTreeMemo()
	}
	return &snapshot{objects: g.repo.Storer, root: tree, commit: commit, mtime: c.Committer.When, trees: trees}, nil
}

// treeMemo holds decoded trees by hash (a tree's hash names its content),
// at most maxMemoTrees of them. It is safe for concurrent use: the
// placeholder prescan reads one snapshot while the pipeline reads another.
type treeMemo struct {
	mu    sync.Mutex
	trees map[plumbing.Hash]*object.Tree
}

// maxMemoTrees bounds a treeMemo: past it, trees are decoded again.
const maxMemoTrees = 1 << 16

func newTreeMemo() *treeMemo { return &treeMemo{trees: map[plumbing.Hash]*object.Tree{}} }

// snapshot is the fs.FS of one commit's tree.
type snapshot struct {
	objects storer.EncodedObjectStorer
	root    *object.Tree
	commit  plumbing.Hash
	mtime   time.Time
	// trees are the directories' trees decoded so far, by hash: every
	// lookup walks the path from the root, and the same directories (the
	// .swarm folder, say) are on the path of many files.
	trees *treeMemo
}

var (
	_ fs.ReadDirFS   = (*snapshot)(nil)
	_ fs.ReadFileFS  = (*snapshot)(nil)
	_ fs.StatFS      = (*snapshot)(nil)
	_ fs.ReadLinkFS  = (*snapshot)(nil)
	_ fs.ReadDirFile = (*dirFile)(nil)
)

// node is a resolved path: the root (entry nil) or a tree entry.
type node struct {
	name  string // the path as asked
	entry *object.TreeEntry
	tree  *object.Tree // when the node is a directory
}

// lookup resolves name without following symlinks. A symlink or submodule
// before the last element is always refused; as the last element it is
// refused when refuseLeaf is set and returned otherwise (for Lstat and
// ReadLink).
func (s *snapshot) lookup(op, name string, refuseLeaf bool) (node, error) {
	if !validPath(name) {
		return node{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := node{name: name, tree: s.root}
	if name == "." {
		return n, nil
	}
	elems := strings.Split(name, "/")
	for i, elem := range elems {
		if n.tree == nil {
			return node{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist} // a file is not a directory
		}
		entry, ok := entryByName(n.tree, elem)
		if !ok {
			return node{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		n.entry, n.tree = entry, nil
		last := i == len(elems)-1
		prefix := strings.Join(elems[:i+1], "/")
		switch entry.Mode {
		case filemode.Symlink:
			if !last {
				return node{}, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%s %w", prefix, ErrSymlink)}
			}
			if refuseLeaf {
				return node{}, &fs.PathError{Op: op, Path: name, Err: ErrSymlink}
			}
		case filemode.Submodule:
			if !last {
				return node{}, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%s %w", prefix, ErrSubmodule)}
			}
			if refuseLeaf {
				return node{}, &fs.PathError{Op: op, Path: name, Err: ErrSubmodule}
			}
		case filemode.Dir:
			t, err := s.tree(entry.Hash)
			if err != nil {
				return node{}, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("reading tree %s of commit %s: %w", short(entry.Hash), short(s.commit), err)}
			}
			n.tree = t
		}
	}
	return n, nil
}

// tree returns the decoded tree h, decoding it once per snapshot.
func (s *snapshot) tree(h plumbing.Hash) (*object.Tree, error) {
	m := s.trees
	m.mu.Lock()
	t, ok := m.trees[h]
	m.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := object.GetTree(s.objects, h)
	if err != nil {
		return nil, err
	}
	// FindEntry makes its path cache on first use: made here, before other
	// goroutines see the tree, later lookups of one name only read it.
	_, _ = t.FindEntry("x")
	m.mu.Lock()
	if len(m.trees) < maxMemoTrees {
		m.trees[h] = t
	}
	m.mu.Unlock()
	return t, nil
}

// info describes a node; it reads only the object header for the size.
func (s *snapshot) info(op string, n node) (*fileInfo, error) {
	if n.entry == nil {
		return &fileInfo{name: ".", mode: fs.ModeDir | 0o755, mtime: s.mtime}, nil
	}
	fi := &fileInfo{name: n.entry.Name, mode: fsMode(n.entry.Mode), mtime: s.mtime, entry: *n.entry}
	if n.entry.Mode.IsFile() {
		size, err := s.blobSize(n.entry.Hash)
		if err != nil {
			return nil, &fs.PathError{Op: op, Path: n.name, Err: fmt.Errorf("reading size of blob %s in commit %s: %w", short(n.entry.Hash), short(s.commit), err)}
		}
		fi.size = size
	}
	return fi, nil
}

func (s *snapshot) blobSize(h plumbing.Hash) (int64, error) { return blobSize(s.objects, h) }

// blobSize returns a blob's size from its object header where the storage
// can do that (go-git's filesystem and memory storages can).
func blobSize(objects storer.EncodedObjectStorer, h plumbing.Hash) (int64, error) {
	if sized, ok := objects.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}); ok {
		return sized.EncodedObjectSize(h)
	}
	obj, err := objects.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return 0, err
	}
	return obj.Size(), nil
}

// fsMode maps a git file mode to an fs.FileMode.
func fsMode(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Dir:
		return fs.ModeDir | 0o755
	case filemode.Executable:
		return 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	case filemode.Submodule:
		return fs.ModeIrregular
	default:
		return 0o644
	}
}

// Open opens a file or directory. Files are streamed from their blob.
func (s *snapshot) Open(name string) (fs.File, error) {
	n, err := s.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	fi, err := s.info("open", n)
	if err != nil {
		return nil, err
	}
	if n.tree != nil {
		return &dirFile{s: s, name: name, info: fi, tree: n.tree}, nil
	}
	blob, err := object.GetBlob(s.objects, n.entry.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("reading blob %s of commit %s: %w", short(n.entry.Hash), short(s.commit), err)}
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("reading blob %s of commit %s: %w", short(n.entry.Hash), short(s.commit), err)}
	}
	return &blobFile{name: name, info: fi, r: r}, nil
}

// ReadFile returns a file's contents.
func (s *snapshot) ReadFile(name string) ([]byte, error) {
	f, err := s.Open(name)
	if err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: unwrapPath(err)}
	}
	defer f.Close()
	if _, ok := f.(*dirFile); ok {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	info, _ := f.Stat()
	buf := make([]byte, 0, info.Size()+1) // +1: the read that finds EOF must not grow it
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 512)
		}
		m, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readfile", Path: name, Err: unwrapPath(err)}
		}
	}
}

// Stat describes a file or directory; a symlink or submodule is refused as
// by Open (use Lstat to describe one).
func (s *snapshot) Stat(name string) (fs.FileInfo, error) {
	n, err := s.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return s.info("stat", n)
}

// Lstat describes a file, directory, symlink or submodule without following
// a symlink as the last element.
func (s *snapshot) Lstat(name string) (fs.FileInfo, error) {
	n, err := s.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return s.info("lstat", n)
}

// ReadLink returns the target a symlink points to, without following it.
func (s *snapshot) ReadLink(name string) (string, error) {
	n, err := s.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.entry == nil || n.entry.Mode != filemode.Symlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	blob, err := object.GetBlob(s.objects, n.entry.Hash)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fmt.Errorf("reading blob %s of commit %s: %w", short(n.entry.Hash), short(s.commit), err)}
	}
	r, err := blob.Reader()
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	defer r.Close()
	target, err := io.ReadAll(io.LimitReader(r, 1<<16))
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(target), nil
}

// ReadDir lists a directory sorted by name. A directory holding an entry
// whose name is not a file name gives an error wrapping ErrBadEntryName.
func (s *snapshot) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := s.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if n.tree == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return s.entries(name, n.tree)
}

// entries lists a tree's entries sorted by name (git sorts a directory "a"
// as "a/", after "a.txt"; fs.ReadDir wants plain name order). It refuses a
// tree with an entry that is not a file name: fs.WalkDir would join "..",
// "." or "" to the directory's path and walk the same directories forever.
func (s *snapshot) entries(dir string, t *object.Tree) ([]fs.DirEntry, error) {
	out := make([]fs.DirEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		if !validEntryName(e.Name) {
			return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fmt.Errorf("%w: %q", ErrBadEntryName, e.Name)}
		}
		out = append(out, &dirEntry{s: s, dir: dir, entry: e})
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// validEntryName reports whether a tree entry's name is one path element.
func validEntryName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileInfo is the fs.FileInfo of a tree entry.
type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	entry object.TreeEntry // zero for the root
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mtime }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any {
	if fi.entry.Name == "" {
		return nil
	}
	return fi.entry
}

// dirEntry is the fs.DirEntry of a tree entry.
type dirEntry struct {
	s     *snapshot
	dir   string
	entry object.TreeEntry
}

func (d *dirEntry) Name() string      { return d.entry.Name }
func (d *dirEntry) IsDir() bool       { return d.entry.Mode == filemode.Dir }
func (d *dirEntry) Type() fs.FileMode { return fsMode(d.entry.Mode).Type() }
func (d *dirEntry) Info() (fs.FileInfo, error) {
	entry := d.entry
	return d.s.info("stat", node{name: path.Join(d.dir, entry.Name), entry: &entry})
}

// blobFile is an open file streaming its blob.
type blobFile struct {
	name string
	info *fileInfo
	r    io.ReadCloser
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *blobFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	return f.r.Read(p)
}
func (f *blobFile) Close() error {
	if f.r == nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	err := f.r.Close()
	f.r = nil
	return err
}

// dirFile is an open directory.
type dirFile struct {
	s       *snapshot
	name    string
	info    *fileInfo
	tree    *object.Tree
	entries []fs.DirEntry // nil until the first ReadDir
	offset  int
	closed  bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error {
	if d.closed {
		return &fs.PathError{Op: "close", Path: d.name, Err: fs.ErrClosed}
	}
	d.closed = true
	return nil
}

// ReadDir returns the next n entries (all remaining when n <= 0), in name
// order, following the fs.ReadDirFile contract.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.closed {
		return nil, &fs.PathError{Op: "readdir", Path: d.name, Err: fs.ErrClosed}
	}
	if d.entries == nil {
		entries, err := d.s.entries(d.name, d.tree)
		if err != nil {
			return nil, err
		}
		d.entries = entries
	}
	rest := d.entries[d.offset:]
	if n <= 0 {
		d.offset = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.offset += n
	return rest[:n], nil
}

// validPath is fs.ValidPath without its UTF-8 check: Git stores a name as
// bytes, and a file whose name is not UTF-8 must still be read (a gate that
// cannot read a changed file would otherwise skip it).
func validPath(name string) bool {
	if name == "." {
		return true
	}
	for {
		i := strings.IndexByte(name, '/')
		elem := name
		if i >= 0 {
			elem = name[:i]
		}
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		if i < 0 {
			return true
		}
		name = name[i+1:]
	}
}
