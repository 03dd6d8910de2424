// Package gitattr reads GitHub Linguist's linguist-generated and
// linguist-vendored attributes from the .gitattributes files of one commit
// (git's gitattributes(5) format, parsed with go-git's gitattributes
// package), so that the gates skip what a project marks as generated or
// vendored, and scan what it marks as its own.
package gitattr

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
)

// MaxFileSize bounds one .gitattributes file; a bigger one is not read.
const MaxFileSize = 1 << 20

// Linguist answers for paths of one commit's tree. The .gitattributes of
// the root and of each directory on a path's way are read once, when first
// needed. It is safe for concurrent use.
type Linguist struct {
	fsys fs.FS

	// known, when not nil, is the directories that have a .gitattributes
	// (as NewKnown was told): the others are not looked in.
	known map[string]bool
	// list, when not nil, is called once, when more than listAfter
	// directories were looked in, to set known (NewLazy).
	list      func() ([]string, error)
	listAfter int

	mu    sync.Mutex
	dirs  map[string][]gitattributes.MatchAttribute // by directory ("" the root)
	errs  []error
	order []string // directories read, in order
}

// New reads attributes from fsys (a commit's tree, root at ".").
func New(fsys fs.FS) *Linguist {
	return &Linguist{fsys: fsys, dirs: map[string][]gitattributes.MatchAttribute{}}
}

// NewKnown is New for a tree whose .gitattributes files are known to be
// files (their slash-separated paths, as git ls-tree lists them): the
// directories without one are not looked in, which spares reading their
// trees.
func NewKnown(fsys fs.FS, files []string) *Linguist {
	l := New(fsys)
	l.known = knownDirs(files)
	return l
}

// NewLazy is New until more than after directories were looked in, and
// then NewKnown with the files list gives (called once; if it fails, the
// directories are still looked in one by one): listing a whole tree costs
// more than reading the few directories of a small change. The answers are
// the same as New's.
func NewLazy(fsys fs.FS, list func() ([]string, error), after int) *Linguist {
	l := New(fsys)
	l.list, l.listAfter = list, after
	return l
}

func knownDirs(files []string) map[string]bool {
	known := map[string]bool{}
	for _, f := range files {
		dir := path.Dir(f)
		if dir == "." {
			dir = ""
		}
		known[dir] = true
	}
	return known
}

// Reason says what the attributes make of p (slash-separated, relative to
// the root): set is false when neither attribute is specified for it;
// otherwise reason is why it is generated or vendored, or "" when the
// attributes say it is not (linguist-generated=false, -linguist-vendored),
// which overrides swarm-gate's path heuristics.
func (l *Linguist) Reason(p string) (reason string, set bool) {
	if l == nil {
		return "", false
	}
	elems := strings.Split(p, "/")
	var stack []gitattributes.MatchAttribute
	dir := ""
	for i := 0; i < len(elems); i++ {
		// A copy: the parser appends to the domain it is given.
		stack = append(stack, l.read(dir, append([]string(nil), elems[:i]...))...)
		if i < len(elems)-1 {
			dir = path.Join(dir, elems[i])
		}
	}
	if len(stack) == 0 {
		return "", false
	}
	// One attribute per Match: asked for two at once, go-git's matcher
	// lets a shallower file override a deeper one.
	m := gitattributes.NewMatcher(stack)
	attr := func(name string) gitattributes.Attribute {
		got, _ := m.Match(elems, []string{name})
		return got[name]
	}
	gen, vend := attr("linguist-generated"), attr("linguist-vendored")
	switch {
	case truthy(gen):
		return "generated (.gitattributes linguist-generated)", true
	case truthy(vend):
		return "vendored (.gitattributes linguist-vendored)", true
	case falsy(gen) || falsy(vend):
		return "", true
	}
	return "", false
}

// Errors lists the .gitattributes files that could not be read: their
// attributes are not applied (the files they would skip are scanned).
func (l *Linguist) Errors() []error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...)
}

func truthy(a gitattributes.Attribute) bool {
	return a != nil && (a.IsSet() || (a.IsValueSet() && a.Value() == "true"))
}

func falsy(a gitattributes.Attribute) bool {
	return a != nil && (a.IsUnset() || (a.IsValueSet() && a.Value() == "false"))
}

// read returns the attributes of dir's .gitattributes (domain its path
// elements), reading it the first time.
func (l *Linguist) read(dir string, domain []string) []gitattributes.MatchAttribute {
	l.mu.Lock()
	defer l.mu.Unlock()
	if attrs, ok := l.dirs[dir]; ok {
		return attrs
	}
	if l.list != nil && len(l.order) >= l.listAfter {
		if files, err := l.list(); err == nil {
			l.known = knownDirs(files)
		}
		l.list = nil
	}
	if l.known != nil && !l.known[dir] {
		l.dirs[dir] = nil
		return nil
	}
	name := path.Join(dir, ".gitattributes")
	attrs, err := l.load(name, domain)
	if err != nil {
		l.errs = append(l.errs, err)
	}
	l.dirs[dir] = attrs
	l.order = append(l.order, dir)
	return attrs
}

func (l *Linguist) load(name string, domain []string) ([]gitattributes.MatchAttribute, error) {
	info, err := fs.Stat(l.fsys, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case info.IsDir():
		return nil, fmt.Errorf("%s: is a directory", name)
	case info.Size() > MaxFileSize:
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit", name, info.Size(), MaxFileSize)
	}
	data, err := fs.ReadFile(l.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Macros are only allowed in the root file, as in git.
	attrs, err := gitattributes.ReadAttributes(bytes.NewReader(data), domain, len(domain) == 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return attrs, nil
}
