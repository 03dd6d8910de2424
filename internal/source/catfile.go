package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// FileRef names a file of a commit: what Prefetch reads.
type FileRef struct {
	Commit plumbing.Hash
	Path   string // repository-relative, slash-separated
}

// Fetched is what Prefetch read for one FileRef.
type Fetched struct {
	Ref FileRef
	// Type is the object's type ("blob", "tree", "commit"), or "missing"
	// when the commit has no such path.
	Type string
	// Size is the object's size in bytes (-1 when missing).
	Size int64
	// Data is the blob's content; nil for anything but a blob of at most
	// the Prefetch's maxSize bytes.
	Data []byte
}

// Prefetch reads files of commits, in a given order, through one `git
// cat-file --batch` process ahead of their use: git inflates the objects
// (in C, in its own process) while the caller works on the files before,
// and a path is resolved in the commit's tree by git instead of a lookup
// per file. At most window results wait unread, so memory is bounded by
// window times maxSize. It is not safe for concurrent use.
type Prefetch struct {
	cmd     *exec.Cmd
	results chan prefetchResult
	slots   chan struct{} // one per request written and not yet taken
	cancel  context.CancelFunc
	cleanup func()
	done    sync.WaitGroup
	err     error
	closed  bool
	stderr  *limitedBuffer
}

type prefetchResult struct {
	f   Fetched
	err error
}

// PrefetchWindow is how many files Prefetch reads ahead of the caller.
const PrefetchWindow = 64

// CanPrefetch reports whether Prefetch can run: the repository is on disk
// and a git CLI is on PATH, and the diff engine is not pinned to go-git.
func (g *Git) CanPrefetch() bool {
	if g.gitDir == "" || g.Engine == DiffEngineGoGit {
		return false
	}
	_, err := exec.LookPath("git")
	return err == nil
}

// PrefetchSafe reports whether a path can be named to git cat-file as
// commit:path: a line of its input holds one name, and a path starting
// with ./ or ../ would be taken relative to the working directory.
func PrefetchSafe(p string) bool {
	return p != "" && !strings.ContainsAny(p, "\n\r") && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../")
}

// Prefetch starts reading refs in order (each must satisfy PrefetchSafe);
// Next returns them in the same order. Blobs over maxSize bytes are read
// past, not kept. The git process runs in a shadow git directory (no
// config, no attributes, no replace refs), as the diff does. Close must be
// called. The error says why git could not be started.
func (g *Git) Prefetch(ctx context.Context, refs []FileRef, maxSize int64) (*Prefetch, error) {
	for _, r := range refs {
		if !PrefetchSafe(r.Path) {
			return nil, fmt.Errorf("path %q cannot be read through git cat-file", r.Path)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd, args, cleanup, err := g.shadowCommand(ctx, "cat-file", "--batch=%(objecttype) %(objectsize)")
	if err != nil {
		cancel()
		return nil, err
	}
	p := &Prefetch{cmd: cmd, cancel: cancel, stderr: &limitedBuffer{max: 8 << 10},
		results: make(chan prefetchResult, PrefetchWindow), slots: make(chan struct{}, PrefetchWindow),
		cleanup: cleanup}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		p.cleanup()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		p.cleanup()
		return nil, err
	}
	if err := startNiced(cmd, g.childNice); err != nil {
		cancel()
		p.cleanup()
		return nil, &gitCLIError{args: args, err: err}
	}
	p.done.Add(2)
	go func() { // the requests, at most PrefetchWindow ahead of Next
		defer p.done.Done()
		defer stdin.Close()
		w := bufio.NewWriter(stdin)
		for _, r := range refs {
			select {
			case p.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			w.WriteString(r.Commit.String())
			w.WriteByte(':')
			w.WriteString(r.Path)
			w.WriteByte('\n')
			// Flushed each time: git answers a line only once it has it.
			if w.Flush() != nil {
				return
			}
		}
	}()
	go func() { // the answers, in the order asked
		defer p.done.Done()
		defer close(p.results)
		br := bufio.NewReaderSize(stdout, 64<<10)
		for _, r := range refs {
			f, err := readFetched(br, r, maxSize)
			select {
			case p.results <- prefetchResult{f, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return p, nil
}

// readFetched reads one answer of git cat-file --batch=%(objecttype)
// %(objectsize): "TYPE SIZE\n" and SIZE bytes and "\n", or "NAME missing\n".
func readFetched(br *bufio.Reader, r FileRef, maxSize int64) (Fetched, error) {
	f := Fetched{Ref: r, Size: -1}
	line, err := br.ReadString('\n')
	if err != nil {
		return f, fmt.Errorf("git cat-file: reading the answer for %s: %w", r.Path, err)
	}
	line = strings.TrimSuffix(line, "\n")
	if strings.HasSuffix(line, " missing") || strings.HasSuffix(line, " ambiguous") {
		f.Type = "missing"
		return f, nil
	}
	typ, size, ok := strings.Cut(line, " ")
	n, perr := strconv.ParseInt(size, 10, 64)
	if !ok || perr != nil || n < 0 {
		return f, fmt.Errorf("git cat-file: unexpected answer %q for %s", line, r.Path)
	}
	f.Type, f.Size = typ, n
	if typ == "blob" && n <= maxSize {
		f.Data = make([]byte, n)
		if _, err := io.ReadFull(br, f.Data); err != nil {
			return f, fmt.Errorf("git cat-file: reading %s: %w", r.Path, err)
		}
	} else if _, err := br.Discard(int(n)); err != nil {
		return f, fmt.Errorf("git cat-file: reading past %s: %w", r.Path, err)
	}
	if b, err := br.ReadByte(); err != nil || b != '\n' {
		return f, fmt.Errorf("git cat-file: no newline after %s", r.Path)
	}
	return f, nil
}

// Next returns the next file in the order Prefetch was given; ok is false
// when every file was returned, or after an error (the caller reads the
// rest another way). The error says why git's answer could not be read.
func (p *Prefetch) Next() (f Fetched, ok bool, err error) {
	if p.err != nil || p.closed {
		return Fetched{}, false, p.err
	}
	r, more := <-p.results
	if !more {
		return Fetched{}, false, nil
	}
	<-p.slots
	if r.err != nil {
		if s := strings.TrimSpace(p.stderr.String()); s != "" {
			r.err = fmt.Errorf("%w: %s", r.err, s)
		}
		p.err = r.err
		return Fetched{}, false, r.err
	}
	return r.f, true, nil
}

// Close stops git (the files not yet taken are not read) and removes its
// scratch directory.
func (p *Prefetch) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	p.cancel()
	p.done.Wait()
	_ = p.cmd.Wait() // killed by the cancel, or done
	p.cleanup()
	return nil
}

// FilesNamed lists the paths of commit's tree whose last element is name
// (".gitattributes"), with one `git ls-tree -r` (in C, instead of decoding
// every directory's tree in process), run as the diff is. The error says
// why git could not list them; the caller then looks for the files itself.
func (g *Git) FilesNamed(ctx context.Context, commit plumbing.Hash, name string) ([]string, error) {
	cmd, args, cleanup, err := g.shadowCommand(ctx, "ls-tree", "-r", "-z", "--name-only", "--full-tree", commit.String())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	stderr := &limitedBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startNiced(cmd, g.childNice); err != nil {
		return nil, &gitCLIError{args: args, err: err}
	}
	var out []string
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		p, err := br.ReadString(0)
		if err != nil {
			break // io.EOF, or git failed (Wait says)
		}
		p = strings.TrimSuffix(p, "\x00")
		if p == name || strings.HasSuffix(p, "/"+name) {
			out = append(out, p)
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, &gitCLIError{args: args, err: err, stderr: stderr.String()}
	}
	return out, nil
}

// shadowCommand is git with args, run in a scratch directory with a shadow
// git directory (shadowGitDir: the repository's objects, none of its
// config, hooks or attributes), as the diff runs. It returns the command
// (not started), its whole argument list for errors, and a cleanup that
// removes the scratch directory once the command is done. The error says
// why git cannot run here.
func (g *Git) shadowCommand(ctx context.Context, args ...string) (*exec.Cmd, []string, func(), error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, nil, nil, err
	}
	if g.gitDir == "" {
		return nil, nil, nil, errors.New("the repository is not on disk")
	}
	emptyDir, err := os.MkdirTemp("", "swarm-gate-git-")
	if err != nil {
		return nil, nil, nil, err
	}
	cleanup := func() { os.RemoveAll(emptyDir) }
	shadow, objects, err := shadowGitDir(g.gitDir, emptyDir)
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	args = append([]string{"--git-dir=" + shadow}, args...)
	cmd := exec.CommandContext(ctx, gitPath, args...)
	cmd.Dir = emptyDir
	cmd.Env = gitEnv(emptyDir, objects)
	return cmd, args, cleanup, nil
}
