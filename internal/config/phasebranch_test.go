package config

import (
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

func TestPhaseBranch(t *testing.T) {
	tests := []struct {
		yaml, want, err string
	}{
		{yaml: "", want: ""},
		{yaml: "phase_branch: phase/{N}\n", want: "phase/{N}"},
		{yaml: "phase_branch: 'agents/*/phase-{N}-*'\n", want: "agents/*/phase-{N}-*"},
		{yaml: "phase_branch: phase/N\n", err: "swarm-gate.yml: line 1, column 15: phase_branch \"phase/N\" must contain {N} exactly once"},
		{yaml: "version: 1\nphase_branch: '{N}/{N}'\n", err: "swarm-gate.yml: line 2, column 15: phase_branch \"{N}/{N}\" must contain {N} exactly once"},
		{yaml: "phase_branch: 'a b/{N}'\n", err: "a character git does not allow"},
		{yaml: "phase_branch: 3\n", err: "phase_branch must be"},
		{yaml: "phase_brnch: x/{N}\n", err: "phase_branch"},
	}
	for _, tt := range tests {
		c, err := Parse("swarm-gate.yml", []byte(tt.yaml))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.yaml, err, tt.err)
			}
			continue
		}
		if err != nil || c.PhaseBranch != tt.want {
			t.Errorf("%q: PhaseBranch = %q, %v; want %q", tt.yaml, c.PhaseBranch, err, tt.want)
		}
	}
	re, err := PhaseBranchRegexp("")
	if err != nil || re.String() != `^swarm/phase\-([0-9]+)$` && re.String() != `^swarm/phase-([0-9]+)$` {
		t.Errorf("default = %v, %v", re, err)
	}
	if m := re.FindStringSubmatch("swarm/phase-12"); m == nil || m[1] != "12" {
		t.Errorf("default pattern does not take swarm/phase-12: %v", m)
	}
	if gates.DefaultPhaseBranch != "swarm/phase-{N}" {
		t.Errorf("DefaultPhaseBranch = %q", gates.DefaultPhaseBranch)
	}
}
