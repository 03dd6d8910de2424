package swarm

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// maxEvidenceFiles bounds how many files under .swarm/evidence are listed.
const maxEvidenceFiles = 20000

// taskIDPattern is the task id form the plugin's tools enforce.
var taskIDPattern = regexp.MustCompile(`^\d+(\.\d+)+$`)

// TaskIDPattern is the task id form the plugin's tools enforce (N.N, N.N.N,
// ...), as text for messages.
const TaskIDPattern = `^\d+(\.\d+)+$`

// ValidTaskID reports whether id has the form the plugin's tools enforce
// (TaskIDPattern): only such ids have evidence files the plugin reads.
func ValidTaskID(id string) bool { return taskIDPattern.MatchString(id) }

// Evidence is what .swarm/evidence/ holds. The per-task gate files
// ({taskId}.json, the plugin's src/gate-evidence.ts) and the evidence
// bundles the gates read (see isBundlePath: {taskId}/evidence.json,
// retro-N/evidence.json, the phase gate files {phase}/drift-verifier.json,
// completion-verify.json, hallucination-guard.json, mutation-gate.json,
// phase-council.json, and final-council.json) are parsed; every other file
// is listed by path.
type Evidence struct {
	// DirErr is set when the evidence folder exists but cannot be listed.
	DirErr error
	// Files is every regular file under .swarm/evidence, repository-relative,
	// sorted.
	Files []string
	// TaskGates maps a task id to its parsed .swarm/evidence/{taskId}.json.
	TaskGates map[string]*TaskGates
	// Bundles maps the path of each parsed evidence bundle to it.
	Bundles map[string]*EvidenceBundle
	// Broken maps the path of an evidence file that could not be read or
	// parsed to why.
	Broken map[string]error
}

// TaskGates is a per-task gate evidence file: {taskId, required_gates,
// gates:{<gate>:{sessionId, timestamp, agent, ...}}} (task_id is accepted for
// taskId), or the legacy flat form {task_id, type, ...} that records one
// gate.
type TaskGates struct {
	Path          string
	TaskID        string
	RequiredGates []string
	Gates         []GateRecord // in file order
	Legacy        bool
	// DuplicateKeys are keys repeated in one object (the plugin reads the
	// last, and never writes one twice): see Plan.DuplicateKeys.
	DuplicateKeys []DuplicateKey
}

// GateRecord is one entry of a gate evidence file's gates object (or the
// one record of a legacy flat file, or a top-level gate object of a bundle).
type GateRecord struct {
	Name      string
	Agent     string
	SessionID string
	Timestamp string
	// Verdict is the record's "verdict" string, else its "result" string
	// (test_engineer records carry "result": "PASS"), else "". The plugin
	// writes records without a verdict: their presence is the pass.
	Verdict string
	// VerdictInvalid is set when the record has a "verdict" that is not a
	// string (false, null, ["rejected"], {"status": ...}), or a "result"
	// that is a boolean, number or null: the value as JSON, shortened. Such
	// a record is neither a pass nor a rejection; the gates fail closed.
	VerdictInvalid string
	// VerdictLine is the line of the verdict (or result) field, else Line.
	VerdictLine int
	Line        int // line of the record in its file
	Value       *jsjson.Value
}

// Has reports whether gate has a record.
func (t *TaskGates) Has(gate string) bool {
	for _, g := range t.Gates {
		if g.Name == gate {
			return true
		}
	}
	return false
}

// TaskGateFile returns the gate evidence of a task: the parsed file, or the
// error that kept it from being read, or (nil, nil) when there is none.
func (e *Evidence) TaskGateFile(taskID string) (*TaskGates, error) {
	p := EvidenceDir + "/" + taskID + ".json"
	if err, ok := e.Broken[p]; ok {
		return nil, err
	}
	return e.TaskGates[taskID], nil
}

// Bundle returns a parsed evidence bundle by path: the bundle, or the error
// that kept it from being read, or (nil, nil) when there is none.
func (e *Evidence) Bundle(path string) (*EvidenceBundle, error) {
	if err, ok := e.Broken[path]; ok {
		return nil, err
	}
	return e.Bundles[path], nil
}

// RetroNumbers returns N for every retro-N/evidence.json present (parsed or
// broken), in ascending order.
func (e *Evidence) RetroNumbers() []int {
	var out []int
	for _, p := range e.Files {
		rel, _ := strings.CutPrefix(p, EvidenceDir+"/")
		dir, file, _ := strings.Cut(rel, "/")
		if m := retroDirName.FindStringSubmatch(dir); m != nil && file == "evidence.json" {
			if n, err := strconv.Atoi(m[1]); err == nil {
				out = append(out, n)
			}
		}
	}
	sort.Ints(out)
	return out
}

func loadEvidence(fsys fs.FS) *Evidence {
	e := &Evidence{TaskGates: map[string]*TaskGates{}, Bundles: map[string]*EvidenceBundle{}, Broken: map[string]error{}}
	err := fs.WalkDir(fsys, EvidenceDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == EvidenceDir {
				return err
			}
			if d != nil && d.IsDir() {
				// A folder that cannot be listed (a tree with an entry
				// git refuses): which evidence it holds is unknown.
				return &ArtifactError{Path: p, Err: fmt.Errorf("cannot list the folder: %v", unwrapPath(err))}
			}
			e.Broken[p] = &ArtifactError{Path: p, Err: err}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(e.Files) >= maxEvidenceFiles {
			return fmt.Errorf("more than %d files; refusing to list them all", maxEvidenceFiles)
		}
		e.Files = append(e.Files, p)
		return nil
	})
	var ae *ArtifactError
	switch {
	case errors.As(err, &ae):
		e.DirErr = ae
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		e.DirErr = &ArtifactError{Path: EvidenceDir, Err: err}
	}
	sort.Strings(e.Files)
	for _, p := range e.Files {
		if isBundlePath(p) {
			data, err := readArtifact(fsys, p)
			if err == nil {
				e.Bundles[p], err = ParseEvidenceBundle(p, data)
			}
			if err != nil {
				delete(e.Bundles, p)
				e.Broken[p] = err
			}
			continue
		}
		name := strings.TrimPrefix(p, EvidenceDir+"/")
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || strings.Contains(id, "/") || !taskIDPattern.MatchString(id) {
			continue
		}
		data, err := readArtifact(fsys, p)
		if err != nil {
			e.Broken[p] = err
			continue
		}
		tg, err := ParseTaskGates(p, data)
		if err != nil {
			e.Broken[p] = err
			continue
		}
		e.TaskGates[id] = tg
	}
	return e
}

// ParseTaskGates parses a per-task gate evidence file. The task id inside
// must match the file name ({taskId}.json). Errors are *ArtifactError.
func ParseTaskGates(name string, data []byte) (*TaskGates, error) {
	v, data, err := parseJSONFile(name, data)
	if err != nil {
		return nil, err
	}
	lines := jsjson.NewLineIndex(data)
	fail := func(v *jsjson.Value, format string, args ...any) error {
		line := 0
		if v != nil {
			line = lines.Line(v.Offset)
		}
		return &ArtifactError{Path: name, Line: line, Err: fmt.Errorf(format, args...)}
	}
	if v.Kind != jsjson.Object {
		return nil, fail(v, "want a JSON object, found %s", v.Kind)
	}
	base := strings.TrimSuffix(name[strings.LastIndex(name, "/")+1:], ".json")
	tg := &TaskGates{Path: name}
	switch {
	case v.Has("gates") || v.Has("required_gates"):
		// The plugin writes "taskId"; files written by hand or by other
		// tools use "task_id".
		idv := v.Get("taskId")
		if idv == nil {
			idv = v.Get("task_id")
		}
		id, ok := idv.AsString()
		if !ok {
			return nil, fail(v, `"taskId" must be a string`)
		}
		tg.TaskID = id
		if rg := v.Get("required_gates"); rg != nil {
			if rg.Kind != jsjson.Array {
				return nil, fail(rg, `"required_gates" must be an array of strings, found %s`, rg.Kind)
			}
			for _, el := range rg.Elems {
				s, ok := el.AsString()
				if !ok {
					return nil, fail(el, `"required_gates" must hold strings, found %s`, el.Kind)
				}
				tg.RequiredGates = append(tg.RequiredGates, s)
			}
		}
		if gv := v.Get("gates"); gv != nil {
			if gv.Kind != jsjson.Object {
				return nil, fail(gv, `"gates" must be an object, found %s`, gv.Kind)
			}
			for _, m := range gv.Members {
				if m.Value.Kind != jsjson.Object {
					return nil, fail(m.Value, "gate %q must be an object, found %s", m.Key, m.Value.Kind)
				}
				g := GateRecord{Name: m.Key, Line: lines.Line(m.Value.Offset), Value: m.Value}
				g.Agent, _ = m.Value.Get("agent").AsString()
				g.SessionID, _ = m.Value.Get("sessionId").AsString()
				g.Timestamp, _ = m.Value.Get("timestamp").AsString()
				g.readVerdict(lines)
				tg.Gates = append(tg.Gates, g)
			}
		}
	case v.Has("task_id") && v.Has("type"):
		tg.Legacy = true
		tg.TaskID, _ = v.Get("task_id").AsString()
		t, ok := v.Get("type").AsString()
		if !ok {
			return nil, fail(v.Get("type"), `"type" must be a string`)
		}
		g := GateRecord{Name: t, Line: lines.Line(v.Offset), Value: v}
		g.readVerdict(lines)
		g.Agent, _ = v.Get("agent").AsString()
		g.Timestamp, _ = v.Get("timestamp").AsString()
		tg.Gates = []GateRecord{g}
	default:
		return nil, fail(v, "neither gate evidence {taskId, required_gates, gates} nor legacy evidence {task_id, type}")
	}
	if tg.TaskID != base {
		return nil, fail(v, "task id %q does not match the file name %s.json", tg.TaskID, base)
	}
	tg.DuplicateKeys = duplicateKeys(v, lines)
	return tg, nil
}

// readVerdict sets the record's Verdict, VerdictInvalid and VerdictLine
// from its "verdict" field, else its "result" field. A "verdict" of any
// other type than string is invalid; so is a "result" that is a boolean,
// number or null (an object or array under "result" is a report, not a
// verdict, and is not read).
func (g *GateRecord) readVerdict(lines *jsjson.LineIndex) {
	g.VerdictLine = g.Line
	if vv := g.Value.Get("verdict"); vv != nil {
		g.VerdictLine = lines.Line(vv.Offset)
		if s, ok := vv.AsString(); ok {
			g.Verdict = s
		} else {
			g.VerdictInvalid = jsonText(vv)
		}
		return
	}
	if rv := g.Value.Get("result"); rv != nil {
		switch rv.Kind {
		case jsjson.String:
			g.Verdict, g.VerdictLine = rv.Str, lines.Line(rv.Offset)
		case jsjson.Bool, jsjson.Number, jsjson.Null:
			g.VerdictInvalid, g.VerdictLine = jsonText(rv), lines.Line(rv.Offset)
		}
	}
}

// jsonText is v as compact JSON, shortened to 60 bytes for messages.
func jsonText(v *jsjson.Value) string {
	s := string(jsjson.Stringify(v))
	if len(s) > 60 {
		s = clipRunes(s, 60)
	}
	return s
}
