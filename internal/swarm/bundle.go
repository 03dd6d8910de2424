package swarm

import (
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

// taskBundleID returns the task id of a task bundle path
// (.swarm/evidence/{taskId}/evidence.json with a valid task id).
func taskBundleID(p string) (string, bool) {
	rel, ok := strings.CutPrefix(p, EvidenceDir+"/")
	if !ok {
		return "", false
	}
	dir, file, ok := strings.Cut(rel, "/")
	if !ok || file != "evidence.json" || !taskIDPattern.MatchString(dir) {
		return "", false
	}
	return dir, true
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
	// DuplicateKeys are keys repeated in one object: see
	// Plan.DuplicateKeys.
	DuplicateKeys []DuplicateKey
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
	// VerdictInvalid is the "verdict" as JSON when it is present but not a
	// string (false, null, ["rejected"], ...), else "".
	VerdictInvalid string
	Summary        string
	Agent          string
	Timestamp      string
	TaskID         string
	Value          *jsjson.Value

	lines *jsjson.LineIndex
	src   []byte
}

// FieldLine returns the line of a field's value in the file, or the entry's
// line when the field is absent.
func (e *EvidenceEntry) FieldLine(key string) int {
	if v := e.Value.Get(key); v != nil && e.lines != nil {
		return e.lines.Line(v.Offset)
	}
	return e.Line
}

// line returns the line of a value of the entry.
func (e *EvidenceEntry) line(v *jsjson.Value) int {
	if v == nil || e.lines == nil {
		return e.Line
	}
	return e.lines.Line(v.Offset)
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
// of a drift-verifier entry, or an element of such a field that cannot be
// read as one (Problem set).
type TaskVerdict struct {
	TaskID  string
	Verdict string // as written, e.g. ALIGNED, MINOR_DRIFT, MAJOR_DRIFT, OFF_SPEC
	// Field names the element, e.g. task_verdicts[2] or tasks["1.2"].
	Field string
	Line  int // line of the element in the file
	// Problem says why the element is not a usable verdict (no task id, an
	// id that is a JSON number whose text does not survive being read as
	// one, no verdict, ...); "" for a usable one.
	Problem string
}

// taskVerdictKeys are the fields a drift-verifier entry may record per-task
// verdicts in. No committed plugin version writes one yet (the critic puts
// them in the summary, which is not read); they are accepted so that
// structured verdicts are checked the day they appear.
var taskVerdictKeys = []string{"task_verdicts", "taskVerdicts", "tasks", "per_task"}

// TaskVerdicts returns the per-task verdicts of a drift-verifier entry: an
// array of {task_id|taskId|id, verdict|alignment} objects or an object
// mapping task ids to a verdict string (or to an object with a verdict),
// under task_verdicts, taskVerdicts, tasks or per_task. Nothing is skipped
// silently: an element without a usable task id or verdict string is
// returned with Problem set. The one exception is "tasks", a name an entry
// may use for the list of tasks it checked: there, elements that are not
// objects with a verdict (and a value that is neither an array nor an
// object) are not verdicts and are skipped. A task id written as a JSON number (1.2) is
// read as JavaScript renders it ("1.2"); one whose text does not survive
// that (1.10 reads as 1.1, 2.0 as 2) is a Problem, since the id it meant
// is ambiguous.
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
		strict := key != "tasks"
		switch {
		case v == nil:
			continue
		case v.Kind == jsjson.Array:
			for i, el := range v.Elems {
				tv := TaskVerdict{Field: fmt.Sprintf("%s[%d]", key, i), Line: e.line(el)}
				if _, hasVerdict := verdictOf(el); !strict && (el.Kind != jsjson.Object || !hasVerdict) {
					continue
				}
				if el.Kind != jsjson.Object {
					tv.Problem = fmt.Sprintf("%s is a %s, not an object {task_id, verdict}", tv.Field, el.Kind)
					out = append(out, tv)
					continue
				}
				idKey := ""
				var idv *jsjson.Value
				for _, k := range []string{"task_id", "taskId", "id"} {
					if x := el.Get(k); x != nil {
						idKey, idv = k, x
						break
					}
				}
				verdict, hasVerdict := verdictOf(el)
				tv.Verdict = verdict
				switch {
				case idv == nil:
					tv.Problem = fmt.Sprintf("%s has no task id (task_id, taskId or id)", tv.Field)
				case idv.Kind == jsjson.String:
					tv.TaskID = idv.Str
				case idv.Kind == jsjson.Number:
					tv.TaskID, tv.Problem = e.numberID(idv, tv.Field+"."+idKey)
				default:
					tv.Problem = fmt.Sprintf("%s.%s is a %s, not a task id string", tv.Field, idKey, idv.Kind)
				}
				if tv.Problem == "" && !hasVerdict {
					tv.Problem = fmt.Sprintf("%s (task %s) has no verdict string (verdict or alignment)", tv.Field, tv.TaskID)
				}
				out = append(out, tv)
			}
		case v.Kind == jsjson.Object:
			for _, m := range v.Members {
				tv := TaskVerdict{TaskID: m.Key, Field: fmt.Sprintf("%s[%q]", key, m.Key), Line: e.line(m.Value)}
				var ok bool
				if tv.Verdict, ok = verdictOf(m.Value); !ok && !strict {
					continue
				} else if !ok {
					tv.Problem = fmt.Sprintf("%s has no verdict string (a string, or an object with verdict or alignment)", tv.Field)
				}
				out = append(out, tv)
			}
		case strict:
			out = append(out, TaskVerdict{Field: key, Line: e.line(v), Problem: fmt.Sprintf("%s is a %s, not an array or object of per-task verdicts", key, v.Kind)})
		}
	}
	return out
}

// numberID reads a task id written as a JSON number as JavaScript's
// String(n) renders it; the id is ambiguous (a Problem) when the number's
// text in the file is not that rendering (1.10 is 1.1 to JavaScript).
func (e *EvidenceEntry) numberID(v *jsjson.Value, field string) (id, problem string) {
	id = string(jsjson.AppendNumber(nil, v.Num))
	raw := id
	if e.src != nil && v.Offset < len(e.src) {
		end := v.Offset
		for end < len(e.src) && strings.IndexByte("+-0123456789.eE", e.src[end]) >= 0 {
			end++
		}
		raw = string(e.src[v.Offset:end])
	}
	switch {
	case raw != id:
		return "", fmt.Sprintf("%s is the JSON number %s, which reads as %s: the task id is ambiguous; write it as a string (\"%s\")", field, raw, id, raw)
	case !taskIDPattern.MatchString(id):
		return "", fmt.Sprintf("%s is the JSON number %s, which is not a task id (N.N)", field, raw)
	}
	return id, ""
}

// ParseEvidenceBundle parses one evidence bundle or phase gate file. The
// file must be a JSON object; "entries", when present, must be an array of
// objects. Other fields are read when they have the expected type; unknown
// fields are ignored. A leading byte order mark is dropped. Errors are
// *ArtifactError with the line of the offending value.
func ParseEvidenceBundle(name string, data []byte) (*EvidenceBundle, error) {
	v, data, err := parseJSONFile(name, data)
	if err != nil {
		return nil, err
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
	if id, ok := taskBundleID(name); ok {
		// A task's bundle must be about that task, as a gate file must
		// (ParseTaskGates): evidence of another task does not count.
		if tv := v.Get("task_id"); tv != nil && (tv.Kind != jsjson.String || tv.Str != id) {
			return nil, fail(tv, "task_id %s does not match the folder name %s (this is %s's evidence bundle)", jsonText(tv), id, id)
		}
		if ev := v.Get("entries"); ev != nil && ev.Kind == jsjson.Array {
			for i, el := range ev.Elems {
				if tv := el.Get("task_id"); tv != nil && (tv.Kind != jsjson.String || tv.Str != id) {
					return nil, fail(tv, "entries[%d].task_id %s does not match the folder name %s (this is %s's evidence bundle)", i, jsonText(tv), id, id)
				}
			}
		}
	}
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
			e := EvidenceEntry{Index: i, Line: lines.Line(el.Offset), Value: el, lines: lines, src: data}
			e.Type, _ = el.Get("type").AsString()
			e.Verdict, e.HasVerdict = el.Get("verdict").AsString()
			if vv := el.Get("verdict"); vv != nil && !e.HasVerdict {
				e.VerdictInvalid = jsonText(vv)
			}
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
		if !m.Value.Has("verdict") {
			if _, ok := m.Value.Get("result").AsString(); !ok {
				continue
			}
		}
		g := GateRecord{Name: m.Key, Line: lines.Line(m.Value.Offset), Value: m.Value}
		g.readVerdict(lines)
		g.Agent, _ = m.Value.Get("agent").AsString()
		g.Timestamp, _ = m.Value.Get("timestamp").AsString()
		if g.Timestamp == "" {
			g.Timestamp, _ = v.Get("timestamp").AsString()
		}
		b.Gates = append(b.Gates, g)
	}
	b.DuplicateKeys = duplicateKeys(v, lines)
	return b, nil
}
