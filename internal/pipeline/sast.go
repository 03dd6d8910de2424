package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/source"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

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
func scanSAST(phase int, changes *changeset.ChangeSet, headFS, mergeBaseFS fs.FS, sarifPaths []string, root string, linguist gates.Linguist) *gates.SASTScan {
	s := &gates.SASTScan{Skipped: map[string]int{}}
	secretScans := startSecretScans(changes)
	nulTexts := map[int]secretScan{} // by index in changes.Files: binaryTextScan's scans
	headContent := map[string][]byte{}
	changed := map[string]bool{}
	for i := range changes.Files {
		f := &changes.Files[i]
		if f.Status == changeset.Deleted || f.NewPath == "" || isSwarm(f.NewPath) {
			continue
		}
		changed[f.NewPath] = true
		_, code := sast.LanguageOf(f.NewPath)
		if reason := gates.GeneratedReasonFor(linguist, f.NewPath, nil); code && reason != "" {
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
		content, skip, err := readForScan(headFS, f.NewPath)
		if err != nil {
			s.Unreadable = append(s.Unreadable, gates.SkippedFile{Path: f.NewPath, Reason: err.Error()})
			continue
		}
		if skip != "" {
			s.Skipped[skip]++
			if code && skip == sast.SkipTooLarge {
				s.TooLarge = append(s.TooLarge, f.NewPath)
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
			old, skip, _ = readForScan(mergeBaseFS, f.OldPath)
			hasOld = skip == ""
		}
		if reason := gates.GeneratedReasonIn(linguist, f.NewPath, content, f.OldPath, old, hasOld); code && reason != "" {
			s.Generated = append(s.Generated, gates.SkippedFile{Path: f.NewPath, Reason: reason})
			continue
		}
		findings, dismissed, skipped := gates.ScanSASTFile(f.NewPath, content)
		if skipped != "" {
			s.Skipped[skipped]++
			if code && skipped == sast.SkipTooLarge {
				s.TooLarge = append(s.TooLarge, f.NewPath)
			}
			continue
		}
		s.Scanned++
		headContent[f.NewPath] = content
		s.Head = append(s.Head, findings...)
		s.Dismissed = append(s.Dismissed, dismissed...)
		if hasOld {
			baseFindings, _, _ := gates.ScanSASTFile(f.NewPath, old)
			s.MergeBase = append(s.MergeBase, baseFindings...)
		}
	}
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
