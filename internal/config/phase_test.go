package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func TestParseQAGates(t *testing.T) {
	def := gates.DefaultQAGates()
	tests := []struct {
		name string
		yaml string
		want func(q *gates.QAGates)
	}{
		{"absent: the plugin defaults", "", func(q *gates.QAGates) {}},
		{"some keys", "qa_gates:\n  drift_check: false\n  final_council: true\n", func(q *gates.QAGates) {
			q.DriftCheck, q.FinalCouncil, q.FromFile = false, true, true
		}},
		{"all twelve", "qa_gates:\n  reviewer: false\n  test_engineer: false\n  sme_enabled: false\n  critic_pre_plan: false\n  sast_enabled: false\n  council_mode: false\n  hallucination_guard: true\n  mutation_test: true\n  council_general_review: true\n  drift_check: false\n  final_council: true\n  phase_council: true\n",
			func(q *gates.QAGates) {
				*q = gates.QAGates{HallucinationGuard: true, MutationTest: true, CouncilGeneralReview: true, FinalCouncil: true, PhaseCouncil: true, FromFile: true}
			}},
		{"legacy council_mode without phase_council", "qa_gates:\n  council_mode: true\n", func(q *gates.QAGates) {
			q.PhaseCouncil, q.FromFile, q.LegacyCouncilMode = true, true, true
		}},
		{"council_mode with phase_council stays as written", "qa_gates:\n  council_mode: true\n  phase_council: false\n", func(q *gates.QAGates) {
			q.CouncilMode, q.FromFile = true, true
		}},
		{"empty mapping", "qa_gates: {}\n", func(q *gates.QAGates) { q.FromFile = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(Path, []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			want := def
			tt.want(&want)
			if c.QAGates != want {
				t.Errorf("got %+v\nwant %+v", c.QAGates, want)
			}
		})
	}
}

func TestParsePhaseSections(t *testing.T) {
	c, err := Parse(Path, []byte("drift:\n  minor_drift: fail\n  traceability: warn\nplan_lint: fail\nphase_wrap:\n  final_council_concerns: allow\n  phase_council_concerns: block\n  require_docs: false\n  required_agents: [coder, reviewer]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Drift != (gates.DriftConfig{FailMinorDrift: true, WarnTraceability: true}) || !c.PlanLint.Enforce {
		t.Errorf("drift %+v plan_lint %+v", c.Drift, c.PlanLint)
	}
	want := gates.PhaseWrapConfig{AllowFinalCouncilConcerns: true, BlockPhaseCouncilConcerns: true, RequiredAgents: []string{"coder", "reviewer"}}
	if !reflect.DeepEqual(c.PhaseWrap, want) {
		t.Errorf("phase_wrap %+v", c.PhaseWrap)
	}
	d, err := Parse(Path, []byte("drift:\n  minor_drift: warn\nplan_lint: advisory\nphase_wrap:\n  final_council_concerns: block\n"))
	if err != nil {
		t.Fatal(err)
	}
	def := gates.DefaultConfig()
	if d.Drift != def.Drift || d.PlanLint != def.PlanLint || !reflect.DeepEqual(d.PhaseWrap, def.PhaseWrap) {
		t.Errorf("explicit defaults differ: %+v %+v %+v", d.Drift, d.PlanLint, d.PhaseWrap)
	}
	if !def.PhaseWrap.RequireDocs || !reflect.DeepEqual(def.PhaseWrap.RequiredAgents, []string{"coder", "reviewer", "test_engineer"}) {
		t.Errorf("defaults %+v", def.PhaseWrap)
	}
}

func TestParsePhaseSectionErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		msg        string
	}{
		{"unknown QA gate", "qa_gates:\n  drift: true\n", 2, `unknown key "drift" in qa_gates`},
		{"QA gate typo", "qa_gates:\n  drift_chek: true\n", 2, `did you mean "drift_check"?`},
		{"QA gate not a boolean", "qa_gates:\n  reviewer: yes please\n", 2, "qa_gates.reviewer must be true or false"},
		{"QA gate quoted", "qa_gates:\n  reviewer: \"true\"\n", 2, "qa_gates.reviewer must be true or false"},
		{"qa_gates a list", "qa_gates: [reviewer]\n", 1, "qa_gates must be a mapping"},
		{"minor_drift value", "drift:\n  minor_drift: ignore\n", 2, `drift.minor_drift: "ignore" is not one of warn, fail`},
		{"traceability value", "drift:\n  traceability: off\n", 2, "drift.traceability"},
		{"drift unknown key", "drift:\n  minor: warn\n", 2, `unknown key "minor" in drift`},
		{"plan_lint value", "plan_lint: strict\n", 1, `plan_lint: "strict" is not one of advisory, fail`},
		{"plan_lint a mapping", "plan_lint:\n  mode: fail\n", 2, "plan_lint must be a string"},
		// A boolean names the valid values (item 7).
		{"plan_lint a boolean", "plan_lint: true\n", 1, `plan_lint must be a string, found true or false "true": the valid values are advisory or fail`},
		{"minor_drift a boolean", "drift:\n  minor_drift: false\n", 2, "the valid values are warn or fail"},
		{"final_council_concerns value", "phase_wrap:\n  final_council_concerns: warn\n", 2, "is not one of block, allow"},
		{"require_docs not a boolean", "phase_wrap:\n  require_docs: maybe\n", 2, "phase_wrap.require_docs must be true or false"},
		{"required_agents not a list", "phase_wrap:\n  required_agents: coder\n", 2, "must be a list of agent names"},
		{"required_agents bad name", "phase_wrap:\n  required_agents: [coder, \"Test Engineer\"]\n", 2, `phase_wrap.required_agents[1]: "Test Engineer" is not an agent name`},
		{"phase_wrap unknown key", "phase_wrap:\n  docs: true\n", 2, `unknown key "docs" in phase_wrap`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Path, []byte(tt.yaml))
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != Path {
				t.Fatalf("error %v", err)
			}
			if ae.Line != tt.line || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q (line %d), want line %d containing %q", err, ae.Line, tt.line, tt.msg)
			}
		})
	}
}

func FuzzParsePhaseSections(f *testing.F) {
	for _, s := range []string{"qa_gates:\n  council_mode: true\n", "qa_gates: {drift_check: false}\n", "drift: {minor_drift: fail}\nplan_lint: fail\n",
		"phase_wrap:\n  required_agents: [coder]\n  require_docs: false\n", "qa_gates: &q {reviewer: false}\nphase_wrap: *q\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(Path, data)
		if err != nil {
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != Path {
				t.Fatalf("error %T %v does not name the file", err, err)
			}
			return
		}
		q := c.QAGates
		if q.LegacyCouncilMode && (q.CouncilMode || !q.PhaseCouncil || !q.FromFile) {
			t.Fatalf("legacy council_mode not mapped: %+v", q)
		}
		if !q.FromFile && q != gates.DefaultQAGates() {
			t.Fatalf("profile changed without a qa_gates section: %+v", q)
		}
		for _, a := range c.PhaseWrap.RequiredAgents {
			if !agentName.MatchString(a) {
				t.Fatalf("agent %q", a)
			}
		}
	})
}
