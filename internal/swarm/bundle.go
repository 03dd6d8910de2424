package swarm

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Phase-level evidence files the plugin writes under .swarm/evidence/{phase}/
// (spec section 8.1), by file name without ".json".
const (
	PhaseDriftVerifier      = "drift-verifier"
	PhaseCompletionVerify   = "completion-verify"
	PhaseHallucinationGuard = "hallucination-guard"
	PhaseMutationGate       = "mutation-gate"
	PhaseCouncil            = "phase-council"
)

// FinalCouncilPath is the final council's evidence file (no phase folder).
const FinalCouncilPath = EvidenceDir + "/final-council.json"

var (
	phaseFileNames = map[string]bool{PhaseDriftVerifier: true, PhaseCompletionVerify: true, PhaseHallucinationGuard: true, PhaseMutationGate: true, PhaseCouncil: true}
	retroDirName   = regexp.MustCompile(`^retro-(\d+)$`)
	phaseDirName   = regexp.MustCompile(`^\d+$`)
)

// PhaseEvidencePath is the path of a phase-level evidence file, e.g.
// PhaseEvidencePath(2, PhaseDriftVerifier) = ".swarm/evidence/2/drift-verifier.json".
func PhaseEvidencePath(phase int, name string) string {
	return EvidenceDir + "/" + strconv.Itoa(phase) + "/" + name + ".json"
}

// TaskBundlePath is the path of a task's evidence bundle,
// .swarm/evidence/{taskId}/evidence.json.
func TaskBundlePath(taskID string) string { return EvidenceDir + "/" + taskID + "/evidence.json" }

// RetroPath is the path of the retrospective bundle retro-{n}.
func RetroPath(n int) string { return EvidenceDir + "/retro-" + strconv.Itoa(n) + "/evidence.json" }

// isBundlePath reports whether a file under .swarm/evidence is one that
// loadEvidence parses as an EvidenceBundle: a task's or a retrospective's
// {name}/evidence.json, a phase gate file {phase}/{name}.json, or
// final-council.json. Tool bundles (placeholder_scan/evidence.json, ...) and
// the copies Finder and iCloud make ("drift-verifier 2.json") are listed
// but not read.
func isBundlePath(p string) bool {
	rel, ok := strings.CutPrefix(p, EvidenceDir+"/")
	if !ok {
		return false
	}
	if rel == "final-council.json" {
		return true
	}
	dir, file, ok := strings.Cut(rel, "/")
	if !ok || strings.Contains(file, "/") {
		return false
	}
	if file == "evidence.json" {
		return taskIDPattern.MatchString(dir) || retroDirName.MatchString(dir)
	}
	name, ok := strings.CutSuffix(file, ".json")
	return ok && phaseDirName.MatchString(dir) && phaseFileNames[name]
}

// EvidenceBundle is one evidence file of the plugin's EvidenceBundle family
// (src/config/evidence-schema.ts, spec section 8.1): {schema_version,
// task_id, entries:[{type, verdict, summary, timestamp, agent, ...}],
// created_at, updated_at}, as written for tasks ({taskId}/evidence.json),
// retrospectives (retro-N/evidence.json) and the phase gates
// ({phase}/drift-verifier.json, completion-verify.json,
// hallucination-guard.json, mutation-gate.json, phase-council.json,
// final-council.json, which may carry only {entries}).
//
// Two real variants are kept as well: a top-level "verdict" (the older
// drift-verifier.json of IMU-Parkinson, and saleor-tma-frontend's 1.4 bundle)
// and top-level gate objects with a verdict ({"reviewer":{"verdict":
// "APPROVED"}, "test_engineer":{"verdict":"PASS"}} in saleor-tma-frontend).
type EvidenceBundle struct {
	Path          string
	SchemaVersion string
	TaskID        string
	// Verdict is the top-level "verdict" string; HasVerdict says whether
	// there is one.
	Verdict     string
	HasVerdict  bool
	VerdictLine int
	Entries     []EvidenceEntry
	// Gates are the top-level members whose value is an object with a
	// string "verdict" (or "result"), in file order.
	Gates []GateRecord
}

// EvidenceEntry is one element of a bundle's entries array. Fields of an
// unexpected type read as absent (the plugin ignores such entries too).
type EvidenceEntry struct {
	Index int // 0-based position in entries
	Line  int // line of the entry object in the file
	Type  string
	// Verdict is the entry's "verdict"; HasVerdict is false when it is
	// absent or not a string (the plugin's gates skip such entries).
	Verdict    string
	HasVerdict bool
	Summary    string
	Agent      string
	Timestamp  string
	TaskID     string
	Value      *jsjson.Value
}

// Str returns a string field of the entry ("" when absent or not a string).
func (e *EvidenceEntry) Str(key string) string {
	s, _ := e.Value.Get(key).AsString()
	return s
}

// Int returns a whole-number field of the entry.
func (e *EvidenceEntry) Int(key string) (int, bool) { return e.Value.Get(key).AsInt() }

// Num returns a number field of the entry.
func (e *EvidenceEntry) Num(key string) (float64, bool) {
	v := e.Value.Get(key)
	if v == nil || v.Kind != jsjson.Number {
		return 0, false
	}
	return v.Num, true
}

// Strings returns the string elements of an array field, skipping others
// (nil when the field is absent or not an array).
func (e *EvidenceEntry) Strings(key string) []string {
	v := e.Value.Get(key)
	if v == nil || v.Kind != jsjson.Array {
		return nil
	}
	out := make([]string, 0, len(v.Elems))
	for _, el := range v.Elems {
		if s, ok := el.AsString(); ok {
			out = append(out, s)
		}
	}
	return out
}

// Len returns the length of an array field (0 when absent or not an array).
func (e *EvidenceEntry) Len(key string) int {
	if v := e.Value.Get(key); v != nil && v.Kind == jsjson.Array {
		return len(v.Elems)
	}
	return 0
}

// Has reports whether the entry has the field (with any value).
func (e *EvidenceEntry) Has(key string) bool { return e.Value.Has(key) }

// TaskVerdict is one per-task drift verdict recorded in a structured field
// of a drift-verifier entry.
type TaskVerdict struct {
	TaskID  string
	Verdict string // as written, e.g. ALIGNED, MINOR_DRIFT, MAJOR_DRIFT, OFF_SPEC
}

// taskVerdictKeys are the fields a drift-verifier entry may record per-task
// verdicts in. No committed plugin version writes one yet (the critic puts
// them in the summary, which is not read); they are accepted so that
// structured verdicts are checked the day they appear.
var taskVerdictKeys = []string{"task_verdicts", "taskVerdicts", "tasks", "per_task"}

// TaskVerdicts returns the per-task verdicts of a drift-verifier entry: an
// array of {task_id|taskId|id, verdict|alignment} objects or an object
// mapping task ids to a verdict string (or to an object with a verdict),
// under task_verdicts, taskVerdicts, tasks or per_task. Elements without a
// task id or a verdict string are skipped.
func (e *EvidenceEntry) TaskVerdicts() []TaskVerdict {
	var out []TaskVerdict
	verdictOf := func(v *jsjson.Value) (string, bool) {
		if s, ok := v.AsString(); ok {
			return s, true
		}
		for _, k := range []string{"verdict", "alignment"} {
			if s, ok := v.Get(k).AsString(); ok {
				return s, true
			}
		}
		return "", false
	}
	for _, key := range taskVerdictKeys {
		v := e.Value.Get(key)
		switch {
		case v == nil:
			continue
		case v.Kind == jsjson.Array:
			for _, el := range v.Elems {
				id := ""
				for _, k := range []string{"task_id", "taskId", "id"} {
					if s, ok := el.Get(k).AsString(); ok {
						id = s
						break
					}
				}
				if verdict, ok := verdictOf(el); ok && id != "" && el.Kind == jsjson.Object {
					out = append(out, TaskVerdict{TaskID: id, Verdict: verdict})
				}
			}
		case v.Kind == jsjson.Object:
			for _, m := range v.Members {
				if verdict, ok := verdictOf(m.Value); ok {
					out = append(out, TaskVerdict{TaskID: m.Key, Verdict: verdict})
				}
			}
		}
	}
	return out
}

// ParseEvidenceBundle parses one evidence bundle or phase gate file. The
// file must be a JSON object; "entries", when present, must be an array of
// objects. Other fields are read when they have the expected type; unknown
// fields are ignored. A leading byte order mark is dropped. Errors are
// *ArtifactError with the line of the offending value.
func ParseEvidenceBundle(name string, data []byte) (*EvidenceBundle, error) {
	data = trimBOM(data)
	v, err := jsjson.Parse(data)
	if err != nil {
		var se *jsjson.SyntaxError
		if errors.As(err, &se) {
			return nil, &ArtifactError{Path: name, Line: se.Line, Err: errors.New(se.Msg)}
		}
		return nil, &ArtifactError{Path: name, Err: err}
	}
	lines := jsjson.NewLineIndex(data)
	fail := func(v *jsjson.Value, format string, args ...any) error {
		return &ArtifactError{Path: name, Line: lines.Line(v.Offset), Err: fmt.Errorf(format, args...)}
	}
	if v.Kind != jsjson.Object {
		return nil, fail(v, "want a JSON object (an evidence bundle), found %s", v.Kind)
	}
	b := &EvidenceBundle{Path: name}
	b.SchemaVersion, _ = v.Get("schema_version").AsString()
	b.TaskID, _ = v.Get("task_id").AsString()
	if vv := v.Get("verdict"); vv != nil {
		b.Verdict, b.HasVerdict = vv.AsString()
		b.VerdictLine = lines.Line(vv.Offset)
	}
	if ev := v.Get("entries"); ev != nil {
		if ev.Kind != jsjson.Array {
			return nil, fail(ev, `"entries" must be an array, found %s`, ev.Kind)
		}
		for i, el := range ev.Elems {
			if el.Kind != jsjson.Object {
				return nil, fail(el, "entries[%d] must be an object, found %s", i, el.Kind)
			}
			e := EvidenceEntry{Index: i, Line: lines.Line(el.Offset), Value: el}
			e.Type, _ = el.Get("type").AsString()
			e.Verdict, e.HasVerdict = el.Get("verdict").AsString()
			e.Summary, _ = el.Get("summary").AsString()
			e.Agent, _ = el.Get("agent").AsString()
			e.Timestamp, _ = el.Get("timestamp").AsString()
			e.TaskID, _ = el.Get("task_id").AsString()
			b.Entries = append(b.Entries, e)
		}
	}
	for _, m := range v.Members {
		if m.Key == "entries" || m.Value.Kind != jsjson.Object {
			continue
		}
		verdict, ok := m.Value.Get("verdict").AsString()
		if !ok {
			if verdict, ok = m.Value.Get("result").AsString(); !ok {
				continue
			}
		}
		g := GateRecord{Name: m.Key, Verdict: verdict, Line: lines.Line(m.Value.Offset), Value: m.Value}
		g.Agent, _ = m.Value.Get("agent").AsString()
		g.Timestamp, _ = m.Value.Get("timestamp").AsString()
		if g.Timestamp == "" {
			g.Timestamp, _ = v.Get("timestamp").AsString()
		}
		b.Gates = append(b.Gates, g)
	}
	return b, nil
}
