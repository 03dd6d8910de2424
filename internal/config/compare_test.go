package config

import (
	"slices"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name       string
		base, head string
		want       []string
	}{
		{"same settings, other layout", "plan_freeze:\n  approval: human\n", "# tightened in 2026\nplan_freeze: {approval: human}\n", nil},
		{"an explicit default changes nothing", "", "scope:\n  lockfiles: true\nsast:\n  severity_threshold: medium\n", nil},
		{"approval relaxed", "plan_freeze:\n  approval: human\n", "plan_freeze:\n  approval: base-anchored\n", []string{"loosens plan_freeze.approval: human → base-anchored"}},
		{"severity threshold: low is strictest", "", "sast:\n  severity_threshold: low\n", []string{"tightens sast.severity_threshold: medium → low"}},
		{"warn and fail both ways", "", "scope:\n  self_approved_widening: warn\n  widened_by_pr: fail\n", []string{"tightens scope.widened_by_pr: warn → fail", "loosens scope.self_approved_widening: fail → warn"}},
		{"a gate turned off", "", "qa_gates:\n  reviewer: false\n  sme_enabled: false\n", []string{"loosens qa_gates.reviewer: true → false", "changes qa_gates.sme_enabled: true → false"}},
		{"sideways: baseline mode and the phase branch", "", "sast:\n  baseline: file\nphase_branch: phase-{N}\n", []string{"changes phase_branch: swarm/phase-{N} → phase-{N}", "changes sast.baseline: auto → file"}},
		{"list items added and removed", "scope:\n  extras: [dist/**]\n", "scope:\n  extras: [gen/**]\nplaceholders:\n  disable: [placeholder/code-stub-return]\n",
			[]string{`loosens scope.extras: adds "gen/**"`, `tightens scope.extras: removes "dist/**"`, `loosens placeholders.disable: adds "placeholder/code-stub-return"`}},
		{"teams: a first team narrows, another widens, none is everyone", "", "commands:\n  teams: [o/a]\n", []string{`tightens commands.teams: adds "o/a"`}},
		{"teams: a second team lets more people in", "commands:\n  teams: [o/a]\n", "commands:\n  teams: [o/a, o/b]\n", []string{`loosens commands.teams: adds "o/b"`}},
		{"teams: removing one of two narrows", "commands:\n  teams: [o/a, o/b]\n", "commands:\n  teams: [o/a]\n", []string{`tightens commands.teams: removes "o/b"`}},
		{"teams: removing the last one is everyone again", "commands:\n  teams: [o/a]\n", "commands:\n  min_permission: admin\n", []string{"tightens commands.min_permission: write → admin", `loosens commands.teams: removes "o/a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := Parse(Path, []byte(tt.base))
			if err != nil {
				t.Fatal(err)
			}
			head, err := Parse(Path, []byte(tt.head))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range Compare(base, head) {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
