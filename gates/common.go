package gates

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// headPlan returns the head plan, or the reason it cannot be used.
func headPlan(in *Input) (*swarm.Plan, error) {
	switch {
	case !in.Head.Present:
		return nil, errors.New("the head commit has no .swarm/ folder")
	case in.Head.PlanErr != nil:
		return nil, in.Head.PlanErr
	case in.Head.Plan == nil:
		return nil, errors.New(swarm.PlanPath + " is missing at the head commit")
	}
	return in.Head.Plan, nil
}

// headPhase returns the head plan and the phase under check, or the reason
// they cannot be used.
func headPhase(in *Input) (*swarm.Plan, *swarm.Phase, error) {
	plan, err := headPlan(in)
	if err != nil {
		return nil, nil, err
	}
	ph := plan.FindPhase(in.Phase)
	if ph == nil {
		ids := make([]string, len(plan.Phases))
		for i, p := range plan.Phases {
			ids[i] = strconv.Itoa(p.ID)
		}
		fix := "pass --phase N (the Action's phase input)"
		switch in.PhaseSource {
		case PhaseFromBranch:
			fix = "name the branch after a phase of the plan (swarm/phase-<N> unless the policy's phase_branch says otherwise), or pass --phase N (the Action's phase input)"
		case PhaseFromLabel:
			fix = "label the pull request swarm:phase-<N> with a phase of the plan, or pass --phase N (the Action's phase input)"
		case PhaseFromFlag:
			fix = "give --phase (the Action's phase input) one of those, or leave it out to infer the phase from the tasks the pull request changes"
		}
		return nil, nil, fmt.Errorf("phase %d (from %s) is not in %s, which has phases %s; %s", in.Phase, in.PhaseSource, swarm.PlanPath, strings.Join(ids, ", "), fix)
	}
	if err := duplicateIDs(plan, in.Phase); err != nil {
		return nil, nil, err
	}
	return plan, ph, nil
}

// duplicateIDs is why the phase under check cannot be judged when the plan
// holds its id, or the id of one of its tasks, more than once: every gate
// looks phases and tasks up by id and would see only the first, so a
// second "phase 1" could carry completed tasks no gate checks.
func duplicateIDs(plan *swarm.Plan, phase int) error {
	var phaseLines []string
	taskLines := map[string][]string{}
	inPhase := map[string]bool{}
	for _, ph := range plan.Phases {
		if ph.ID == phase {
			phaseLines = append(phaseLines, strconv.Itoa(ph.Line))
		}
		for _, t := range ph.Tasks {
			taskLines[t.ID] = append(taskLines[t.ID], strconv.Itoa(t.Line))
			inPhase[t.ID] = inPhase[t.ID] || ph.ID == phase
		}
	}
	if len(phaseLines) > 1 {
		return fmt.Errorf("%s:%s: phase %d appears %d times (lines %s): the plugin and swarm-gate look a phase up by its id, so the tasks of all but the first would go unchecked; give each phase its own id", swarm.PlanPath, phaseLines[1], phase, len(phaseLines), strings.Join(phaseLines, ", "))
	}
	for _, ph := range plan.Phases {
		for _, t := range ph.Tasks {
			if l := taskLines[t.ID]; len(l) > 1 && inPhase[t.ID] {
				return fmt.Errorf("%s:%s: task %s appears %d times (lines %s): the plugin and swarm-gate look a task up by its id, so all but the first would go unchecked; give each task its own id", swarm.PlanPath, l[1], t.ID, len(l), strings.Join(l, ", "))
			}
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// listSome joins up to max items and says how many more there are.
func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(" (+%d more)", len(items)-max)
}

func taskIDs(tasks []swarm.Task) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return ids
}

// clipN shortens s to at most n runes, marking the cut with "...".
func clipN(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

// codes writes each item as a Markdown code span, for summaries.
func codes(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = mdtext.Code(s)
	}
	return out
}

// cell escapes '|' for a Markdown table cell (GFM splits cells on it even
// inside code spans).
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// upperFirst capitalises the first letter of an ASCII phrase ("phase 2" ->
// "Phase 2"), for sentences.
func upperFirst(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// isWordByte is JavaScript's \w: ASCII letters, digits and '_'.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
