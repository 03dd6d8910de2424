// Package swarm reads the opencode-swarm plugin's .swarm/ artifacts from one
// side of a pull request (a commit's tree given as an fs.FS): plan.json,
// plan-ledger.jsonl, events.jsonl, evidence/, scopes/ and spec.md.
//
// It is lenient about plugin versions (unknown fields are ignored, older
// shapes are accepted) and strict about integrity: a malformed file or line
// is reported as an *ArtifactError naming the file and line, never skipped.
package swarm

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
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
)

// MaxFileSize is the largest artifact read, in bytes. Real plugin files stay
// far below it (the plugin caps its own logs at 2 MiB); a larger file is
// refused before it is read.
const MaxFileSize = 64 << 20

// ArtifactError is a problem with one artifact file: unreadable, too large,
// or malformed at a given line.
type ArtifactError struct {
	Path string // repository-relative, e.g. .swarm/plan-ledger.jsonl
	Line int    // 1-based; 0 when the problem is not at a line
	Err  error
}

func (e *ArtifactError) Error() string {
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

	Events    *EventLog
	EventsErr error

	Evidence *Evidence // never nil after Load

	Scopes *Scopes // never nil after Load

	// Spec is the content of .swarm/spec.md; HasSpec says whether it exists.
	Spec    []byte
	HasSpec bool
	SpecErr error
}

// Load reads the .swarm/ artifacts of one tree. It never fails as a whole:
// each artifact's problem is kept beside it (PlanErr, LedgerErr, ...).
func Load(fsys fs.FS) *Artifacts {
	a := &Artifacts{Evidence: &Evidence{}, Scopes: &Scopes{}}
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
		a.Evidence.DirErr, a.Scopes.DirErr = bad, bad
		return a
	default:
		return a
	}
	if data, err := readArtifact(fsys, PlanPath); err != nil {
		a.PlanErr = nilIfNotExist(err)
	} else {
		a.Plan, a.PlanErr = ParsePlan(PlanPath, data)
	}
	if data, err := readArtifact(fsys, LedgerPath); err != nil {
		a.LedgerErr = nilIfNotExist(err)
	} else {
		a.Ledger, a.LedgerErr = ParseLedger(LedgerPath, data)
	}
	if data, err := readArtifact(fsys, EventsPath); err != nil {
		a.EventsErr = nilIfNotExist(err)
	} else {
		a.Events, a.EventsErr = ParseEventLog(EventsPath, data)
	}
	a.Evidence = loadEvidence(fsys)
	a.Scopes = loadScopes(fsys)
	if data, err := readArtifact(fsys, SpecPath); err != nil {
		a.SpecErr = nilIfNotExist(err)
	} else {
		a.Spec, a.HasSpec = data, true
	}
	return a
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
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
func readArtifact(fsys fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, &ArtifactError{Path: name, Err: unwrapPath(err)}
	}
	if info.IsDir() {
		return nil, &ArtifactError{Path: name, Err: errors.New("is a directory, expected a file")}
	}
	if info.Size() > MaxFileSize {
		return nil, &ArtifactError{Path: name, Err: fmt.Errorf("is %d bytes, over the %d-byte limit; refusing to read it", info.Size(), MaxFileSize)}
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &ArtifactError{Path: name, Err: unwrapPath(err)}
	}
	return data, nil
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

// trimBOM drops a leading UTF-8 byte order mark, which editors on Windows
// add and which carries no content.
func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}
