package gates

import (
	"strings"
	"testing"
)

// TestQAGateOff: item 9: the helper swarm/sast and swarm/critic call to
// return not_applicable when the profile turns them off.
func TestQAGateOff(t *testing.T) {
	fromFile := DefaultConfig()
	fromFile.Source = ".github/swarm-gate.yml at base 1a2b3c4d5e6f"
	fromFile.QAGates.FromFile = true
	fromFile.QAGates.SASTEnabled = false
	fromFile.QAGates.CriticPrePlan = false
	cases := []struct {
		name    string
		cfg     *Config
		key     string
		off     bool
		mention string
	}{
		{"defaults: sast on", DefaultConfig(), "sast_enabled", false, ""},
		{"defaults: critic on", DefaultConfig(), "critic_pre_plan", false, ""},
		{"defaults: mutation_test off", DefaultConfig(), "mutation_test", true, "mutation_test is off in the QA gate profile (the plugin's defaults; the policy has no qa_gates section)"},
		{"policy: sast off", fromFile, "sast_enabled", true, "sast_enabled is off in the QA gate profile (qa_gates in .github/swarm-gate.yml at base 1a2b3c4d5e6f)"},
		{"policy: critic off", fromFile, "critic_pre_plan", true, "critic_pre_plan is off in the QA gate profile (qa_gates in"},
		{"policy: reviewer still on", fromFile, "reviewer", false, ""},
		{"an unknown key is never off", fromFile, "sast", false, ""},
		{"no config: the defaults", nil, "sast_enabled", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reason, off := (&Input{Config: c.cfg}).QAGateOff(c.key)
			if off != c.off || !strings.Contains(reason, c.mention) || (!off && reason != "") {
				t.Errorf("QAGateOff(%q) = %q, %v; want %v mentioning %q", c.key, reason, off, c.off, c.mention)
			}
		})
	}
}
