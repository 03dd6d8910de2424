package ghfake

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// The ref advertisement (GET info/refs) is the same for every fetch until
// the repository's refs change, so the fake keeps the last one per served
// repository and protocol, with the state of the refs it was made from,
// and serves it again while that state is unchanged instead of running
// `git upload-pack --advertise-refs` once more.
//
// The state is the content (not the modification time: go-git rewrites a
// ref in place, same size, within the file system's clock tick) of every
// file the advertisement is made from: HEAD, packed-refs, shallow, the
// repository's config and every file under refs/, with their names.
// Objects are not part of it: an advertised ref's object is immutable,
// and git skips a ref whose object is missing only in a broken repository.

// advertKey names a cached advertisement: the repository as served (its
// directory and options) and the client's Git-Protocol header.
type advertKey struct {
	repo  gitRepo
	proto string
}

// advert is a cached advertisement: upload-pack's output, and the refs'
// state before and after the run that made it.
type advert struct {
	state []byte
	body  []byte
}

// errNoCache is refsState's answer for a repository whose advertisement
// may depend on files it does not read.
var errNoCache = errors.New("the advertisement depends on files outside the repository")

// cachedAdvert returns the cached advertisement for key when the refs are
// still in state.
func (s *Server) cachedAdvert(key advertKey, state []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.git.adverts[key]
	if !ok || !bytes.Equal(a.state, state) {
		return nil, false
	}
	return a.body, true
}

// keepAdvert caches body, made from the refs in state, for key.
func (s *Server) keepAdvert(key advertKey, state, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.git.adverts == nil {
		s.git.adverts = map[advertKey]advert{}
	}
	s.git.adverts[key] = advert{state: state, body: body}
}

// refsState returns the state of the refs of the git directory dir, as
// the advertisement cache compares it: every file an advertisement is made
// from, each as its name, its length and its content (a missing file is
// named with length -1), the files under refs/ in name order. It fails
// with errNoCache for a repository whose refs or configuration may live
// elsewhere (a linked worktree's commondir, a config with include), and
// with the error of a file or folder that cannot be read.
func refsState(dir string) ([]byte, error) {
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil {
		return nil, errNoCache
	}
	var b bytes.Buffer
	for _, name := range []string{"HEAD", "config", "packed-refs", "shallow"} {
		content, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !(name != "HEAD" && errors.Is(err, fs.ErrNotExist)) {
			return nil, err
		}
		if name == "config" && bytes.Contains(bytes.ToLower(content), []byte("include")) {
			return nil, errNoCache
		}
		addState(&b, name, content, err == nil)
	}
	// WalkDir visits each folder's entries in name order.
	err := filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && d != nil {
				return nil // removed since its folder was read
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		content, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		addState(&b, filepath.ToSlash(rel), content, err == nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// addState adds one file to a refs state: its name, its length (-1 when
// it is missing) and its content.
func addState(b *bytes.Buffer, name string, content []byte, exists bool) {
	n := -1
	if exists {
		n = len(content)
	}
	b.WriteString(name + "\x00" + strconv.Itoa(n) + "\x00")
	b.Write(content)
}
