package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func TestPickPhase(t *testing.T) {
	plan := &swarm.Artifacts{Plan: &swarm.Plan{CurrentPhase: 3}}
	broken := &swarm.Artifacts{PlanErr: errors.New(".swarm/plan.json line 2: bad JSON")}
	tests := []struct {
		name    string
		pattern string
		h       phaseHints
		head    *swarm.Artifacts
		want    int
		src     gates.PhaseSource
		err     string
	}{
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
		{name: "nothing names a phase", h: phaseHints{branch: "main"}, head: &swarm.Artifacts{Plan: &swarm.Plan{}}, err: "no swarm:phase-<N> label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re, err := config.PhaseBranchRegexp(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			tt.h.branchRe = re
			n, src, err := pickPhase(tt.h, tt.head)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil || n != tt.want || src != tt.src {
				t.Fatalf("pickPhase = %d, %q, %v; want %d, %q", n, src, err, tt.want, tt.src)
			}
		})
	}
}
