package swarm

import (
	"fmt"
	"slices"
	"strings"
)

// PlanChange is one difference between two plans that enters the structure
// hash, placed on the line of the newer plan where it shows.
type PlanChange struct {
	Line int // line in the newer plan's file (1 when not tied to a task or phase)
	Text string
}

// DiffPlans lists the differences between an approved plan and a newer one
// that enter the structure hash (everything but statuses and fr_refs), task
// by task, so that a reviewer sees why an approval no longer holds. It lists
// at least one change whenever the structure hashes differ.
func DiffPlans(approved, head *Plan) []PlanChange {
	var out []PlanChange
	top := func(field, a, b string) {
		if a != b {
			out = append(out, PlanChange{1, fmt.Sprintf("%s changed: %s", field, beforeAfter(a, b))})
		}
	}
	top("title", approved.Title, head.Title)
	top("swarm", approved.Swarm, head.Swarm)
	top("schema_version", approved.SchemaVersion, head.SchemaVersion)
	top("migration_status", approved.MigrationStatus, head.MigrationStatus)
	top("current_phase", fmt.Sprint(approved.CurrentPhase), fmt.Sprint(head.CurrentPhase))
	oldTasks := map[string]*Task{}
	for i := range approved.Phases {
		for j := range approved.Phases[i].Tasks {
			t := &approved.Phases[i].Tasks[j]
			oldTasks[t.ID] = t
		}
	}
	oldPhases := map[int]*Phase{}
	for i := range approved.Phases {
		oldPhases[approved.Phases[i].ID] = &approved.Phases[i]
	}
	seen := map[string]bool{}
	for i := range head.Phases {
		ph := &head.Phases[i]
		if op := oldPhases[ph.ID]; op == nil {
			out = append(out, PlanChange{ph.Line, fmt.Sprintf("phase %d added", ph.ID)})
		} else {
			if op.Name != ph.Name {
				out = append(out, PlanChange{ph.Line, fmt.Sprintf("phase %d: name changed: %s", ph.ID, beforeAfter(op.Name, ph.Name))})
			}
			if !sameSet(op.RequiredAgents, ph.RequiredAgents) {
				out = append(out, PlanChange{ph.Line, fmt.Sprintf("phase %d: required_agents changed", ph.ID)})
			}
		}
		for j := range ph.Tasks {
			t := &ph.Tasks[j]
			seen[t.ID] = true
			o := oldTasks[t.ID]
			if o == nil {
				out = append(out, PlanChange{t.Line, fmt.Sprintf("task %s added: %s", t.ID, clip(t.Description))})
				continue
			}
			for _, f := range taskFieldChanges(o, t) {
				out = append(out, PlanChange{t.Line, "task " + t.ID + ": " + f})
			}
		}
	}
	for i := range approved.Phases {
		for _, t := range approved.Phases[i].Tasks {
			if !seen[t.ID] {
				out = append(out, PlanChange{1, fmt.Sprintf("task %s removed: %s", t.ID, clip(t.Description))})
			}
		}
		if head.FindPhase(approved.Phases[i].ID) == nil {
			out = append(out, PlanChange{1, fmt.Sprintf("phase %d removed", approved.Phases[i].ID)})
		}
	}
	if len(out) == 0 {
		out = append(out, PlanChange{1, "the change is in a field not listed per task (execution_profile or task order)"})
	}
	return out
}

func taskFieldChanges(o, t *Task) []string {
	var out []string
	str := func(field, a, b string) {
		if a != b {
			out = append(out, field+" changed: "+beforeAfter(a, b))
		}
	}
	set := func(field string, a, b []string) {
		if !sameSet(a, b) {
			out = append(out, fmt.Sprintf("%s changed: [%s] → [%s]", field, strings.Join(a, ", "), strings.Join(b, ", ")))
		}
	}
	if o.Phase != t.Phase {
		out = append(out, fmt.Sprintf("phase changed: %d → %d", o.Phase, t.Phase))
	}
	str("description", o.Description, t.Description)
	str("acceptance", o.Acceptance, t.Acceptance)
	str("size", o.Size, t.Size)
	str("evidence_path", o.EvidencePath, t.EvidencePath)
	str("blocked_reason", o.BlockedReason, t.BlockedReason)
	set("depends", o.Depends, t.Depends)
	set("files_touched", o.FilesTouched, t.FilesTouched)
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func beforeAfter(a, b string) string { return fmt.Sprintf("%q → %q", clip(a), clip(b)) }

// clip shortens s to at most 80 runes for messages.
func clip(s string) string {
	r := []rune(s)
	if len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
