package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// gitCLIError is a failure to run the git CLI (as opposed to a failure to
// parse what it printed); the auto engine falls back to go-git on it.
type gitCLIError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitCLIError) Error() string {
	msg := fmt.Sprintf("running git %s: %v", strings.Join(e.args, " "), e.err)
	if s := strings.TrimSpace(e.stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

func (e *gitCLIError) Unwrap() error { return e.err }

// gitDiffArgs are the arguments of the `git diff` the git engine runs. The
// -c settings and flags pin every option a user's config could change
// (prefixes, quoting of non-ASCII paths, colour, external diff and textconv
// drivers, relative paths, diff algorithm, submodule hiding), so the output
// is the same everywhere. One line of context (-U1, not -U0) keeps the
// hunks few; changeset.Parse reads a hunk by its header's counts, so a
// removed "--" line next to an added "++" line is content either way.
func gitDiffArgs(gitDir, emptyDir string, from, to plumbing.Hash, limit int64, exclude []string) []string {
	args := []string{
		// gitDir is a shadow repository (see shadowGitDir): the real
		// repository's objects (gitEnv's GIT_OBJECT_DIRECTORY) without its
		// config or info/attributes.
		"--git-dir=" + gitDir,
		// An empty work tree and index: git reads .gitattributes from the
		// work tree (or the index), and a pull request's head checkout must
		// not be able to mark its own files binary ("-diff") and hide its
		// added lines.
		"--work-tree=" + emptyDir,
		"-c", "core.attributesFile=" + os.DevNull,
		// Blobs over MaxDiffSize are binary, as in the go-git engine.
		"-c", "core.bigFileThreshold=" + strconv.FormatInt(limit, 10),
		"-c", "core.quotePath=false",
		"-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false",
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
		"-M", "-C", "--full-index", "-U1",
		"--src-prefix=a/", "--dst-prefix=b/",
		"--diff-algorithm=myers", "--ignore-submodules=none",
		from.String(), to.String(), "--",
	}
	for _, p := range exclude {
		// literal: a path's "*" or "?" is not a glob.
		args = append(args, ":(exclude,literal)"+p)
	}
	return args
}

// rawEntry is one line of `git diff --raw --no-renames`.
type rawEntry struct {
	oldMode, newMode uint32
	oldBlob, newBlob string
	status           byte // A, M, D, T, ...
	path             string
}

// rawDiff lists the files changed from..to, without rename detection (which
// would read contents), as `git diff --raw -z --no-renames` prints them. It
// reads git's output as it comes and, once more than max entries (0: no
// limit) have come, kills git and returns a *TooManyFilesError: memory
// holds at most max+1 entries, whatever the pull request changes.
func rawDiff(ctx context.Context, gitPath, shadow, objects, emptyDir string, from, to plumbing.Hash, nice, max int) ([]rawEntry, error) {
	args := []string{"--git-dir=" + shadow, "--work-tree=" + emptyDir,
		"-c", "core.attributesFile=" + os.DevNull, "-c", "core.quotePath=false",
		"diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-relative", "--ignore-submodules=none",
		from.String(), to.String(), "--"}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, gitPath, args...)
	cmd.Dir = emptyDir
	cmd.Env = gitEnv(emptyDir, objects)
	stderr := &limitedBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &gitCLIError{args: args, err: err}
	}
	if err := startNiced(cmd, nice); err != nil {
		return nil, &gitCLIError{args: args, err: err}
	}
	entries, parseErr := readRaw(bufio.NewReaderSize(stdout, 64<<10), max)
	var tooMany *TooManyFilesError
	if errors.As(parseErr, &tooMany) {
		cancel() // kills git: what it would write next is not read
		_ = cmd.Wait()
		return nil, parseErr
	}
	if parseErr != nil {
		_, _ = io.Copy(io.Discard, stdout) // let git finish writing, to learn how it exited
	}
	if err := cmd.Wait(); err != nil {
		return nil, &gitCLIError{args: args, err: err, stderr: stderr.String()}
	}
	return entries, parseErr
}

// readRaw parses `git diff --raw -z` output: a NUL-terminated ":modes
// blobs status" field and a NUL-terminated path per entry. More than max
// entries (0: no limit) is a *TooManyFilesError, returned as soon as the
// entry over the limit is read.
func readRaw(r *bufio.Reader, max int) ([]rawEntry, error) {
	var entries []rawEntry
	for {
		meta, err := r.ReadString(0)
		if err == io.EOF && meta == "" {
			return entries, nil
		}
		if err != nil {
			return nil, fmt.Errorf("git diff --raw: reading its output: %w", err)
		}
		path, err := r.ReadString(0)
		if err != nil {
			return nil, fmt.Errorf("git diff --raw: no path after %q", strings.TrimSuffix(meta, "\x00"))
		}
		meta, path = strings.TrimSuffix(meta, "\x00"), strings.TrimSuffix(path, "\x00")
		fields := strings.Fields(strings.TrimPrefix(meta, ":"))
		if len(fields) != 5 || fields[4] == "" {
			return nil, fmt.Errorf("git diff --raw: unexpected line %q", meta)
		}
		om, err1 := strconv.ParseUint(fields[0], 8, 32)
		nm, err2 := strconv.ParseUint(fields[1], 8, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("git diff --raw: bad modes in %q", meta)
		}
		entries = append(entries, rawEntry{oldMode: uint32(om), newMode: uint32(nm), oldBlob: fields[2], newBlob: fields[3], status: fields[4][0], path: path})
		if err := countPaths(len(entries), max); err != nil {
			return nil, err
		}
	}
}

// isFileMode reports whether a git mode is a blob's (regular, executable,
// symlink), as opposed to a submodule or nothing.
func isFileMode(m uint32) bool {
	return m&0o170000 == 0o100000 || m == 0o120000
}

// tooLargeFiles lists the changed files whose head blob is over limit and
// differs from the merge base's, as the changeset.Files to report for them
// (a type change gives the deletion too, as git diff lists it), and returns
// every head blob's size by name, for fillSizesFrom.
func (g *Git) tooLargeFiles(ctx context.Context, gitPath, shadow, objects, emptyDir string, from, to plumbing.Hash, limit int64) (big []changeset.File, sizes map[string]int64, err error) {
	entries, err := rawDiff(ctx, gitPath, shadow, objects, emptyDir, from, to, g.childNice, g.MaxChangedFiles)
	if err != nil {
		return nil, nil, err
	}
	// Checked here, before a big file's path is kept out of the content
	// diff, which would drop its twin too.
	heads := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.newMode == 0 {
			continue
		}
		if heads[e.path] {
			return nil, nil, duplicateEntry(e.path)
		}
		heads[e.path] = true
	}
	var names []string
	for _, e := range entries {
		if isFileMode(e.newMode) && e.newBlob != "" && strings.Trim(e.newBlob, "0") != "" {
			names = append(names, e.newBlob)
		}
	}
	if len(names) <= inProcessSizes {
		sizes, err = g.blobSizes(names)
	} else {
		sizes, err = batchSizes(ctx, gitPath, shadow, objects, emptyDir, names, g.childNice)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		n, ok := sizes[e.newBlob]
		if !ok || n <= limit || e.newBlob == e.oldBlob || !isFileMode(e.newMode) {
			continue
		}
		if e.status == 'T' {
			big = append(big, changeset.File{Status: changeset.Deleted, OldPath: e.path, OldMode: e.oldMode, Size: -1})
		}
		f := changeset.File{Status: changeset.Added, NewPath: e.path, NewMode: e.newMode, Size: n, TooLarge: true}
		if e.status == 'M' {
			f.Status, f.OldPath, f.OldMode = changeset.Modified, e.path, e.oldMode
		}
		big = append(big, f)
	}
	return big, sizes, nil
}

// gitEnv is the environment for the git CLI: the caller's, without the
// variables that would point git at another repository, index or object
// store or change its diff output, with an empty index and objects, the
// real repository's object directory (see shadowGitDir).
func gitEnv(emptyDir, objects string) []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true,
		"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_NAMESPACE": true,
		"GIT_EXTERNAL_DIFF": true, "GIT_DIFF_OPTS": true, "GIT_ATTR_SOURCE": true,
		"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_INDEX_FILE="+filepath.Join(emptyDir, "index"), // does not exist: an empty index
		"GIT_OBJECT_DIRECTORY="+objects,
		// No system or user configuration and no system attributes: what a
		// file's diff looks like must not depend on the runner's setup.
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1", // go-git ignores refs/replace too
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
	)
}

// gitCLIChangeSet runs `git diff` and streams its output through
// changeset.Stream, passing each file to g.OnFile as it is read. A failure
// to run git is a *gitCLIError.
func (g *Git) gitCLIChangeSet(ctx context.Context, what, gitPath string, from, to plumbing.Hash, fromTree, toTree *object.Tree) (*changeset.ChangeSet, error) {
	emptyDir, err := os.MkdirTemp("", "swarm-gate-git-")
	if err != nil {
		return nil, fmt.Errorf("%s with the git CLI: making an empty work tree: %w", what, err)
	}
	defer os.RemoveAll(emptyDir)

	shadow, objects, err := shadowGitDir(g.gitDir, emptyDir)
	if err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, &gitCLIError{args: []string{"(preparing)"}, err: err})
	}
	limit := g.maxFileBytes()
	big, sizes, err := g.tooLargeFiles(ctx, gitPath, shadow, objects, emptyDir, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, err)
	}
	exclude := make([]string, 0, len(big))
	for i := range big {
		if big[i].TooLarge {
			exclude = append(exclude, big[i].NewPath)
		}
	}
	args := gitDiffArgs(shadow, emptyDir, from, to, limit, exclude)
	cmd := exec.CommandContext(ctx, gitPath, args...)
	cmd.Dir = emptyDir
	cmd.Env = gitEnv(emptyDir, objects)
	stderr := &limitedBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, &gitCLIError{args: args, err: err})
	}
	if err := startNiced(cmd, g.childNice); err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, &gitCLIError{args: args, err: err})
	}
	cs := &changeset.ChangeSet{Files: []changeset.File{}}
	parseErr := changeset.Stream(stdout, func(f *changeset.File) error {
		cs.Files = append(cs.Files, *f)
		if g.OnFile != nil {
			if f.NewPath != "" {
				if n, ok := sizes[f.NewBlob]; ok && f.NewBlob != "" {
					f.Size = n // as fillSizesFrom sets it
				}
			}
			g.OnFile(f)
			if g.ReleaseAdded {
				cs.Files[len(cs.Files)-1].Release()
			}
		}
		return nil
	})
	if g.FilesDone != nil {
		g.FilesDone()
	}
	if parseErr != nil {
		cs = nil
		_, _ = io.Copy(io.Discard, stdout) // let git finish writing, to learn how it exited
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, &gitCLIError{args: args, err: err, stderr: stderr.String()})
	}
	if parseErr != nil {
		return nil, fmt.Errorf("%s with the git CLI: reading the output of git diff: %w", what, parseErr)
	}
	if err := fillModes(cs, fromTree, toTree, g.repo.Storer); err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, err)
	}
	// The sizes come from tooLargeFiles' one git cat-file: the content
	// diff names the same head blobs.
	if err := fillSizesFrom(cs, sizes, toTree, g.repo.Storer); err != nil {
		return nil, fmt.Errorf("%s with the git CLI: %w", what, err)
	}
	for i := range cs.Files {
		cs.Files[i].NewBlob = "" // used for the sizes; both engines return the same ChangeSet
	}
	cs.Files = append(cs.Files, big...)
	cs.Sort()
	return cs, nil
}

// inProcessSizes is the most blob sizes read through go-git rather than
// one git cat-file: starting git costs more CPU than reading a few object
// headers from the open packs.
const inProcessSizes = 32

// blobSizes is batchSizes through go-git: object name -> size, missing
// objects left out as git cat-file --batch-check leaves them.
func (g *Git) blobSizes(names []string) (map[string]int64, error) {
	sizes := make(map[string]int64, len(names))
	for _, name := range names {
		n, err := blobSize(g.repo.Storer, plumbing.NewHash(name))
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the size of blob %s: %w", name, err)
		}
		sizes[name] = n
	}
	return sizes, nil
}

// batchSizes asks one `git cat-file --batch-check` for the type and size
// of every named object, instead of one object lookup per file. It returns
// object name -> size for blobs.
func batchSizes(ctx context.Context, gitPath, shadow, objects, emptyDir string, names []string, nice int) (map[string]int64, error) {
	var in bytes.Buffer
	for _, b := range names {
		in.WriteString(b)
		in.WriteByte('\n')
	}
	if in.Len() == 0 {
		return nil, nil
	}
	args := []string{"--git-dir=" + shadow, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"}
	cmd := exec.CommandContext(ctx, gitPath, args...)
	cmd.Dir = emptyDir
	cmd.Env = gitEnv(emptyDir, objects)
	cmd.Stdin = &in
	stderr := &limitedBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	out, err := outputNiced(cmd, nice)
	if err != nil {
		return nil, &gitCLIError{args: args, err: err, stderr: stderr.String()}
	}
	sizes := map[string]int64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "blob" {
			continue // "<name> missing", a commit (submodule), an empty line
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("git cat-file: bad size in %q", line)
		}
		sizes[f[0]] = n
	}
	return sizes, nil
}

// shadowGitDir creates, inside tmp, a minimal git directory (HEAD and an
// empty refs folder, what git needs to accept it) and returns it with the
// real repository's object directory, which the git CLI is pointed at with
// GIT_OBJECT_DIRECTORY (gitEnv). The shadow has nothing else: no config,
// no hooks, no info/attributes. The repository's own .git/info/attributes
// or config (diff drivers, core.attributesFile) could otherwise mark the
// pull request's files binary and hide their added lines from the git
// engine, which go-git would not do.
func shadowGitDir(gitDir, tmp string) (shadow, objects string, err error) {
	objects = filepath.Join(gitDir, "objects")
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		// A linked worktree keeps its objects in the common directory.
		dir := strings.TrimSpace(string(common))
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(gitDir, dir)
		}
		objects = filepath.Join(dir, "objects")
	}
	shadow = filepath.Join(tmp, "shadow.git")
	if err := os.MkdirAll(filepath.Join(shadow, "refs"), 0o700); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(shadow, "HEAD"), []byte("ref: refs/heads/swarm-gate\n"), 0o600); err != nil {
		return "", "", err
	}
	return shadow, objects, nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	max       int
	buf       []byte
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:n]...)
	b.truncated = b.truncated || n < len(p)
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	if b.truncated {
		return string(b.buf) + " [...]"
	}
	return string(b.buf)
}
