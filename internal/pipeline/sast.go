package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/source"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// hasRules reports whether the built-in rules cover p's language: a file
// of such a language that the scanner skips as binary is code nobody
// scanned (gates.SASTScan.BinaryCode).
func hasRules(p string) bool {
	lang, ok := sast.LanguageOf(p)
	return ok && len(sast.Rules(lang)) > 0
}

// MaxSASTFiles bounds how many changed files the built-in rules scan per
// side; the rest are listed as not scanned.
const MaxSASTFiles = 5000

// scanSAST computes what swarm/sast judges, at the edge where files can be
// read: the built-in Tier A rules, refined (gates.ScanSASTFile), on every
// changed file at head and, for the merge-base baseline, on the same files
// at the merge base (a renamed file is scanned at its old path but
// fingerprinted under its new one, so that a move is not a new finding);
// findings from SARIF logs in the changed files; and the phase's
// sast-baseline.json on both sides. Generated, vendored and minified code
// files are not scanned, and listed (gates.GeneratedReason). Then the
// secret scan of the added lines of every changed text file (scanSecrets).
//
// reads, when not nil, hands out the files in the loop's order (see
// planSASTReads); any other file is read from headFS or mergeBaseFS.
// stream, when not nil, is the secret scan of the files the diff streamed
// (secretStream), whose added lines the source may have released.
func scanSAST(phase int, changes *changeset.ChangeSet, headFS, mergeBaseFS fs.FS, reads *prefetched, stream *secretStream, sarifPaths []string, root string, linguist gates.Linguist, lim gates.LimitsConfig) *gates.SASTScan {
	s := &gates.SASTScan{Skipped: map[string]int{}}
	secretScans := startSecretScans(changes, stream)
	nulTexts := map[int]secretScan{} // by index in changes.Files: binaryTextScan's scans
	// The SARIF findings' fingerprints read the head files again; the
	// files scanned are kept for them only when there are SARIF logs,
	// else each is dropped once scanned.
	var headContent map[string][]byte
	if len(sarifPaths) > 0 {
		headContent = map[string][]byte{}
	}
	changed := map[string]bool{}
	scans := startFileScans()
	defer scans.stop()
	for i := range changes.Files {
		f := &changes.Files[i]
		if f.Status == changeset.Deleted || f.NewPath == "" || isSwarm(f.NewPath) {
			continue
		}
		changed[f.NewPath] = true
		_, code := sast.LanguageOf(f.NewPath)
		if reason := gates.GeneratedReasonChanged(lim, linguist, f, nil); code && reason != "" {
			s.Generated = append(s.Generated, gates.SkippedFile{Path: f.NewPath, Reason: reason})
			continue
		}
		if f.TooLarge {
			// Not read (limits.max_file_bytes): reading it here would
			// undo the bound the change set keeps.
			// Any such file, code or not: the secret scan reads every
			// changed text file, and one too large to read may hold a key.
			s.Skipped[sast.SkipTooLarge]++
			s.TooLargeToScan = append(s.TooLargeToScan, f.NewPath)
			continue
		}
		if s.Scanned+len(s.NotScanned) >= MaxSASTFiles {
			s.NotScanned = append(s.NotScanned, f.NewPath)
			continue
		}
		content, skip, err := reads.read(headFS, sideHead, f.NewPath)
		if err != nil {
			s.Unreadable = append(s.Unreadable, gates.SkippedFile{Path: f.NewPath, Reason: err.Error()})
			continue
		}
		if skip == skipLink && f.NewMode&0o170000 == 0o100000 {
			// The diff shows a file there; the tree's entry of that name is
			// not one: the tree names the path twice.
			s.Unreadable = append(s.Unreadable, gates.SkippedFile{Path: f.NewPath, Reason: "git diff shows a file there, but a lookup of the path in the head commit finds a folder, symlink or submodule: the tree names the path twice (git fsck reports duplicateEntries), so it has no one content to scan; rewrite the commit without the duplicate"})
			continue
		}
		if skip != "" {
			s.Skipped[skip]++
			if code && skip == sast.SkipTooLarge {
				s.TooLarge = append(s.TooLarge, f.NewPath)
			}
			if skip == sast.SkipBinary && hasRules(f.NewPath) {
				s.BinaryCode = append(s.BinaryCode, f.NewPath)
			}
			continue
		}
		if f.Binary {
			// git shows no lines for it; a text with a stray NUL (a .env)
			// is still scanned for secrets, whole.
			if r, ok := binaryTextScan(f.NewPath, content); ok {
				nulTexts[i] = r
			}
		}
		var old []byte
		hasOld := false
		// A copy's source keeps its lines, so what the copy holds is new
		// code: it is not compared with the source's merge-base version.
		if f.Status != changeset.Added && f.Status != changeset.Copied && f.OldPath != "" {
			old, skip, _ = reads.read(mergeBaseFS, sideMergeBase, f.OldPath)
			hasOld = skip == ""
		}
		if reason := gates.GeneratedReasonChangedIn(lim, linguist, f, content, old, hasOld); code && reason != "" {
			s.Generated = append(s.Generated, gates.SkippedFile{Path: f.NewPath, Reason: reason})
			continue
		}
		if skipped := sast.SkipReason(f.NewPath, content); skipped != "" {
			s.Skipped[skipped]++
			if code && skipped == sast.SkipTooLarge {
				s.TooLarge = append(s.TooLarge, f.NewPath)
			}
			if skipped == sast.SkipBinary && hasRules(f.NewPath) {
				s.BinaryCode = append(s.BinaryCode, f.NewPath)
			}
			continue
		}
		s.Scanned++
		if headContent != nil {
			headContent[f.NewPath] = content
		}
		scans.add(f.NewPath, content, old, hasOld)
	}
	scans.collect(s)
	for _, p := range sarifPaths {
		s.SARIFFiles = append(s.SARIFFiles, p)
		findings, err := readSARIF(p)
		if err != nil {
			s.SARIFErr = err
			break
		}
		var kept []sast.Finding
		for _, f := range findings {
			if rel, ok := underRoot(root, f.File); ok {
				f.File = rel // an absolute path inside the checkout
			}
			if changed[f.File] {
				kept = append(kept, f)
			}
		}
		sast.FingerprintsFunc(kept, func(rel string) ([]byte, bool) {
			c, ok := headContent[rel]
			if !ok {
				c, ok = readAll(headFS, rel)
			}
			return c, ok
		})
		s.Head = append(s.Head, kept...)
		s.SARIFKept += len(kept)
		s.SARIFOther += len(findings) - len(kept)
	}
	// Within the JSON budget swarm.Load applies: a baseline padded with
	// millions of values is refused before it is parsed.
	s.BaseBaseline, s.BaseBaselineErr = sast.LoadBaseline(swarm.WithJSONBudget(mergeBaseFS, swarm.MaxJSONValues), phase)
	s.HeadBaseline, s.HeadBaselineErr = sast.LoadBaseline(swarm.WithJSONBudget(headFS, swarm.MaxJSONValues), phase)
	scanSecrets(s, changes, mergeBaseFS, secretScans, nulTexts)
	if len(sarifPaths) > 0 && stream != nil {
		stream.wait()
		s.AddedRuns = stream.runs
	}
	return s
}

// underRoot makes an absolute path inside the repository's working tree
// repository-relative.
func underRoot(root, p string) (string, bool) {
	if root == "" || !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func isSwarm(p string) bool {
	return (p == swarm.Dir || len(p) > len(swarm.Dir) && p[:len(swarm.Dir)+1] == swarm.Dir+"/") && !gates.IsSwarmCode(p)
}

// skipLink is the skip reason of a changed path that is a symlink or a
// submodule (or a directory): there is no file of the commit to scan.
const skipLink = "symlink or submodule"

// readForScan reads a file for the scanner, or says why it was skipped
// (over the scanner's size limit, a symlink or submodule); err is set, and
// the skip is "unreadable", when a file the commit has could not be read.
func readForScan(fsys fs.FS, p string) ([]byte, string, error) {
	info, err := fs.Stat(fsys, p)
	switch {
	case errors.Is(err, source.ErrSymlink), errors.Is(err, source.ErrSubmodule), err == nil && info.IsDir():
		return nil, skipLink, nil
	case err != nil:
		return nil, "unreadable", unwrapPathErr(err)
	case info.Size() > sast.MaxScanSize:
		return nil, sast.SkipTooLarge, nil
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, "unreadable", unwrapPathErr(err)
	}
	return data, "", nil
}

const (
	sideHead = iota
	sideMergeBase
)

// prefetched is the files scanSAST reads, read ahead in its order while it
// scans the files before: one git cat-file (source.Prefetch) per side, so
// that git inflates and resolves the head and the merge-base files on two
// cores at once (each side's files are read in the loop's order).
type prefetched struct {
	pf      [2]*source.Prefetch // by side; nil once done or failed
	commits [2]plumbing.Hash    // by side
	planned map[source.FileRef]bool
	log     *slog.Logger
}

// planSASTReads lists, in scanSAST's order, the files its loop reads: each
// changed regular file it does not skip by path (head side), and the
// merge-base side of a modified or renamed one. A file it skips after all
// is read past; one not listed is read from the snapshot.
func planSASTReads(changes *changeset.ChangeSet, head, mergeBase plumbing.Hash, linguist gates.Linguist, lim gates.LimitsConfig) []source.FileRef {
	var refs []source.FileRef
	regular := func(mode uint32) bool { return mode&0o170000 == 0o100000 }
	for i := range changes.Files {
		f := &changes.Files[i]
		if f.Status == changeset.Deleted || f.NewPath == "" || isSwarm(f.NewPath) || f.TooLarge {
			continue
		}
		if _, code := sast.LanguageOf(f.NewPath); code && gates.GeneratedReasonChanged(lim, linguist, f, nil) != "" {
			continue
		}
		if !regular(f.NewMode) || !source.PrefetchSafe(f.NewPath) {
			continue
		}
		refs = append(refs, source.FileRef{Commit: head, Path: f.NewPath})
		if f.Status != changeset.Added && f.Status != changeset.Copied && f.OldPath != "" && regular(f.OldMode) && source.PrefetchSafe(f.OldPath) {
			refs = append(refs, source.FileRef{Commit: mergeBase, Path: f.OldPath})
		}
	}
	return refs
}

// prefetchAtLeast is the fewest files startSASTReads reads through git
// cat-file: below it, starting git costs more CPU than go-git reading them
// from the open packs.
const prefetchAtLeast = 16

// startSASTReads starts reading planSASTReads' files, or returns nil (the
// files are then read from the snapshots) when git cannot be run or there
// are fewer than least of them. A side whose git cannot start is read from
// its snapshot.
func startSASTReads(ctx context.Context, repo *source.Git, changes *changeset.ChangeSet, head, mergeBase plumbing.Hash, linguist gates.Linguist, lim gates.LimitsConfig, least int, log *slog.Logger) *prefetched {
	if !repo.CanPrefetch() {
		return nil
	}
	refs := planSASTReads(changes, head, mergeBase, linguist, lim)
	if len(refs) == 0 || len(refs) < least {
		return nil
	}
	p := &prefetched{commits: [2]plumbing.Hash{head, mergeBase}, planned: make(map[source.FileRef]bool, len(refs)), log: log}
	var bySide [2][]source.FileRef
	for _, r := range refs {
		p.planned[r] = true
		side := sideHead
		if r.Commit != head {
			side = sideMergeBase
		}
		bySide[side] = append(bySide[side], r)
	}
	started := false
	for side, rs := range bySide {
		if len(rs) == 0 {
			continue
		}
		pf, err := repo.Prefetch(ctx, rs, sast.MaxScanSize)
		if err != nil {
			log.Debug("reading the changed files with go-git: git cat-file could not start", "error", err.Error())
			continue
		}
		p.pf[side], started = pf, true
	}
	if !started {
		return nil
	}
	return p
}

// read is readForScan, taking the file from the prefetch when it was
// planned and git gave a blob; anything else (a path the commit lacks, a
// git failure) is read from fsys, so the messages are the snapshot's.
func (p *prefetched) read(fsys fs.FS, side int, path string) ([]byte, string, error) {
	if p == nil || p.pf[side] == nil {
		return readForScan(fsys, path)
	}
	ref := source.FileRef{Commit: p.commits[side], Path: path}
	if !p.planned[ref] {
		return readForScan(fsys, path)
	}
	for {
		f, ok, err := p.pf[side].Next()
		if !ok {
			// Done or failed: the rest of this side comes from the snapshot.
			if err != nil {
				p.log.Debug("reading the rest of the changed files with go-git", "error", err.Error())
			}
			_ = p.pf[side].Close()
			p.pf[side] = nil
			return readForScan(fsys, path)
		}
		if f.Ref != ref {
			continue // planned, but the loop skipped it
		}
		switch {
		case f.Type != "blob":
			return readForScan(fsys, path)
		case f.Size > sast.MaxScanSize:
			return nil, sast.SkipTooLarge, nil
		}
		return f.Data, "", nil
	}
}

func (p *prefetched) close() {
	if p == nil {
		return
	}
	for side, pf := range p.pf {
		if pf != nil {
			_ = pf.Close()
			p.pf[side] = nil
		}
	}
}

func readAll(fsys fs.FS, p string) ([]byte, bool) {
	data, skip, _ := readForScan(fsys, p)
	return data, skip == ""
}

// readSARIF reads one SARIF log from the file system (it is the output of a
// scanner the workflow ran, not a file of the repository).
func readSARIF(p string) ([]sast.Finding, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("reading SARIF %s: %w", p, unwrapPathErr(err))
	}
	if !info.Mode().IsRegular() {
		// A FIFO blocks open(2) until a writer comes; /dev/zero never ends.
		return nil, fmt.Errorf("reading SARIF %s: not a regular file (%s), expected a SARIF log a scanner wrote", p, swarm.FileKind(info.Mode()))
	}
	if info.Size() > sast.MaxSARIFSize {
		return nil, fmt.Errorf("reading SARIF %s: %d bytes, over the %d-byte limit", p, info.Size(), sast.MaxSARIFSize)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reading SARIF %s: %w", p, unwrapPathErr(err))
	}
	defer f.Close()
	// Bounded: the file may grow between the stat and the read.
	data, err := io.ReadAll(io.LimitReader(f, sast.MaxSARIFSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading SARIF %s: %w", p, unwrapPathErr(err))
	}
	return sast.ReadSARIF(p, data)
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileScans runs gates.ScanSASTFile on the files scanSAST's loop hands it,
// on worker goroutines, so the rules run while the loop reads the next
// files (from git cat-file) instead of after each read; collect adds the
// findings in the loop's order, as one goroutine would.
type fileScans struct {
	queue chan *fileScan
	all   []*fileScan
	wg    sync.WaitGroup
	done  bool
}

type fileScan struct {
	path      string
	content   []byte // head; dropped once scanned
	old       []byte // merge base, when hasOld
	hasOld    bool
	findings  []sast.Finding
	dismissed []sast.Finding
	base      []sast.Finding // the merge base's findings
}

// scanWorkers is how many files are scanned at once (the loop itself
// mostly waits for git's reads).
func scanWorkers() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

func startFileScans() *fileScans {
	n := scanWorkers()
	// A short queue: what waits to be scanned is held in memory.
	q := &fileScans{queue: make(chan *fileScan, 2*n)}
	q.wg.Add(n)
	for range n {
		go func() {
			defer q.wg.Done()
			for j := range q.queue {
				j.findings, j.dismissed, _ = gates.ScanSASTFile(j.path, j.content)
				if j.hasOld {
					j.base, _, _ = gates.ScanSASTFile(j.path, j.old)
				}
				j.content, j.old = nil, nil
			}
		}()
	}
	return q
}

// add queues a file sast.SkipReason does not skip.
func (q *fileScans) add(path string, content, old []byte, hasOld bool) {
	j := &fileScan{path: path, content: content, old: old, hasOld: hasOld}
	q.all = append(q.all, j)
	q.queue <- j
}

// collect waits for every scan and appends the findings to s in the order
// the files were added.
func (q *fileScans) collect(s *gates.SASTScan) {
	q.stop()
	for _, j := range q.all {
		s.Head = append(s.Head, j.findings...)
		s.Dismissed = append(s.Dismissed, j.dismissed...)
		s.MergeBase = append(s.MergeBase, j.base...)
	}
	q.all = nil
}

// stop ends the queue and waits for the workers; it may be called again.
func (q *fileScans) stop() {
	if !q.done {
		q.done = true
		close(q.queue)
	}
	q.wg.Wait()
}
