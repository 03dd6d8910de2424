package source

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// MaxDiffSize is the default of Git.MaxFileBytes, the largest blob, in
// bytes, whose lines the change set holds: a changed file whose head blob is
// bigger is marked TooLarge, and one whose merge-base blob is bigger counts
// as binary (no added lines), without its content being read. Both engines
// apply it: the git engine by the blobs' sizes and as git's
// core.bigFileThreshold (whose default, 512 MiB, would let a single file's
// diff take gigabytes), the go-git engine by the blobs' sizes.
// The gates that read added lines skip far smaller files anyway
// (swarm/placeholders over 1 MiB, swarm/sast's built-in rules over 512 KiB).
const MaxDiffSize = 16 << 20

// side is one side of a change: a tree entry, or nothing.
type side struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

func (s side) exists() bool { return s.name != "" }

// pair is one file change before it becomes a changeset.File.
type pair struct {
	from, to   side
	status     changeset.Status
	similarity int
	big        bool // the head blob is over the size limit (splitTooLarge)
}

// goGitChangeSet diffs two trees with go-git. A panic inside go-git or its
// diff library becomes an error, so that the check fails closed instead of
// crashing.
func (g *Git) goGitChangeSet(ctx context.Context, what string, fromTree, toTree *object.Tree) (cs *changeset.ChangeSet, err error) {
	what += " with go-git"
	defer func() {
		if p := recover(); p != nil {
			cs, err = nil, fmt.Errorf("%s: the built-in diff failed (%v); install git to use the git engine", what, p)
		}
	}()
	if err := checkDiffTrees(g.repo.Storer, fromTree, toTree); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	// Without rename detection first (which reads blobs): the paths are
	// counted against MaxChangedFiles before any blob is read.
	changes, err := object.DiffTreeWithOptions(ctx, fromTree, toTree, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := countPaths(len(changes), g.MaxChangedFiles); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	changes, err = object.DetectRenames(changes, &object.DiffTreeOptions{
		DetectRenames: true,
		RenameScore:   50,
		RenameLimit:   1000, // git's default diff.renameLimit
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pairs := make([]pair, 0, len(changes))
	for _, c := range changes {
		p := pair{
			from: side{name: c.From.Name, mode: c.From.TreeEntry.Mode, hash: c.From.TreeEntry.Hash},
			to:   side{name: c.To.Name, mode: c.To.TreeEntry.Mode, hash: c.To.TreeEntry.Hash},
		}
		switch {
		case !p.from.exists():
			p.status = changeset.Added
		case !p.to.exists():
			p.status = changeset.Deleted
		case p.from.name != p.to.name:
			p.status = changeset.Renamed
		default:
			p.status = changeset.Modified
		}
		pairs = append(pairs, p)
	}

	b := &blobs{g: g, limit: g.maxFileBytes()}
	// A head blob over the limit is kept out of rename and copy detection,
	// as the git engine keeps its path out of git diff: it is an added or
	// modified file marked TooLarge.
	if pairs, err = splitTooLarge(pairs, b); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if pairs, err = scoreRenames(pairs, b); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pairs = pairExactRenames(pairs)
	pairs = findExactCopies(pairs) // before the split: git does not copy into a type change
	pairs = splitTypeChanges(pairs)

	cs = &changeset.ChangeSet{Files: make([]changeset.File, 0, len(pairs))}
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		f, err := p.file(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		cs.Files = append(cs.Files, f)
	}
	cs.Sort()
	return cs, nil
}

// splitTooLarge turns each rename whose head blob is over the limit back
// into a deletion and an addition, and marks every pair whose head blob is
// over it (pair.big), so that the copy and rename passes leave it alone.
func splitTooLarge(pairs []pair, b *blobs) ([]pair, error) {
	out := pairs[:0:0]
	for _, p := range pairs {
		big, err := b.tooBig(p.to)
		if err != nil {
			return nil, err
		}
		switch {
		case !big:
			out = append(out, p)
		case p.status == changeset.Renamed:
			out = append(out, pair{from: p.from, status: changeset.Deleted}, pair{to: p.to, status: changeset.Added, big: true})
		default:
			p.big = true
			out = append(out, p)
		}
	}
	return out, nil
}

// scoreRenames gives each rename go-git found git's similarity index, and
// turns back into a deletion and an addition the renames git would not make:
// inexact ones scoring under 50%, and inexact ones of anything but regular
// files.
func scoreRenames(pairs []pair, b *blobs) ([]pair, error) {
	out := pairs[:0:0]
	for _, p := range pairs {
		if p.status != changeset.Renamed {
			out = append(out, p)
			continue
		}
		if p.from.hash == p.to.hash {
			p.similarity = 100
			out = append(out, p)
			continue
		}
		score := 0
		big, err := b.tooBig(p.from, p.to)
		if err != nil {
			return nil, err
		}
		if !big && modeKind(p.from.mode) == filemode.Regular && modeKind(p.to.mode) == filemode.Regular {
			src, err := b.read(p.from)
			if err != nil {
				return nil, err
			}
			dst, err := b.read(p.to)
			if err != nil {
				return nil, err
			}
			score = gitSimilarity(src, dst)
		}
		if score < 50 {
			out = append(out, pair{from: p.from, status: changeset.Deleted}, pair{to: p.to, status: changeset.Added})
			continue
		}
		p.similarity = score
		out = append(out, p)
	}
	return out, nil
}

// pairExactRenames pairs deleted and added files with the same content that
// go-git leaves apart because their modes differ (a script renamed and made
// executable); git pairs regular files whatever their executable bit.
func pairExactRenames(pairs []pair) []pair {
	deleted := map[plumbing.Hash][]int{}
	for i, p := range pairs {
		if p.status == changeset.Deleted && modeKind(p.from.mode) == filemode.Regular {
			deleted[p.from.hash] = append(deleted[p.from.hash], i)
		}
	}
	drop := map[int]bool{}
	for i := range pairs {
		p := &pairs[i]
		if p.status != changeset.Added || p.big || modeKind(p.to.mode) != filemode.Regular {
			continue
		}
		var candidates []side
		for _, j := range deleted[p.to.hash] {
			if !drop[j] {
				candidates = append(candidates, pairs[j].from)
			}
		}
		src, ok := bestSource(candidates, p.to.name)
		if !ok {
			continue
		}
		for _, j := range deleted[p.to.hash] {
			if pairs[j].from == src {
				drop[j] = true
			}
		}
		p.from, p.status, p.similarity = src, changeset.Renamed, 100
	}
	out := pairs[:0:0]
	for i, p := range pairs {
		if !drop[i] {
			out = append(out, p)
		}
	}
	return out
}

// splitTypeChanges lists a path whose type changed (a regular file replaced
// by a symlink or submodule, or back) as a deletion and an addition, as git
// does.
func splitTypeChanges(pairs []pair) []pair {
	out := pairs[:0:0]
	for _, p := range pairs {
		if p.status == changeset.Modified && modeKind(p.from.mode) != modeKind(p.to.mode) {
			out = append(out, pair{from: p.from, status: changeset.Deleted}, pair{to: p.to, status: changeset.Added, big: p.big})
			continue
		}
		out = append(out, p)
	}
	return out
}

// findExactCopies marks an added file as Copied (similarity 100) when its
// content equals the old content of a file that the same diff modifies,
// deletes or renames: the sources `git diff -C` considers. go-git has no copy
// detection, so only exact copies are found.
func findExactCopies(pairs []pair) []pair {
	sources := map[plumbing.Hash][]side{}
	for _, p := range pairs {
		if p.from.exists() && p.status != changeset.Copied {
			sources[p.from.hash] = append(sources[p.from.hash], p.from)
		}
	}
	for i := range pairs {
		p := &pairs[i]
		if p.status != changeset.Added || p.big {
			continue
		}
		var candidates []side
		for _, s := range sources[p.to.hash] {
			// Like git: files of other types must have the same mode.
			if modeKind(s.mode) == filemode.Regular && modeKind(p.to.mode) == filemode.Regular || s.mode == p.to.mode {
				candidates = append(candidates, s)
			}
		}
		if src, ok := bestSource(candidates, p.to.name); ok {
			p.from, p.status, p.similarity = src, changeset.Copied, 100
		}
	}
	return pairs
}

// bestSource picks a rename or copy source for target: one with the same
// base name first, then the smallest path.
func bestSource(candidates []side, target string) (side, bool) {
	if len(candidates) == 0 {
		return side{}, false
	}
	sort.Slice(candidates, func(i, j int) bool {
		bi := path.Base(candidates[i].name) == path.Base(target)
		bj := path.Base(candidates[j].name) == path.Base(target)
		if bi != bj {
			return bi
		}
		return candidates[i].name < candidates[j].name
	})
	return candidates[0], true
}

// file builds the changeset.File of a pair, reading blobs for the added lines
// and the binary flag.
func (p pair) file(b *blobs) (changeset.File, error) {
	f := changeset.File{
		Status:     p.status,
		OldPath:    p.from.name,
		NewPath:    p.to.name,
		OldMode:    uint32(p.from.mode),
		NewMode:    uint32(p.to.mode),
		Similarity: p.similarity,
		Size:       -1,
	}
	if p.to.exists() && p.to.mode.IsFile() {
		size, err := blobSize(b.g.repo.Storer, p.to.hash)
		if err != nil {
			return f, fmt.Errorf("reading the size of %q (blob %s): %w", p.to.name, short(p.to.hash), err)
		}
		f.Size = size
	}
	if p.from.exists() && p.to.exists() && p.from.hash == p.to.hash {
		return f, nil // same content: no lines, not reported binary
	}
	if p.to.exists() && p.to.mode == filemode.Submodule {
		// git prints a gitlink's content as one line.
		f.Added = []changeset.AddedLine{{Line: 1, Text: "Subproject commit " + p.to.hash.String()}}
		return f, nil
	}
	if p.big && p.to.mode.IsFile() {
		f.TooLarge = true // not read: its size is all the change set says
		return f, nil
	}
	if big, err := b.tooBig(p.from, p.to); err != nil || big {
		f.Binary = big // git: a blob over core.bigFileThreshold is binary
		return f, err
	}
	var oldData, newData []byte
	var err error
	if p.from.exists() && p.from.mode.IsFile() {
		if oldData, err = b.read(p.from); err != nil {
			return f, err
		}
	}
	if p.to.exists() && p.to.mode.IsFile() {
		if newData, err = b.read(p.to); err != nil {
			return f, err
		}
	}
	if isBinary(oldData) || isBinary(newData) {
		f.Binary = true
		return f, nil
	}
	if p.to.exists() {
		if f.Added, err = addedLines(string(oldData), string(newData)); err != nil {
			return f, fmt.Errorf("%s: %w", p.to.name, err)
		}
	}
	return f, nil
}

// maxDiffLines bounds the lines go-git's line diff is given for one file:
// diffmatchpatch maps each distinct line to a rune and panics past about a
// million, and its run time grows fast well before that. The git engine has
// no such limit.
const maxDiffLines = 400_000

// diffTimeout bounds go-git's line diff of one file. When it runs out, the
// diff is still correct but coarser: more lines count as added, never fewer.
const diffTimeout = 20 * time.Second

// addedLines diffs two texts line by line (go-git's diff) and returns the
// lines only newText has, numbered in newText. Text has no "\n" and at most one "\r"
// removed, as changeset.Parse gives it.
func addedLines(oldText, newText string) ([]changeset.AddedLine, error) {
	if oldText == "" {
		return AllLines(newText), nil
	}
	if n := countLines(oldText) + countLines(newText); n > maxDiffLines {
		return nil, fmt.Errorf("%d lines on both sides are too many for the built-in go-git line diff (limit %d); install git, whose engine has no such limit", n, maxDiffLines)
	}
	var added []changeset.AddedLine
	line := 1
	for _, d := range diff.DoWithTimeout(oldText, newText, diffTimeout) {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			line += countLines(d.Text)
		case diffmatchpatch.DiffInsert:
			for text := range strings.Lines(d.Text) {
				text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
				added = append(added, changeset.AddedLine{Line: line, Text: text})
				line++
			}
		}
	}
	return added, nil
}

// AllLines numbers every line of text from 1, as added lines: Text without
// its "\n" and one trailing "\r"; a last line without "\n" counts.
func AllLines(text string) []changeset.AddedLine {
	var out []changeset.AddedLine
	n := 1
	for l := range strings.Lines(text) {
		out = append(out, changeset.AddedLine{Line: n, Text: strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")})
		n++
	}
	return out
}

// countLines counts the lines of s, a last line without "\n" included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// isBinary is git's test: a NUL byte in the first 8000 bytes (a size over
// core.bigFileThreshold, git's other test, is checked before a blob is
// read: blobs.tooBig).
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// blobs reads blob contents.
type blobs struct {
	g     *Git
	limit int64 // Git.maxFileBytes
}

// tooBig reports whether a blob on either side is over the limit,
// by the object headers (nothing is read).
func (b *blobs) tooBig(sides ...side) (bool, error) {
	for _, s := range sides {
		if !s.exists() || !s.mode.IsFile() {
			continue
		}
		n, err := blobSize(b.g.repo.Storer, s.hash)
		if err != nil {
			return false, fmt.Errorf("reading the size of %q (blob %s): %w", s.name, short(s.hash), err)
		}
		if n > b.limit {
			return true, nil
		}
	}
	return false, nil
}

func (b *blobs) read(s side) ([]byte, error) {
	blob, err := b.g.repo.BlobObject(s.hash)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s of %q: %w", short(s.hash), s.name, err)
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading blob %s of %q: %w", short(s.hash), s.name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s of %q: %w", short(s.hash), s.name, err)
	}
	return data, nil
}
