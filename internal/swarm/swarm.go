// Package swarm reads the opencode-swarm plugin's .swarm/ artifacts from one
// side of a pull request (a commit's tree given as an fs.FS): plan.json,
// plan-ledger.jsonl (and its plan-ledger.resetting marker), events.jsonl,
// evidence/, scopes/, review-receipts/, spec-staleness.json and spec.md.
//
// It is lenient about plugin versions (unknown fields are ignored, older
// shapes are accepted) and strict about integrity: a malformed file or line
// is reported as an *ArtifactError naming the file and line, never skipped.
package swarm

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Dir is the folder the plugin keeps its state in, relative to the
// repository root.
const Dir = ".swarm"

// Repository-relative paths of the artifacts this package reads.
const (
	PlanPath     = Dir + "/plan.json"
	LedgerPath   = Dir + "/plan-ledger.jsonl"
	EventsPath   = Dir + "/events.jsonl"
	EvidenceDir  = Dir + "/evidence"
	ScopesDir    = Dir + "/scopes"
	SpecPath     = Dir + "/spec.md"
	PlanMarkdown = Dir + "/plan.md"

	ReceiptsDir         = Dir + "/review-receipts"
	SpecStalenessPath   = Dir + "/spec-staleness.json"
	LedgerResettingPath = Dir + "/plan-ledger.resetting"
)

// MaxFileSize is the largest artifact read, in bytes. Real plugin files stay
// far below it (the plugin caps its own logs at 2 MiB; the largest file in
// the corpus is 0.5 MiB); a larger file is refused before it is read, by
// its blob's size. Parsed JSON takes several times its size in memory,
// which this bounds.
const MaxFileSize = 16 << 20

// ArtifactError is a problem with one artifact file: unreadable, too large,
// or malformed at a given line.
type ArtifactError struct {
	Path string // repository-relative, e.g. .swarm/plan-ledger.jsonl
	Line int    // 1-based; 0 when the problem is not at a line
	// Column is 1-based, in characters; 0 when not known (only the policy
	// file's parser sets it).
	Column int
	Err    error
}

func (e *ArtifactError) Error() string {
	if e.Line > 0 && e.Column > 0 {
		return e.Path + ": line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Err.Error()
	}
	if e.Line > 0 {
		return e.Path + ": line " + strconv.Itoa(e.Line) + ": " + e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *ArtifactError) Unwrap() error { return e.Err }

// Artifacts is everything read from one side's .swarm/ folder. A nil field
// with a nil error means the file is absent; a non-nil error means it is
// present but could not be used, and the gates that need it must report
// "could not evaluate" with that error.
type Artifacts struct {
	// Present is false when the tree has no .swarm directory at all.
	Present bool

	Plan    *Plan
	PlanErr error

	Ledger    *Ledger
	LedgerErr error
	// LedgerResetting is true while .swarm/plan-ledger.resetting exists. The
	// plugin then treats the ledger as empty (spec section 3.1), and so does
	// Load: Ledger is an empty ledger (Path set, no events, Data nil) and
	// plan-ledger.jsonl is not read. Sibling files (plan-ledger.archived-*,
	// plan-ledger.quarantine.*, backups) are never read.
	LedgerResetting bool

	// Archives are the plugin's archived ledgers,
	// .swarm/plan-ledger.archived-<ms>-<rand>.jsonl, in name order: savePlan
	// (src/plan/manager.ts) renames the old ledger so when the plan's
	// identity (title or swarm) changes and starts a new one. Each is read as
	// the ledger is; an archive that cannot be read keeps its error.
	Archives []ArchivedLedger
	// ArchivesErr says why .swarm/ could not be listed for archives.
	ArchivesErr error

	Events    *EventLog
	EventsErr error

	Evidence *Evidence // never nil after Load

	Scopes *Scopes // never nil after Load

	Receipts *Receipts // never nil after Load

	// SpecStaleness is non-nil when .swarm/spec-staleness.json exists, even
	// when it cannot be read or parsed (then it holds only Path and
	// SpecStalenessErr says why): the plugin blocks save_plan,
	// update_task_status and phase_complete on the file's mere presence.
	// SpecStaleness nil with SpecStalenessErr set means it could not be told
	// whether the file exists (the .swarm folder itself is unreadable).
	SpecStaleness    *SpecStaleness
	SpecStalenessErr error

	// Spec is the content of .swarm/spec.md; HasSpec says whether it exists.
	Spec    []byte
	HasSpec bool
	SpecErr error
	// SpecDoc is Spec's requirement definitions (nil without a spec).
	SpecDoc *Spec
}

// Load reads the .swarm/ artifacts of one tree. It never fails as a whole:
// each artifact's problem is kept beside it (PlanErr, LedgerErr, ...). The
// files are parsed within a budget of MaxJSONValues (unless fsys already
// carries one, see WithJSONBudget): a file that would exceed it is an
// *ArtifactError.
func Load(fsys fs.FS) *Artifacts {
	if jsonBudget(fsys) == nil {
		fsys = WithJSONBudget(fsys, MaxJSONValues)
	}
	a := &Artifacts{Evidence: &Evidence{}, Scopes: &Scopes{}, Receipts: &Receipts{}}
	info, err := fs.Stat(fsys, Dir)
	switch {
	case err == nil && info.IsDir():
		a.Present = true
	case err == nil || !errors.Is(err, fs.ErrNotExist):
		// A .swarm that is a file, a symlink or unreadable: treat as present
		// but broken, so every gate says why.
		a.Present = true
		bad := &ArtifactError{Path: Dir, Err: fmt.Errorf("not a readable directory: %v", errOr(err, "it is not a directory"))}
		a.PlanErr, a.LedgerErr, a.EventsErr, a.SpecErr = bad, bad, bad, bad
		a.Evidence.DirErr, a.Scopes.DirErr, a.Receipts.DirErr = bad, bad, bad
		a.SpecStalenessErr = bad
		return a
	default:
		return a
	}
	if data, err := readArtifact(fsys, PlanPath); err != nil {
		a.PlanErr = nilIfNotExist(err)
	} else {
		a.Plan, a.PlanErr = ParsePlan(PlanPath, data)
	}
	if resetting, err := exists(fsys, LedgerResettingPath); err != nil {
		a.LedgerErr = err
	} else if resetting {
		a.LedgerResetting = true
		a.Ledger = &Ledger{Path: LedgerPath}
	} else if l, err := readLedger(fsys, LedgerPath); l == nil {
		a.LedgerErr = nilIfNotExist(err)
	} else {
		a.Ledger, a.LedgerErr = l, err
	}
	a.Archives, a.ArchivesErr = loadArchives(fsys)
	if data, err := readArtifact(fsys, EventsPath); err != nil {
		a.EventsErr = nilIfNotExist(err)
	} else {
		a.Events, a.EventsErr = ParseEventLog(EventsPath, data)
	}
	a.Evidence = loadEvidence(fsys)
	a.Scopes = loadScopes(fsys)
	a.Receipts = loadReceipts(fsys)
	if data, err := readArtifact(fsys, SpecStalenessPath); err != nil {
		// Anything but absence (a directory, an unreadable or oversized
		// file) still counts as present: the plugin only checks existence.
		if a.SpecStalenessErr = nilIfNotExist(err); a.SpecStalenessErr != nil {
			a.SpecStaleness = &SpecStaleness{Path: SpecStalenessPath}
		}
	} else {
		a.SpecStaleness, a.SpecStalenessErr = ParseSpecStaleness(SpecStalenessPath, data)
	}
	if data, err := readArtifact(fsys, SpecPath); err != nil {
		a.SpecErr = nilIfNotExist(err)
	} else {
		a.Spec, a.HasSpec = data, true
		a.SpecDoc = ParseSpec(SpecPath, data)
	}
	return a
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// exists reports whether a marker file (or anything else) is at name. An
// error other than absence is an *ArtifactError: the marker's state is
// unknown.
func exists(fsys fs.FS, name string) (bool, error) {
	_, err := fs.Stat(fsys, name)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, &ArtifactError{Path: name, Err: fmt.Errorf("cannot tell whether the marker exists: %v", unwrapPath(err))}
}

// nilIfNotExist turns "file absent" into nil and keeps every other error.
func nilIfNotExist(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// readArtifact reads one file with the size limit checked before reading.
// Errors are *ArtifactError except for absence, which wraps fs.ErrNotExist.
// A Git LFS pointer is an error (see lfsError).
func readArtifact(fsys fs.FS, name string) ([]byte, error) {
	if err := checkArtifact(fsys, name); err != nil {
		return nil, err
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &ArtifactError{Path: name, Err: unwrapPath(err)}
	}
	if IsLFSPointer(data) {
		return nil, lfsError(name)
	}
	return data, nil
}

// checkArtifact says whether name is a file that may be read: not a
// directory, a symlink or a submodule (the snapshot refuses those), and
// not over MaxFileSize by its blob's size. Errors are as readArtifact's.
func checkArtifact(fsys fs.FS, name string) error {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return &ArtifactError{Path: name, Err: unwrapPath(err)}
	}
	if info.IsDir() {
		return &ArtifactError{Path: name, Err: errors.New("is a directory, expected a file")}
	}
	if info.Mode()&(fs.ModeNamedPipe|fs.ModeDevice|fs.ModeSocket) != 0 {
		// Opening a named pipe blocks until a writer comes; a device never
		// ends. (The snapshot names a symlink or a submodule itself.)
		return &ArtifactError{Path: name, Err: fmt.Errorf("is not a regular file (%s), expected a file the plugin wrote", FileKind(info.Mode()))}
	}
	if info.Size() > MaxFileSize {
		return &ArtifactError{Path: name, Err: fmt.Errorf("is %d bytes, over the %d-byte limit; refusing to read it (the plugin's files are some KiB: check that the file was not generated or concatenated)", info.Size(), MaxFileSize)}
	}
	return nil
}

// IsLFSPointer reports whether data starts as a Git LFS pointer file does
// (the spec's version line; JSON never starts with "version"): the commit
// holds the pointer, and the content it stands for is not in the
// repository. data may be the file's first line alone.
func IsLFSPointer(data []byte) bool {
	return bytes.HasPrefix(data, []byte("version https://git-lfs.github.com/spec/")) ||
		bytes.HasPrefix(data, []byte("version https://hawser.github.com/spec/"))
}

// lfsError is the error for an artifact committed through Git LFS: the
// commit holds a pointer, and swarm-gate never fetches LFS objects.
func lfsError(name string) error {
	return &ArtifactError{Path: name, Err: errors.New("is a Git LFS pointer, not the file; swarm-gate reads the committed blob: commit .swarm/ without LFS (drop its filter=lfs line from .gitattributes and run `git add --renormalize .swarm`)")}
}

// unwrapPath drops the *fs.PathError wrapper, whose path an ArtifactError
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseJSONFile parses one JSON artifact file, a leading byte order mark
// dropped. It returns the value and the data it was parsed from (offsets of
// values index it); a syntax error is an *ArtifactError with its line.
func parseJSONFile(name string, data []byte) (*jsjson.Value, []byte, error) {
	if err := EncodingError(name, data); err != nil {
		return nil, data, err
	}
	data = trimBOM(data)
	v, err := jsjson.Parse(data)
	if err != nil {
		var se *jsjson.SyntaxError
		if errors.As(err, &se) {
			return nil, data, &ArtifactError{Path: name, Line: se.Line, Err: errors.New(se.Msg)}
		}
		return nil, data, &ArtifactError{Path: name, Err: err}
	}
	return v, data, nil
}

// trimBOM drops a leading UTF-8 byte order mark, which editors on Windows
// add and which carries no content.
func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}

// ArchivedLedger is one .swarm/plan-ledger.archived-*.jsonl file: its
// ledger, or the error that kept it from being read (an *ArtifactError with
// the line where known).
type ArchivedLedger struct {
	Path   string
	Ledger *Ledger
	Err    error
}

// ArchivePrefix starts the name of an archived ledger in .swarm/.
const ArchivePrefix = "plan-ledger.archived-"

// maxArchives bounds how many archives are read; real projects have one or
// two.
const maxArchives = 64

// loadArchives reads the archived ledgers of .swarm/.
func loadArchives(fsys fs.FS) ([]ArchivedLedger, error) {
	entries, err := fs.ReadDir(fsys, Dir)
	if err != nil {
		return nil, &ArtifactError{Path: Dir, Err: unwrapPath(err)}
	}
	var out []ArchivedLedger
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ArchivePrefix) || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		p := Dir + "/" + name
		if len(out) == maxArchives {
			return out, &ArtifactError{Path: p, Err: fmt.Errorf("more than %d archived ledgers in %s; not read", maxArchives, Dir)}
		}
		l, err := readLedger(fsys, p)
		out = append(out, ArchivedLedger{Path: p, Ledger: l, Err: err})
	}
	return out, nil
}
