package swarm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// SpecStaleness is .swarm/spec-staleness.json, the marker the plugin writes
// when spec.md changed after the plan was saved ({type:
// "spec_stale_detected", timestamp, phase, specHash_plan, specHash_current,
// reason, planTitle}). The plugin's gate is existence-only: while the file
// exists, save_plan, update_task_status and phase_complete are refused,
// whatever it holds. Fields of another type than expected read as empty.
type SpecStaleness struct {
	Path            string
	Timestamp       string
	Phase           int
	SpecHashPlan    string
	SpecHashCurrent string
	Reason          string
	PlanTitle       string
}

// ParseSpecStaleness parses the staleness marker. Because the marker counts
// by existing, it always returns a non-nil *SpecStaleness naming the file:
// on error (not JSON, or not a JSON object) it holds only Path. Errors are
// *ArtifactError.
func ParseSpecStaleness(name string, data []byte) (*SpecStaleness, error) {
	s := &SpecStaleness{Path: name}
	v, data, err := parseJSONFile(name, data)
	if err != nil {
		return s, err
	}
	if v.Kind != jsjson.Object {
		return s, &ArtifactError{Path: name, Line: jsjson.Line(data, v.Offset), Err: errors.New("want a JSON object, found " + v.Kind.String())}
	}
	s.Timestamp, _ = v.Get("timestamp").AsString()
	s.Phase, _ = v.Get("phase").AsInt()
	s.SpecHashPlan, _ = v.Get("specHash_plan").AsString()
	s.SpecHashCurrent, _ = v.Get("specHash_current").AsString()
	s.Reason, _ = v.Get("reason").AsString()
	s.PlanTitle, _ = v.Get("planTitle").AsString()
	return s, nil
}

// SpecHash is the plugin's hash of .swarm/spec.md content
// (computeSpecHash in src/utils/spec-hash.ts): SHA-256, lower-case hex, of
// the file read as UTF-8 text, so bytes that are not valid UTF-8 are hashed
// as Node decodes them (jsjson.NodeUTF8) and a BOM is kept.
func SpecHash(content []byte) string {
	sum := sha256.Sum256(jsjson.NodeUTF8(content))
	return hex.EncodeToString(sum[:])
}
