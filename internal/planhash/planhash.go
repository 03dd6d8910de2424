// Package planhash reproduces, byte for byte, the digests the opencode-swarm
// plugin computes over a plan: the status-inclusive ledger hash
// (computePlanLedgerHash, formerly computePlanHash, recorded as
// plan_hash_after), the status-free structure hash (computePlanStructureHash,
// the critic-approval baseline), the plan id and the plan identity hash.
//
// Source of the algorithms: the plugin's src/plan/ledger.ts,
// src/plan/planning-profile.ts and src/plan/utils.ts, as described in
// ../shared/spec/swarm-artifacts.md sections 1 and 2.
package planhash

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Digests are the two plan hashes, each 64 lowercase hex characters.
type Digests struct {
	// Ledger is computePlanLedgerHash: statuses included.
	Ledger string
	// Structure is computePlanStructureHash: phase and task statuses left out.
	Structure string
}

// Compute returns both digests of a plan given as parsed JSON (the content of
// .swarm/plan.json, or payload.plan of a ledger event).
//
// The plan is read as the plugin's zod schema (src/config/plan-schema.ts)
// would validate it: required fields must be present with the right JSON
// type, defaults are filled in (status "pending", size "small", depends and
// files_touched [], tasks []), unknown fields are ignored, and enum values are
// not checked (older plugin versions wrote other values; they hash as
// stored). A plan that does not fit the schema gives an error naming the
// field, e.g. `phases[0].tasks[2].id: want string, found number`.
func Compute(plan *jsjson.Value) (Digests, error) {
	ledger, err := serialize(plan, true)
	if err != nil {
		return Digests{}, err
	}
	structure, err := serialize(plan, false)
	if err != nil {
		return Digests{}, err
	}
	return Digests{Ledger: sum(ledger), Structure: sum(structure)}, nil
}

// LedgerHash returns the status-inclusive digest of plan; see Compute.
func LedgerHash(plan *jsjson.Value) (string, error) {
	b, err := serialize(plan, true)
	if err != nil {
		return "", err
	}
	return sum(b), nil
}

// StructureHash returns the status-free digest of plan; see Compute.
func StructureHash(plan *jsjson.Value) (string, error) {
	b, err := serialize(plan, false)
	if err != nil {
		return "", err
	}
	return sum(b), nil
}

// CanonicalJSON returns the exact bytes the ledger hash (withStatus true) or
// the structure hash (withStatus false) is computed over, for debugging
// "plan differs" reports.
func CanonicalJSON(plan *jsjson.Value, withStatus bool) ([]byte, error) {
	return serialize(plan, withStatus)
}

// PlanID derives the plan id from swarm and title as the plugin's
// derivePlanId does: swarm + "-" + title with every UTF-16 code unit outside
// [A-Za-z0-9_-] replaced by "_" (so a character outside the Basic
// Multilingual Plane becomes "__").
func PlanID(swarm, title string) string {
	var b strings.Builder
	for _, r := range swarm + "-" + title {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r >= 0x10000:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// IdentityHash is the plan identity hash: sha256 hex of JSON.stringify([swarm, title]).
func IdentityHash(swarm, title string) string {
	b := []byte{'['}
	b = jsjson.AppendString(b, swarm)
	b = append(b, ',')
	b = jsjson.AppendString(b, title)
	b = append(b, ']')
	return sum(b)
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// FieldError says which field of a plan does not fit the plugin's schema.
type FieldError struct {
	Field  string // JSON path such as phases[0].tasks[2].id
	Offset int    // byte offset of the offending value in the parsed input, -1 if absent
	Msg    string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

type writer struct {
	b []byte
}

func (w *writer) key(first *bool, k string) {
	if !*first {
		w.b = append(w.b, ',')
	}
	*first = false
	w.b = jsjson.AppendString(w.b, k)
	w.b = append(w.b, ':')
}

func fieldErr(path string, v *jsjson.Value, msg string) error {
	off := -1
	if v != nil {
		off = v.Offset
	}
	return &FieldError{Field: path, Offset: off, Msg: msg}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// str writes a required (or defaulted) string field.
func (w *writer) str(first *bool, obj *jsjson.Value, path, key, def string, nonEmpty bool) error {
	v := obj.Get(key)
	if v == nil {
		if def == "" {
			return fieldErr(join(path, key), obj, "required field is missing")
		}
		w.key(first, key)
		w.b = jsjson.AppendString(w.b, def)
		return nil
	}
	s, ok := v.AsString()
	if !ok {
		return fieldErr(join(path, key), v, "want string, found "+v.Kind.String())
	}
	if nonEmpty && s == "" {
		return fieldErr(join(path, key), v, "must not be empty")
	}
	w.key(first, key)
	w.b = jsjson.AppendString(w.b, s)
	return nil
}

// optStr writes an optional string field only when present.
func (w *writer) optStr(first *bool, obj *jsjson.Value, path, key string) error {
	v := obj.Get(key)
	if v == nil {
		return nil
	}
	s, ok := v.AsString()
	if !ok {
		return fieldErr(join(path, key), v, "want string, found "+v.Kind.String())
	}
	w.key(first, key)
	w.b = jsjson.AppendString(w.b, s)
	return nil
}

// integer writes an integer field (required unless optional).
func (w *writer) integer(first *bool, obj *jsjson.Value, path, key string, optional bool) error {
	v := obj.Get(key)
	if v == nil {
		if optional {
			return nil
		}
		return fieldErr(join(path, key), obj, "required field is missing")
	}
	if v.Kind != jsjson.Number {
		return fieldErr(join(path, key), v, "want integer, found "+v.Kind.String())
	}
	if _, ok := v.AsInt(); !ok {
		return fieldErr(join(path, key), v, "want a safe integer, found "+strconv.FormatFloat(v.Num, 'g', -1, 64))
	}
	w.key(first, key)
	w.b = jsjson.AppendNumber(w.b, v.Num)
	return nil
}

// sortedStrings writes a string array sorted as JavaScript's default sort
// does; a missing array is written as [] when required, omitted otherwise.
func (w *writer) sortedStrings(first *bool, obj *jsjson.Value, path, key string, optional bool) error {
	if optional && obj.Get(key) == nil {
		return nil
	}
	return w.sortedList(first, obj, path, key, jsjson.CompareUTF16)
}

// sortedList writes a string array (missing: []) sorted stably by cmp.
func (w *writer) sortedList(first *bool, obj *jsjson.Value, path, key string, cmp func(a, b string) int) error {
	items, err := stringList(obj, path, key)
	if err != nil {
		return err
	}
	slices.SortStableFunc(items, cmp)
	w.key(first, key)
	w.b = append(w.b, '[')
	for i, s := range items {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsjson.AppendString(w.b, s)
	}
	w.b = append(w.b, ']')
	return nil
}

// stringList reads an array of strings (nil when the key is absent).
func stringList(obj *jsjson.Value, path, key string) ([]string, error) {
	v := obj.Get(key)
	if v == nil {
		return nil, nil
	}
	if v.Kind != jsjson.Array {
		return nil, fieldErr(join(path, key), v, "want array of strings, found "+v.Kind.String())
	}
	items := make([]string, len(v.Elems))
	for i, el := range v.Elems {
		s, ok := el.AsString()
		if !ok {
			return nil, fieldErr(join(path, key)+"["+strconv.Itoa(i)+"]", el, "want string, found "+el.Kind.String())
		}
		items[i] = s
	}
	return items, nil
}

func serialize(plan *jsjson.Value, withStatus bool) ([]byte, error) {
	w := &writer{b: make([]byte, 0, 4096)}
	first := true
	phases, err := w.header(&first, plan, true)
	if err != nil {
		return nil, err
	}
	w.key(&first, "phases")
	w.b = append(w.b, '[')
	for i, ph := range phases.Elems {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if err := w.phase(ph, "phases["+strconv.Itoa(i)+"]", withStatus); err != nil {
			return nil, err
		}
	}
	w.b = append(w.b, ']', '}')
	return w.b, nil
}

// header opens the plan object and writes the fields every plan digest
// starts with: schema_version, title, swarm, current_phase?,
// migration_status? and, when withProfile, execution_profile? (normalized; it
// is validated either way). It returns the validated, non-empty phases array
// for the caller to write.
func (w *writer) header(first *bool, plan *jsjson.Value, withProfile bool) (*jsjson.Value, error) {
	if plan == nil || plan.Kind != jsjson.Object {
		kind := "nothing"
		if plan != nil {
			kind = plan.Kind.String()
		}
		return nil, fieldErr("(plan)", plan, "want object, found "+kind)
	}
	w.b = append(w.b, '{')
	if err := w.str(first, plan, "", "schema_version", "", false); err != nil {
		return nil, err
	}
	if err := w.str(first, plan, "", "title", "", true); err != nil {
		return nil, err
	}
	if err := w.str(first, plan, "", "swarm", "", true); err != nil {
		return nil, err
	}
	if err := w.integer(first, plan, "", "current_phase", true); err != nil {
		return nil, err
	}
	if err := w.optStr(first, plan, "", "migration_status"); err != nil {
		return nil, err
	}
	if ep := plan.Get("execution_profile"); ep != nil {
		if ep.Kind != jsjson.Object {
			return nil, fieldErr("execution_profile", ep, "want object, found "+ep.Kind.String())
		}
		if withProfile {
			w.key(first, "execution_profile")
			w.executionProfile(ep)
		}
	}
	phases := plan.Get("phases")
	if phases == nil {
		return nil, fieldErr("phases", plan, "required field is missing")
	}
	if phases.Kind != jsjson.Array {
		return nil, fieldErr("phases", phases, "want array, found "+phases.Kind.String())
	}
	if len(phases.Elems) == 0 {
		return nil, fieldErr("phases", phases, "must have at least one phase")
	}
	return phases, nil
}

// executionProfile writes the stored profile in its own key order, dropping
// commit_after_each_completed_task unless it is literally true
// (normalizeExecutionProfileForHash).
func (w *writer) executionProfile(ep *jsjson.Value) {
	w.b = append(w.b, '{')
	first := true
	for _, m := range ep.Members {
		if m.Key == "commit_after_each_completed_task" && (m.Value.Kind != jsjson.Bool || !m.Value.Bool) {
			continue
		}
		w.key(&first, m.Key)
		w.b = jsjson.Append(w.b, m.Value)
	}
	w.b = append(w.b, '}')
}

func (w *writer) phase(ph *jsjson.Value, path string, withStatus bool) error {
	if ph.Kind != jsjson.Object {
		return fieldErr(path, ph, "want object, found "+ph.Kind.String())
	}
	w.b = append(w.b, '{')
	first := true
	if err := w.integer(&first, ph, path, "id", false); err != nil {
		return err
	}
	if err := w.str(&first, ph, path, "name", "", true); err != nil {
		return err
	}
	if withStatus {
		if err := w.str(&first, ph, path, "status", "pending", false); err != nil {
			return err
		}
	} else if err := checkString(ph, path, "status"); err != nil {
		return err
	}
	if err := w.sortedStrings(&first, ph, path, "required_agents", true); err != nil {
		return err
	}
	w.key(&first, "tasks")
	w.b = append(w.b, '[')
	if tasks := ph.Get("tasks"); tasks != nil {
		if tasks.Kind != jsjson.Array {
			return fieldErr(path+".tasks", tasks, "want array, found "+tasks.Kind.String())
		}
		for i, t := range tasks.Elems {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if err := w.task(t, path+".tasks["+strconv.Itoa(i)+"]", withStatus); err != nil {
				return err
			}
		}
	}
	w.b = append(w.b, ']', '}')
	return nil
}

func (w *writer) task(t *jsjson.Value, path string, withStatus bool) error {
	if t.Kind != jsjson.Object {
		return fieldErr(path, t, "want object, found "+t.Kind.String())
	}
	w.b = append(w.b, '{')
	first := true
	if err := w.str(&first, t, path, "id", "", false); err != nil {
		return err
	}
	if err := w.integer(&first, t, path, "phase", false); err != nil {
		return err
	}
	if withStatus {
		if err := w.str(&first, t, path, "status", "pending", false); err != nil {
			return err
		}
	} else if err := checkString(t, path, "status"); err != nil {
		return err
	}
	if err := w.str(&first, t, path, "size", "small", false); err != nil {
		return err
	}
	if err := w.str(&first, t, path, "description", "", true); err != nil {
		return err
	}
	if err := w.sortedStrings(&first, t, path, "depends", false); err != nil {
		return err
	}
	if err := w.optStr(&first, t, path, "acceptance"); err != nil {
		return err
	}
	if err := w.sortedStrings(&first, t, path, "files_touched", false); err != nil {
		return err
	}
	if err := w.optStr(&first, t, path, "evidence_path"); err != nil {
		return err
	}
	if err := w.optStr(&first, t, path, "blocked_reason"); err != nil {
		return err
	}
	w.b = append(w.b, '}')
	return nil
}

// checkString validates an optional string field that is not hashed, so
// that the structure hash rejects exactly the plans the ledger hash rejects.
func checkString(obj *jsjson.Value, path, key string) error {
	if v := obj.Get(key); v != nil && v.Kind != jsjson.String {
		return fieldErr(join(path, key), v, "want string, found "+v.Kind.String())
	}
	return nil
}

// Short returns the first 12 hex characters of a digest, for messages.
func Short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}
