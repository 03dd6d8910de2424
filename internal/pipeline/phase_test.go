package pipeline

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func TestPickPhase(t *testing.T) {
	plan := &swarm.Artifacts{Plan: &swarm.Plan{CurrentPhase: 3}}
	broken := &swarm.Artifacts{PlanErr: errors.New(".swarm/plan.json line 2: bad JSON")}
	task := func(id, status string) swarm.Task { return swarm.Task{ID: id, Status: status} }
	phases := func(cur int, phs ...swarm.Phase) *swarm.Artifacts {
		return &swarm.Artifacts{Present: true, Plan: &swarm.Plan{CurrentPhase: cur, Phases: phs}}
	}
	ph := func(id int, status string, ts ...swarm.Task) swarm.Phase {
		return swarm.Phase{ID: id, Status: status, Tasks: ts}
	}
	baseDone1 := phases(1, ph(1, "complete", task("1.1", "completed")), ph(2, "pending", task("2.1", "pending"), task("2.2", "pending")), ph(3, "pending", task("3.1", "pending")))
	tests := []struct {
		name    string
		pattern string
		h       phaseHints
		base    *swarm.Artifacts
		head    *swarm.Artifacts
		want    int
		src     gates.PhaseSource
		changed []int
		err     string
	}{
		{name: "the phase whose tasks change status, not the stale current_phase", base: baseDone1,
			head: phases(1, ph(1, "complete", task("1.1", "completed")), ph(2, "in_progress", task("2.1", "completed"), task("2.2", "in_progress")), ph(3, "pending", task("3.1", "pending"))),
			want: 2, src: gates.PhaseFromStatusChanges, changed: []int{2}},
		{name: "most changed tasks wins; every changed phase is listed", base: baseDone1,
			head: phases(1, ph(1, "complete", task("1.1", "completed")), ph(2, "in_progress", task("2.1", "completed"), task("2.2", "completed")), ph(3, "in_progress", task("3.1", "in_progress"))),
			want: 2, src: gates.PhaseFromStatusChanges, changed: []int{2, 3}},
		{name: "a tie goes to the lowest phase", base: baseDone1,
			head: phases(1, ph(1, "complete", task("1.1", "completed")), ph(2, "in_progress", task("2.1", "completed"), task("2.2", "pending")), ph(3, "in_progress", task("3.1", "completed"))),
			want: 2, src: gates.PhaseFromStatusChanges, changed: []int{2, 3}},
		{name: "a phase whose tasks move on wins over one whose tasks are reset", base: baseDone1,
			head: phases(1, ph(1, "pending", task("1.1", "pending")), ph(2, "in_progress", task("2.1", "pending"), task("2.2", "pending")), ph(3, "in_progress", task("3.1", "completed"))),
			want: 3, src: gates.PhaseFromStatusChanges, changed: []int{3}},
		{name: "only resets: the reset phase", base: baseDone1,
			head: phases(1, ph(1, "pending", task("1.1", "pending")), ph(2, "pending", task("2.1", "pending"), task("2.2", "pending")), ph(3, "pending", task("3.1", "pending"))),
			want: 1, src: gates.PhaseFromStatusChanges, changed: []int{1}},
		{name: "a new plan: its non-pending tasks are changes", base: &swarm.Artifacts{},
			head: phases(1, ph(1, "in_progress", task("1.1", "pending")), ph(2, "pending", task("2.1", "in_progress"))),
			want: 2, src: gates.PhaseFromStatusChanges, changed: []int{2}},
		{name: "no status change: the first phase not complete", base: baseDone1, head: baseDone1, want: 2, src: gates.PhaseFromActivePhase},
		{name: "all tasks completed counts as complete whatever the phase status says",
			base: phases(1, ph(1, "pending", task("1.1", "completed")), ph(2, "pending", task("2.1", "pending"))),
			head: phases(1, ph(1, "pending", task("1.1", "completed")), ph(2, "pending", task("2.1", "pending"))), want: 2, src: gates.PhaseFromActivePhase},
		{name: "a phase without tasks is not complete", base: &swarm.Artifacts{},
			head: phases(3, ph(1, "pending"), ph(2, "pending", task("2.1", "pending"))), want: 1, src: gates.PhaseFromActivePhase},
		{name: "every phase complete: current_phase", base: phases(2, ph(1, "complete", task("1.1", "completed")), ph(2, "complete", task("2.1", "completed"))),
			head: phases(2, ph(1, "complete", task("1.1", "completed")), ph(2, "complete", task("2.1", "completed"))), want: 2, src: gates.PhaseFromCurrentPhase},
		{name: "no plan on either side", base: &swarm.Artifacts{Present: true}, head: &swarm.Artifacts{Present: true}, want: 0, src: gates.PhaseFromNoPlan},
		{name: "the pull request deletes the plan", base: baseDone1, head: &swarm.Artifacts{}, want: 0, src: gates.PhaseFromNoPlan},
		{name: "the pull request deletes the plan, a label still names the phase", h: phaseHints{labels: []string{"swarm:phase-2"}}, base: baseDone1, head: &swarm.Artifacts{}, want: 2, src: gates.PhaseFromLabel},
		{name: "flag wins", h: phaseHints{flag: 7, branch: "swarm/phase-2", labels: []string{"swarm:phase-4"}}, head: plan, want: 7, src: gates.PhaseFromFlag},
		{name: "default branch", h: phaseHints{branch: "swarm/phase-2", labels: []string{"swarm:phase-4"}}, head: plan, want: 2, src: gates.PhaseFromBranch},
		{name: "branch that is not a phase branch falls to the label", h: phaseHints{branch: "feature/x", labels: []string{"bug", "swarm:phase-4"}}, head: plan, want: 4, src: gates.PhaseFromLabel},
		{name: "custom pattern", pattern: "agents/*/phase{N}", h: phaseHints{branch: "agents/alice/phase12"}, head: plan, want: 12, src: gates.PhaseFromBranch},
		{name: "custom pattern: the default branch no longer counts", pattern: "phase/{N}", h: phaseHints{branch: "swarm/phase-2"}, head: plan, want: 3, src: gates.PhaseFromCurrentPhase},
		{name: "current_phase last", h: phaseHints{branch: "main"}, head: plan, want: 3, src: gates.PhaseFromCurrentPhase},
		{name: "same phase twice in labels", h: phaseHints{labels: []string{"swarm:phase-4", "swarm:phase-4"}}, head: plan, want: 4, src: gates.PhaseFromLabel},
		{name: "labels disagree", h: phaseHints{labels: []string{"swarm:phase-4", "swarm:phase-5"}}, head: plan, err: `the labels "swarm:phase-4" and "swarm:phase-5" name different phases`},
		{name: "label phase 0", h: phaseHints{labels: []string{"swarm:phase-0"}}, head: plan, err: `the label "swarm:phase-0" names phase 0`},
		{name: "look-alike labels are not phase labels", h: phaseHints{labels: []string{"swarm:phase-4x", "Swarm:phase-4", "swarm:phase-"}}, head: plan, want: 3, src: gates.PhaseFromCurrentPhase},
		{name: "branch phase 0", h: phaseHints{branch: "swarm/phase-0"}, head: plan, err: `names phase 0, which is not a plan phase number`},
		{name: "broken plan with a label still gets its phase", h: phaseHints{labels: []string{"swarm:phase-1"}}, head: broken, want: 1, src: gates.PhaseFromLabel},
		{name: "broken plan and nothing else says what is wrong with the plan", h: phaseHints{branch: "main"}, head: broken, err: "cannot read the head plan: .swarm/plan.json line 2"},
		{name: "a plan without phases", h: phaseHints{branch: "main"}, head: &swarm.Artifacts{Plan: &swarm.Plan{}}, err: ".swarm/plan.json has no phases; pass --phase N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re, err := config.PhaseBranchRegexp(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			tt.h.branchRe = re
			if tt.base == nil {
				tt.base = &swarm.Artifacts{}
			}
			n, src, changed, err := pickPhase(tt.h, tt.base, tt.head)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil || n != tt.want || src != tt.src || !slices.Equal(changed, tt.changed) {
				t.Fatalf("pickPhase = %d, %q, %v, %v; want %d, %q, %v", n, src, changed, err, tt.want, tt.src, tt.changed)
			}
		})
	}
}
