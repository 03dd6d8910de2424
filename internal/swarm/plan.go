package swarm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// Plan is a parsed .swarm/plan.json (the plugin's Plan from
// src/config/plan-schema.ts), or a plan embedded in a ledger event.
type Plan struct {
	SchemaVersion   string
	Title           string
	Swarm           string
	CurrentPhase    int // 0 when absent
	MigrationStatus string
	Phases          []Phase
	// SpecHash is the plan's specHash: the SpecHash of .swarm/spec.md when
	// the plan was saved ("" when absent or falsy, which the plugin's
	// isSpecStale in src/utils/spec-hash.ts exempts from staleness).
	// SpecHashKind is the JSON type of a truthy specHash that is not a
	// string ("" otherwise): the plugin compares it with the spec's hash,
	// so such a plan is always stale.
	SpecHash     string
	SpecHashKind string

	// Digests are the plugin's ledger and structure hashes of this plan.
	Digests planhash.Digests
	// Value is the parsed JSON the digests were computed from.
	Value *jsjson.Value
	// DuplicateKeys are the keys that appear twice in one object of the
	// file (at most 100): the plugin's JSON.parse keeps the last value, a
	// reader of the file or its diff may take the first. The plugin writes
	// plan.json with JSON.stringify, which never repeats a key.
	DuplicateKeys []DuplicateKey
}

// DuplicateKey is one key repeated in an object of a JSON file.
type DuplicateKey struct {
	// Path is the object's place from the root ("phases[0].tasks[2]",
	// "" for the root), Key the repeated key.
	Path, Key string
	// FirstLine and Line are the 1-based lines of its first and last
	// occurrence (the last one's value is the one read).
	FirstLine, Line int
}

// duplicateKeys lists v's repeated keys with their lines.
func duplicateKeys(v *jsjson.Value, lines *jsjson.LineIndex) []DuplicateKey {
	var out []DuplicateKey
	for _, d := range jsjson.Duplicates(v) {
		out = append(out, DuplicateKey{Path: d.Path, Key: d.Key, FirstLine: lines.Line(d.FirstOffset), Line: lines.Line(d.LastOffset)})
	}
	return out
}

// Where names the key with its object's path ("phases[0].tasks[2].status").
func (d DuplicateKey) Where() string {
	if d.Path == "" {
		return d.Key
	}
	return strings.TrimPrefix(d.Path, ".") + "." + d.Key
}

// Phase is one plan phase.
type Phase struct {
	ID             int
	Name           string
	Status         string // pending, in_progress, complete, completed, blocked, closed
	Type           string // "code", "non-code" or ""
	RequiredAgents []string
	Tasks          []Task
	Line           int // line of the phase object in the file it came from
}

// Task is one plan task.
type Task struct {
	ID            string
	Phase         int
	Status        string // pending, in_progress, completed, blocked, closed
	Size          string
	Description   string
	Depends       []string
	Acceptance    string
	FilesTouched  []string
	EvidencePath  string
	BlockedReason string
	FRRefs        []string
	Line          int // line of the task object in the file it came from
}

// ID is the plan id the plugin derives from swarm and title.
func (p *Plan) ID() string { return planhash.PlanID(p.Swarm, p.Title) }

// FindPhase returns the phase with the given id, or nil.
func (p *Plan) FindPhase(id int) *Phase {
	for i := range p.Phases {
		if p.Phases[i].ID == id {
			return &p.Phases[i]
		}
	}
	return nil
}

// FindTask returns the task with the given id and its phase, or nils.
func (p *Plan) FindTask(id string) (*Task, *Phase) {
	for i := range p.Phases {
		for j := range p.Phases[i].Tasks {
			if p.Phases[i].Tasks[j].ID == id {
				return &p.Phases[i].Tasks[j], &p.Phases[i]
			}
		}
	}
	return nil, nil
}

// ParsePlan parses plan.json content. Errors are *ArtifactError with the
// line of the offending value.
func ParsePlan(name string, data []byte) (*Plan, error) {
	v, data, err := parseJSONFile(name, data)
	if err != nil {
		return nil, err
	}
	p, err := PlanFromValue(v, jsjson.NewLineIndex(data).Line)
	if err != nil {
		var fe *planhash.FieldError
		line := 0
		if errors.As(err, &fe) && fe.Offset >= 0 {
			line = jsjson.Line(data, fe.Offset)
		}
		return nil, &ArtifactError{Path: name, Line: line, Err: err}
	}
	p.DuplicateKeys = duplicateKeys(v, jsjson.NewLineIndex(data))
	return p, nil
}

// MaxPlanTasks is the most tasks and phases (together) a plan may have.
// The plugin's plans have tens; several gates compare every task with
// every other, so a plan of tens of thousands would take minutes.
const MaxPlanTasks = 5000

// checkPlanSize refuses a plan with more than MaxPlanTasks tasks and phases.
func checkPlanSize(v *jsjson.Value) error {
	phases := v.Get("phases")
	if phases == nil {
		return nil // planhash.Compute says what is missing
	}
	n := len(phases.Elems)
	for _, ph := range phases.Elems {
		if tasks := ph.Get("tasks"); tasks != nil { // a phase without tasks: planhash.Compute says so
			n += len(tasks.Elems)
		}
		if n > MaxPlanTasks {
			return &planhash.FieldError{Field: "phases", Offset: phases.Offset,
				Msg: fmt.Sprintf("more than %d tasks and phases; swarm-gate checks plans of at most that many (the plugin's have tens): split the work into several plans", MaxPlanTasks)}
		}
	}
	return nil
}

// PlanFromValue builds a Plan from parsed JSON; lineOf maps a byte offset to
// a line number (nil gives line 0). Errors are *planhash.FieldError.
func PlanFromValue(v *jsjson.Value, lineOf func(int) int) (*Plan, error) {
	if lineOf == nil {
		lineOf = func(int) int { return 0 }
	}
	if err := checkPlanSize(v); err != nil {
		return nil, err
	}
	digests, err := planhash.Compute(v)
	if err != nil {
		return nil, err
	}
	// Compute has validated every hashed field's type; what remains are the
	// unhashed fields (phase type, fr_refs).
	p := &Plan{Digests: digests, Value: v}
	p.SchemaVersion, _ = v.Get("schema_version").AsString()
	p.Title, _ = v.Get("title").AsString()
	p.Swarm, _ = v.Get("swarm").AsString()
	p.CurrentPhase, _ = v.Get("current_phase").AsInt()
	p.MigrationStatus, _ = v.Get("migration_status").AsString()
	p.SpecHash, p.SpecHashKind = specHashOf(v.Get("specHash"))
	for i, ph := range v.Get("phases").Elems {
		phase := Phase{Line: lineOf(ph.Offset), Status: "pending"}
		phase.ID, _ = ph.Get("id").AsInt()
		phase.Name, _ = ph.Get("name").AsString()
		if s, ok := ph.Get("status").AsString(); ok {
			if !phaseStatuses[s] {
				return nil, enumErr(fmt.Sprintf("phases[%d].status", i), ph.Get("status"), s, "pending, in_progress, complete, completed, blocked, closed")
			}
			phase.Status = s
		}
		if t := ph.Get("type"); t != nil {
			s, ok := t.AsString()
			if !ok {
				return nil, &planhash.FieldError{Field: fmt.Sprintf("phases[%d].type", i), Offset: t.Offset, Msg: "want string, found " + t.Kind.String()}
			}
			phase.Type = s
		}
		phase.RequiredAgents = stringList(ph.Get("required_agents"))
		if tasks := ph.Get("tasks"); tasks != nil {
			for j, tv := range tasks.Elems {
				t, err := taskFromValue(tv, lineOf, "phases["+strconv.Itoa(i)+"].tasks["+strconv.Itoa(j)+"]")
				if err != nil {
					return nil, err
				}
				phase.Tasks = append(phase.Tasks, t)
			}
		}
		p.Phases = append(p.Phases, phase)
	}
	return p, nil
}

func taskFromValue(tv *jsjson.Value, lineOf func(int) int, path string) (Task, error) {
	t := Task{Line: lineOf(tv.Offset), Status: "pending", Size: "small"}
	t.ID, _ = tv.Get("id").AsString()
	t.Phase, _ = tv.Get("phase").AsInt()
	if s, ok := tv.Get("status").AsString(); ok {
		if !taskStatuses[s] {
			return t, enumErr(path+".status", tv.Get("status"), s, "pending, in_progress, completed, blocked, closed")
		}
		t.Status = s
	}
	if s, ok := tv.Get("size").AsString(); ok {
		if s != "small" && s != "medium" && s != "large" {
			return t, enumErr(path+".size", tv.Get("size"), s, "small, medium, large")
		}
		t.Size = s
	}
	t.Description, _ = tv.Get("description").AsString()
	t.Depends = stringList(tv.Get("depends"))
	t.Acceptance, _ = tv.Get("acceptance").AsString()
	t.FilesTouched = stringList(tv.Get("files_touched"))
	t.EvidencePath, _ = tv.Get("evidence_path").AsString()
	t.BlockedReason, _ = tv.Get("blocked_reason").AsString()
	if fr := tv.Get("fr_refs"); fr != nil {
		if fr.Kind != jsjson.Array {
			return t, &planhash.FieldError{Field: path + ".fr_refs", Offset: fr.Offset, Msg: "want array of strings, found " + fr.Kind.String()}
		}
		for k, el := range fr.Elems {
			s, ok := el.AsString()
			if !ok {
				return t, &planhash.FieldError{Field: path + ".fr_refs[" + strconv.Itoa(k) + "]", Offset: el.Offset, Msg: "want string, found " + el.Kind.String()}
			}
			t.FRRefs = append(t.FRRefs, s)
		}
	}
	return t, nil
}

// The status values the plugin's schema accepts (src/config/plan-schema.ts).
// A status outside them would let a task dodge the gates that look for
// "completed", so it is an error, not a value to ignore.
var (
	taskStatuses  = map[string]bool{"pending": true, "in_progress": true, "completed": true, "blocked": true, "closed": true}
	phaseStatuses = map[string]bool{"pending": true, "in_progress": true, "complete": true, "completed": true, "blocked": true, "closed": true}
)

func enumErr(field string, v *jsjson.Value, got, allowed string) error {
	return &planhash.FieldError{Field: field, Offset: v.Offset, Msg: fmt.Sprintf("%q is not a valid value (the plugin accepts %s)", got, allowed)}
}

// stringList returns the elements of a string array already type-checked by
// planhash.Compute, in file order.
func stringList(v *jsjson.Value) []string {
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

// specHashOf reads a plan's specHash as the plugin's truthiness test sees
// it: null, false, 0, NaN and "" count as absent.
func specHashOf(v *jsjson.Value) (hash, kind string) {
	if v == nil {
		return "", ""
	}
	switch v.Kind {
	case jsjson.String:
		return v.Str, ""
	case jsjson.Null:
		return "", ""
	case jsjson.Bool:
		if !v.Bool {
			return "", ""
		}
	case jsjson.Number:
		if v.Num == 0 || v.Num != v.Num {
			return "", ""
		}
	}
	return "", v.Kind.String()
}
