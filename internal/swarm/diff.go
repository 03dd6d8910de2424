package swarm

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// ChangeClass is how the plugin's PLAN FREEZE rules treat a change made to a
// plan after the critic approved it.
type ChangeClass string

// Change classes, from the harmless to the serious.
const (
	// ChangeStatus is a task or phase status change: never invalidates an
	// approval (statuses are outside the structure hash).
	ChangeStatus ChangeClass = "status-only"
	// ChangeUnhashed is a change outside the structure hash that still
	// matters to the process (task fr_refs, phase type): the plugin cannot
	// see it; swarm-gate flags it.
	ChangeUnhashed ChangeClass = "unhashed"
	// ChangeBookkeeping is a bookkeeping-grade field (size, evidence_path,
	// blocked_reason, title, current_phase, files_touched): it trips the
	// structure hash and is accepted only with a manual-override approval
	// that post-dates it.
	ChangeBookkeeping ChangeClass = "bookkeeping"
	// ChangeMaterial changes what the plan asks for: tasks added, removed or
	// moved, a task's description, acceptance or depends; the plan's
	// schema_version, swarm, migration_status or execution_profile; a phase's
	// id, name or required_agents; the order of phases or tasks.
	ChangeMaterial ChangeClass = "material"
)

// PlanChange is one difference between an approved plan and a newer one.
type PlanChange struct {
	Class ChangeClass
	// Subject is what changed: "plan", "phase 2" or "task 2.3".
	Subject string
	// Field is the field that changed ("description", "status", ...), or
	// "added" / "removed" / "order" for whole tasks and phases.
	Field string
	// Before and After are short renderings of the two values ("" when
	// not applicable), already clipped to 80 characters each.
	Before, After string
	// Line is the line in the newer plan's file where the change shows (the
	// task or phase object); 1 when not tied to one.
	Line int
}

// Text renders the change for a summary, e.g.
// `task 2.3: description changed: "a" → "b"`.
func (c PlanChange) Text() string {
	switch c.Field {
	case "added", "removed", "duplicated":
		if c.Before != "" || c.After != "" {
			return fmt.Sprintf("%s %s: %s", c.Subject, c.Field, c.Before+c.After)
		}
		return c.Subject + " " + c.Field
	case "order":
		return c.Subject + ": order changed: " + c.Before + " → " + c.After
	}
	return fmt.Sprintf("%s: %s changed: %s → %s", c.Subject, c.Field, c.Before, c.After)
}

// InvalidatesApproval reports whether the change trips the structure hash.
func (c PlanChange) InvalidatesApproval() bool {
	return c.Class == ChangeMaterial || c.Class == ChangeBookkeeping
}

// ComparePlans lists every difference between an approved plan and a newer
// one, field by field, classified as the PLAN FREEZE rules classify it (spec
// sections 2.4 and 3.6). Status changes are listed too (class
// ChangeStatus). When the structure hashes differ, at least one change
// that invalidates the approval is listed.
func ComparePlans(approved, head *Plan) []PlanChange {
	var out []PlanChange
	add := func(class ChangeClass, subject, field, before, after string, line int) {
		out = append(out, PlanChange{Class: class, Subject: subject, Field: field, Before: before, After: after, Line: line})
	}
	str := func(class ChangeClass, subject, field, a, b string, line int) {
		if a != b {
			qa, qb := quotePair(a, b)
			add(class, subject, field, qa, qb, line)
		}
	}
	str(ChangeMaterial, "plan", "schema_version", approved.SchemaVersion, head.SchemaVersion, 1)
	str(ChangeMaterial, "plan", "swarm", approved.Swarm, head.Swarm, 1)
	str(ChangeMaterial, "plan", "migration_status", approved.MigrationStatus, head.MigrationStatus, 1)
	str(ChangeBookkeeping, "plan", "title", approved.Title, head.Title, 1)
	if approved.CurrentPhase != head.CurrentPhase {
		add(ChangeBookkeeping, "plan", "current_phase", phaseNum(approved.CurrentPhase), phaseNum(head.CurrentPhase), 1)
	}
	if a, b := approved.ProfileJSON(), head.ProfileJSON(); !bytes.Equal(a, b) {
		out = append(out, profileChanges(approved, head, a, b)...)
	}

	// The first of a repeated id, as FindPhase and FindTask, and how often
	// the approved plan repeats it.
	oldPhases, approvedPhases := map[int]*Phase{}, map[int]int{}
	oldTasks, approvedTasks := map[string]*Task{}, map[string]int{}
	for i := range approved.Phases {
		ph := &approved.Phases[i]
		if approvedPhases[ph.ID]++; oldPhases[ph.ID] == nil {
			oldPhases[ph.ID] = ph
		}
		for j := range ph.Tasks {
			t := &ph.Tasks[j]
			if approvedTasks[t.ID]++; oldTasks[t.ID] == nil {
				oldTasks[t.ID] = t
			}
		}
	}
	seen := map[string]int{}
	headPhases := map[int]int{}
	for i := range head.Phases {
		ph := &head.Phases[i]
		subject := fmt.Sprintf("phase %d", ph.ID)
		op := oldPhases[ph.ID]
		headPhases[ph.ID]++
		if n := headPhases[ph.ID]; n > 1 {
			// Compared with the approved phase of that id, a second one
			// would read as its name or fields changing, hiding that the
			// plan now holds two phases the plugin keys by one id (the
			// structure hash tells any other change of an approved repeat).
			if n > approvedPhases[ph.ID] {
				add(ChangeMaterial, subject, "duplicated", "", "another phase with id "+phaseNum(ph.ID)+" "+quote(ph.Name), ph.Line)
			}
		} else if op == nil {
			add(ChangeMaterial, subject, "added", "", quote(ph.Name), ph.Line)
		} else {
			str(ChangeMaterial, subject, "name", op.Name, ph.Name, ph.Line)
			if !sameSet(op.RequiredAgents, ph.RequiredAgents) {
				add(ChangeMaterial, subject, "required_agents", list(op.RequiredAgents), list(ph.RequiredAgents), ph.Line)
			}
			str(ChangeUnhashed, subject, "type", op.Type, ph.Type, ph.Line)
			str(ChangeStatus, subject, "status", op.Status, ph.Status, ph.Line)
			if a, b := taskOrder(op), taskOrder(ph); !slices.Equal(a, b) && sameSet(a, b) {
				add(ChangeMaterial, subject, "order", list(a), list(b), ph.Line)
			}
		}
		for j := range ph.Tasks {
			t := &ph.Tasks[j]
			if seen[t.ID]++; seen[t.ID] > 1 {
				if seen[t.ID] > approvedTasks[t.ID] {
					add(ChangeMaterial, "task "+t.ID, "duplicated", "", "another task with id "+t.ID+" "+quote(t.Description), t.Line)
				}
				continue
			}
			o := oldTasks[t.ID]
			if o == nil {
				add(ChangeMaterial, "task "+t.ID, "added", "", quote(t.Description), t.Line)
				continue
			}
			out = append(out, taskChanges(o, t)...)
		}
	}
	for i := range approved.Phases {
		op := &approved.Phases[i]
		for _, t := range op.Tasks {
			if seen[t.ID] == 0 {
				add(ChangeMaterial, "task "+t.ID, "removed", quote(t.Description), "", 1)
			}
		}
		if head.FindPhase(op.ID) == nil {
			add(ChangeMaterial, fmt.Sprintf("phase %d", op.ID), "removed", quote(op.Name), "", 1)
		}
	}
	if a, b := phaseOrder(approved), phaseOrder(head); !slices.Equal(a, b) && sameSet(a, b) {
		add(ChangeMaterial, "plan", "order", "phases "+list(a), "phases "+list(b), 1)
	}
	if approved.Digests.Structure != head.Digests.Structure && !slices.ContainsFunc(out, PlanChange.InvalidatesApproval) {
		// A difference this comparison does not model (a duplicate task id,
		// a field the plugin added later): say so rather than nothing.
		add(ChangeMaterial, "plan", "structure", planhash.Short(approved.Digests.Structure), planhash.Short(head.Digests.Structure), 1)
	}
	return out
}

// taskChanges compares one task present in both plans.
func taskChanges(o, t *Task) []PlanChange {
	subject := "task " + t.ID
	var out []PlanChange
	add := func(class ChangeClass, field, before, after string) {
		out = append(out, PlanChange{Class: class, Subject: subject, Field: field, Before: before, After: after, Line: t.Line})
	}
	str := func(class ChangeClass, field, a, b string) {
		if a != b {
			qa, qb := quotePair(a, b)
			add(class, field, qa, qb)
		}
	}
	set := func(class ChangeClass, field string, a, b []string) {
		if !sameSet(a, b) {
			add(class, field, list(a), list(b))
		}
	}
	if o.Phase != t.Phase {
		add(ChangeMaterial, "phase", phaseNum(o.Phase), phaseNum(t.Phase))
	}
	str(ChangeMaterial, "description", o.Description, t.Description)
	str(ChangeMaterial, "acceptance", o.Acceptance, t.Acceptance)
	set(ChangeMaterial, "depends", o.Depends, t.Depends)
	str(ChangeBookkeeping, "size", o.Size, t.Size)
	str(ChangeBookkeeping, "evidence_path", o.EvidencePath, t.EvidencePath)
	str(ChangeBookkeeping, "blocked_reason", o.BlockedReason, t.BlockedReason)
	set(ChangeBookkeeping, "files_touched", o.FilesTouched, t.FilesTouched)
	set(ChangeUnhashed, "fr_refs", o.FRRefs, t.FRRefs)
	str(ChangeStatus, "status", o.Status, t.Status)
	return out
}

// ProfileJSON is the plan's execution_profile as the plan hashes serialise
// it (spec section 2.3), nil when the plan has none.
func (p *Plan) ProfileJSON() []byte {
	if p.Value == nil {
		return nil
	}
	return planhash.ExecutionProfileJSON(p.Value.Get("execution_profile"))
}

func taskOrder(ph *Phase) []string {
	ids := make([]string, len(ph.Tasks))
	for i, t := range ph.Tasks {
		ids[i] = t.ID
	}
	return ids
}

func phaseOrder(p *Plan) []string {
	ids := make([]string, len(p.Phases))
	for i, ph := range p.Phases {
		ids[i] = fmt.Sprint(ph.ID)
	}
	return ids
}

func phaseNum(n int) string {
	if n == 0 {
		return "(none)"
	}
	return fmt.Sprint(n)
}

// profileChanges lists an execution_profile change key by key when both
// plans have a profile object, else as a whole.
func profileChanges(approved, head *Plan, a, b []byte) []PlanChange {
	pa, pb := approved.Value.Get("execution_profile"), head.Value.Get("execution_profile")
	if pa == nil || pb == nil || pa.Kind != jsjson.Object || pb.Kind != jsjson.Object {
		return []PlanChange{{Class: ChangeMaterial, Subject: "plan", Field: "execution_profile", Before: profileText(a), After: profileText(b), Line: 1}}
	}
	render := func(v *jsjson.Value) string {
		if v == nil {
			return "(absent)"
		}
		return clip(string(jsjson.Stringify(v)))
	}
	var out []PlanChange
	seen := map[string]bool{}
	for _, m := range append(slices.Clone(pa.Members), pb.Members...) {
		if seen[m.Key] {
			continue
		}
		seen[m.Key] = true
		va, vb := pa.Get(m.Key), pb.Get(m.Key)
		if render(va) != render(vb) {
			out = append(out, PlanChange{Class: ChangeMaterial, Subject: "plan", Field: "execution_profile." + m.Key, Before: render(va), After: render(vb), Line: 1})
		}
	}
	if len(out) == 0 { // only the key order or a normalised-away key differs
		out = append(out, PlanChange{Class: ChangeMaterial, Subject: "plan", Field: "execution_profile", Before: profileText(a), After: profileText(b), Line: 1})
	}
	return out
}

func profileText(b []byte) string {
	if b == nil {
		return "(none)"
	}
	return clip(string(b))
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// quote renders a string value for a message, clipped; an empty or absent
// value is "(none)".
func quote(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", clip(s))
}

// quotePair renders two different strings for a before/after message so
// that the difference shows: when they share a long beginning, both start a
// little before the first difference, after an ellipsis.
func quotePair(a, b string) (string, string) {
	ra, rb := []rune(a), []rune(b)
	if len(ra) <= 80 && len(rb) <= 80 {
		return quote(a), quote(b)
	}
	p := 0
	for p < len(ra) && p < len(rb) && ra[p] == rb[p] {
		p++
	}
	if p <= 40 {
		return quote(a), quote(b)
	}
	from := p - 20
	return "…" + quote(string(ra[from:])), "…" + quote(string(rb[from:]))
}

// list renders a string list for a message, clipped.
func list(items []string) string { return clip("[" + strings.Join(items, ", ") + "]") }

// clip shortens s to at most 80 runes for messages.
func clip(s string) string {
	r := []rune(s)
	if len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
