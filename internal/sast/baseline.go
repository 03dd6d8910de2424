package sast

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Baseline schema versions (spec section 7.2).
const (
	// SchemaLegacy baselines are read-only: exact fingerprint matching only.
	SchemaLegacy = "1.0.0"
	// SchemaReflow baselines carry reflow_keys aligned with fingerprints and
	// a triage_log.
	SchemaReflow = "1.1.0"
)

// ErrInvalidSchema marks a baseline the plugin's loadBaseline rejects as
// "invalid_schema" (the scan then falls back to legacy mode): unparseable
// JSON, an unknown schema_version, a missing fingerprints array, or
// reflow_keys not aligned 1:1 with fingerprints.
var ErrInvalidSchema = errors.New("invalid_schema")

// BaselinePath is the repository-relative path of a phase's baseline,
// .swarm/evidence/{phase}/sast-baseline.json.
func BaselinePath(phase int) string {
	return swarm.EvidenceDir + "/" + strconv.Itoa(phase) + "/sast-baseline.json"
}

// Baseline is a parsed .swarm/evidence/{phase}/sast-baseline.json.
type Baseline struct {
	Path          string
	SchemaVersion string // SchemaLegacy or SchemaReflow
	Phase         int    // 0 when absent or not an integer
	CreatedAt     string
	UpdatedAt     string
	Engine        string // "tier_a" or "tier_a+tier_b"
	FilesIndexed  []string
	Fingerprints  []string
	// ReflowKeys is aligned 1:1 with Fingerprints ("" for unstable
	// entries). It is nil for a 1.0.0 file and for a 1.1.0 file without
	// reflow_keys (or with null): such a baseline matches exactly only.
	ReflowKeys []string
	// Snapshot is findings_snapshot. File is location.file as the plugin
	// wrote it (an absolute path for Tier A findings); Line and Column are 0
	// when absent.
	Snapshot  []Finding
	TriageLog []TriageEntry
	Truncated bool

	fpSet map[string]bool // set by ParseBaseline; read-only after
}

// TriageEntry is one triage_log entry: a finding a capture absorbed into the
// baseline under a rationale.
type TriageEntry struct {
	Fingerprint string
	RelFile     string
	RuleID      string
	Rationale   string
	Actor       string // session id or "unknown-session"
	AbsorbedAt  string // ISO timestamp
	Line        int    // where the entry starts in the baseline file
}

// Has reports whether fp is one of the baseline's fingerprints.
func (b *Baseline) Has(fp string) bool {
	if b == nil {
		return false
	}
	if b.fpSet != nil {
		return b.fpSet[fp]
	}
	return slices.Contains(b.Fingerprints, fp)
}

// fingerprintSet is the baseline's fingerprints as a set.
func (b *Baseline) fingerprintSet() map[string]bool {
	if b.fpSet != nil {
		return b.fpSet
	}
	set := make(map[string]bool, len(b.Fingerprints))
	for _, f := range b.Fingerprints {
		set[f] = true
	}
	return set
}

// LoadBaseline reads a phase's baseline from a tree. It returns nil, nil when
// the file does not exist; any other problem is an *swarm.ArtifactError.
func LoadBaseline(fsys fs.FS, phase int) (*Baseline, error) {
	name := BaselinePath(phase)
	info, err := fs.Stat(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, &swarm.ArtifactError{Path: name, Err: pathless(err)}
	}
	if info.IsDir() {
		return nil, &swarm.ArtifactError{Path: name, Err: errors.New("is a directory, expected a file")}
	}
	if info.Size() > swarm.MaxFileSize {
		return nil, &swarm.ArtifactError{Path: name, Err: fmt.Errorf("is %d bytes, over the %d-byte limit; refusing to read it", info.Size(), swarm.MaxFileSize)}
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &swarm.ArtifactError{Path: name, Err: pathless(err)}
	}
	return ParseBaseline(name, data)
}

func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseBaseline parses a baseline file; name is its repository-relative path
// for errors. It accepts what the plugin's loadBaseline accepts and rejects
// what it rejects, with errors wrapping ErrInvalidSchema. It is stricter in
// one way: fields the plugin ignores when loading (triage_log,
// findings_snapshot, files_indexed, ...) must have their documented types
// when present, since a baseline is policy and a malformed one should be
// fixed rather than half-used. Errors are *swarm.ArtifactError with the line
// of the offending value.
//
// Like the plugin's JSON.parse, it refuses a leading byte order mark.
func ParseBaseline(name string, data []byte) (*Baseline, error) {
	p := &baselineParser{name: name, data: data}
	return p.parse()
}

type baselineParser struct {
	name string
	data []byte
	idx  *jsjson.LineIndex
}

func (p *baselineParser) errAt(v *jsjson.Value, schema bool, format string, args ...any) error {
	line := 1
	if v != nil {
		if p.idx == nil {
			p.idx = jsjson.NewLineIndex(p.data)
		}
		line = p.idx.Line(v.Offset)
	}
	err := fmt.Errorf(format, args...)
	if schema {
		err = fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return &swarm.ArtifactError{Path: p.name, Line: line, Err: err}
}

func (p *baselineParser) parse() (*Baseline, error) {
	if len(p.data) >= 3 && p.data[0] == 0xef && p.data[1] == 0xbb && p.data[2] == 0xbf {
		return nil, &swarm.ArtifactError{Path: p.name, Line: 1, Err: fmt.Errorf("%w: starts with a byte order mark, which the plugin's JSON.parse rejects; save the file as UTF-8 without a BOM", ErrInvalidSchema)}
	}
	root, err := jsjson.Parse(p.data)
	if err != nil {
		var se *jsjson.SyntaxError
		if errors.As(err, &se) {
			return nil, &swarm.ArtifactError{Path: p.name, Line: se.Line, Err: fmt.Errorf("%w: %s", ErrInvalidSchema, se.Msg)}
		}
		return nil, &swarm.ArtifactError{Path: p.name, Err: fmt.Errorf("%w: %w", ErrInvalidSchema, err)}
	}
	if root.Kind != jsjson.Object {
		return nil, p.errAt(root, true, "want a JSON object, found %s", root.Kind)
	}
	b := &Baseline{Path: p.name}

	sv := root.Get("schema_version")
	b.SchemaVersion, _ = sv.AsString()
	if b.SchemaVersion != SchemaLegacy && b.SchemaVersion != SchemaReflow {
		if sv == nil {
			return nil, p.errAt(root, true, "schema_version is missing (want %q or %q)", SchemaReflow, SchemaLegacy)
		}
		return nil, p.errAt(sv, true, "unknown schema_version %s (want %q or %q)", jsjson.Stringify(sv), SchemaReflow, SchemaLegacy)
	}

	fps := root.Get("fingerprints")
	if fps == nil || fps.Kind != jsjson.Array {
		return nil, p.errAt(orRoot(fps, root), true, "fingerprints must be an array")
	}
	if b.Fingerprints, err = p.strings(fps, "fingerprints", true); err != nil {
		return nil, err
	}

	if b.SchemaVersion == SchemaReflow {
		if rk := root.Get("reflow_keys"); rk != nil && rk.Kind != jsjson.Null {
			if rk.Kind != jsjson.Array {
				return nil, p.errAt(rk, true, "reflow_keys must be a string array aligned 1:1 with fingerprints, found %s", rk.Kind)
			}
			if b.ReflowKeys, err = p.strings(rk, "reflow_keys", true); err != nil {
				return nil, err
			}
			if len(b.ReflowKeys) != len(b.Fingerprints) {
				return nil, p.errAt(rk, true, "reflow_keys has %d entries but fingerprints has %d; they must be aligned 1:1 (recapture the baseline)", len(b.ReflowKeys), len(b.Fingerprints))
			}
			if b.ReflowKeys == nil {
				b.ReflowKeys = []string{}
			}
		}
	}

	if v := root.Get("phase"); v != nil {
		if n, ok := v.AsInt(); ok {
			b.Phase = n
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"created_at", &b.CreatedAt}, {"updated_at", &b.UpdatedAt}, {"engine", &b.Engine}} {
		if err := p.optString(root, f.key, f.dst); err != nil {
			return nil, err
		}
	}
	if v := root.Get("truncated"); v != nil && v.Kind != jsjson.Null {
		if v.Kind != jsjson.Bool {
			return nil, p.errAt(v, false, "truncated must be a boolean, found %s", v.Kind)
		}
		b.Truncated = v.Bool
	}
	if v := root.Get("files_indexed"); v != nil && v.Kind != jsjson.Null {
		if v.Kind != jsjson.Array {
			return nil, p.errAt(v, false, "files_indexed must be an array of paths, found %s", v.Kind)
		}
		if b.FilesIndexed, err = p.strings(v, "files_indexed", false); err != nil {
			return nil, err
		}
	}
	if b.Snapshot, err = p.snapshot(root.Get("findings_snapshot")); err != nil {
		return nil, err
	}
	if b.TriageLog, err = p.triage(root.Get("triage_log")); err != nil {
		return nil, err
	}
	b.fpSet = b.fingerprintSet()
	return b, nil
}

func orRoot(v, root *jsjson.Value) *jsjson.Value {
	if v != nil {
		return v
	}
	return root
}

func (p *baselineParser) strings(arr *jsjson.Value, field string, schema bool) ([]string, error) {
	var out []string
	for i, e := range arr.Elems {
		s, ok := e.AsString()
		if !ok {
			return nil, p.errAt(e, schema, "%s[%d] must be a string, found %s", field, i, e.Kind)
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *baselineParser) optString(obj *jsjson.Value, key string, dst *string) error {
	v := obj.Get(key)
	if v == nil || v.Kind == jsjson.Null {
		return nil
	}
	s, ok := v.AsString()
	if !ok {
		return p.errAt(v, false, "%s must be a string, found %s", key, v.Kind)
	}
	*dst = s
	return nil
}

func (p *baselineParser) optInt(obj *jsjson.Value, key string, dst *int) error {
	v := obj.Get(key)
	if v == nil || v.Kind == jsjson.Null {
		return nil
	}
	n, ok := v.AsInt()
	if !ok {
		return p.errAt(v, false, "%s must be an integer, found %s", key, jsjson.Stringify(v))
	}
	*dst = n
	return nil
}

func (p *baselineParser) snapshot(v *jsjson.Value) ([]Finding, error) {
	if v == nil || v.Kind == jsjson.Null {
		return nil, nil
	}
	if v.Kind != jsjson.Array {
		return nil, p.errAt(v, false, "findings_snapshot must be an array, found %s", v.Kind)
	}
	out := make([]Finding, 0, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != jsjson.Object {
			return nil, p.errAt(e, false, "findings_snapshot[%d] must be an object, found %s", i, e.Kind)
		}
		var f Finding
		var sev string
		for _, fld := range []struct {
			key string
			dst *string
		}{{"rule_id", &f.RuleID}, {"severity", &sev}, {"message", &f.Message}, {"remediation", &f.Remediation}} {
			if err := p.optString(e, fld.key, fld.dst); err != nil {
				return nil, err
			}
		}
		f.Severity = Severity(sev)
		if loc := e.Get("location"); loc != nil && loc.Kind != jsjson.Null {
			if loc.Kind != jsjson.Object {
				return nil, p.errAt(loc, false, "findings_snapshot[%d].location must be an object, found %s", i, loc.Kind)
			}
			if err := p.optString(loc, "file", &f.File); err != nil {
				return nil, err
			}
			if err := p.optInt(loc, "line", &f.Line); err != nil {
				return nil, err
			}
			if err := p.optInt(loc, "column", &f.Column); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func (p *baselineParser) triage(v *jsjson.Value) ([]TriageEntry, error) {
	if v == nil || v.Kind == jsjson.Null {
		return nil, nil
	}
	if v.Kind != jsjson.Array {
		return nil, p.errAt(v, false, "triage_log must be an array, found %s", v.Kind)
	}
	out := make([]TriageEntry, 0, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != jsjson.Object {
			return nil, p.errAt(e, false, "triage_log[%d] must be an object, found %s", i, e.Kind)
		}
		if p.idx == nil {
			p.idx = jsjson.NewLineIndex(p.data)
		}
		t := TriageEntry{Line: p.idx.Line(e.Offset)}
		for _, fld := range []struct {
			key string
			dst *string
		}{{"fingerprint", &t.Fingerprint}, {"rel_file", &t.RelFile}, {"rule_id", &t.RuleID},
			{"rationale", &t.Rationale}, {"actor", &t.Actor}, {"absorbed_at", &t.AbsorbedAt}} {
			if err := p.optString(e, fld.key, fld.dst); err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}
