package gates

import (
	"fmt"
	"strings"
)

// QAGates is the plugin's QA gate profile (src/db/qa-gate-profile.ts, spec
// section 8.4): which gates a plan runs. The plugin keeps it in SQLite
// (.swarm/swarm.db), which repositories rarely commit, so swarm-gate reads it
// from the qa_gates section of the base branch's policy file and falls back
// to the plugin's defaults (DefaultQAGates).
type QAGates struct {
	Reviewer             bool
	TestEngineer         bool
	SMEEnabled           bool
	CriticPrePlan        bool
	SASTEnabled          bool
	CouncilMode          bool
	HallucinationGuard   bool
	MutationTest         bool
	CouncilGeneralReview bool
	DriftCheck           bool
	FinalCouncil         bool
	PhaseCouncil         bool

	// FromFile is true when the policy file has a qa_gates section (keys it
	// leaves out still take the defaults).
	FromFile bool
	// LegacyCouncilMode is true when the section set council_mode: true
	// without phase_council, which the plugin reads as phase_council: true,
	// council_mode: false (and so does swarm-gate).
	LegacyCouncilMode bool
}

// DefaultQAGates is the plugin's default profile: reviewer, test_engineer,
// sme_enabled, critic_pre_plan, sast_enabled and drift_check on; the
// councils, hallucination_guard and mutation_test off.
func DefaultQAGates() QAGates {
	return QAGates{Reviewer: true, TestEngineer: true, SMEEnabled: true, CriticPrePlan: true, SASTEnabled: true, DriftCheck: true}
}

// QAGateNames are the profile's keys, in the order the plugin lists them.
var QAGateNames = []string{"reviewer", "test_engineer", "sme_enabled", "critic_pre_plan", "sast_enabled", "council_mode",
	"hallucination_guard", "mutation_test", "council_general_review", "drift_check", "final_council", "phase_council"}

// Field returns a pointer to the profile's flag for a key of QAGateNames,
// or nil for another key.
func (q *QAGates) Field(name string) *bool {
	switch name {
	case "reviewer":
		return &q.Reviewer
	case "test_engineer":
		return &q.TestEngineer
	case "sme_enabled":
		return &q.SMEEnabled
	case "critic_pre_plan":
		return &q.CriticPrePlan
	case "sast_enabled":
		return &q.SASTEnabled
	case "council_mode":
		return &q.CouncilMode
	case "hallucination_guard":
		return &q.HallucinationGuard
	case "mutation_test":
		return &q.MutationTest
	case "council_general_review":
		return &q.CouncilGeneralReview
	case "drift_check":
		return &q.DriftCheck
	case "final_council":
		return &q.FinalCouncil
	case "phase_council":
		return &q.PhaseCouncil
	}
	return nil
}

// On lists the keys that are on, in QAGateNames order.
func (q QAGates) On() []string {
	var on []string
	for _, n := range QAGateNames {
		if *q.Field(n) {
			on = append(on, n)
		}
	}
	return on
}

// QAGateOff reports whether the QA gate profile turns off the gate with the
// profile key name (a key of QAGateNames: "sast_enabled", "critic_pre_plan",
// ...), and if so the reason, for the title or summary of a gate that then
// returns not_applicable: e.g. "sast_enabled is off in the QA gate profile
// (qa_gates in .github/swarm-gate.yml at base 1a2b3c4d5e6f)". An unknown key
// is never off. The profile is the base branch's policy (qa_gates), else the
// plugin's defaults, under which sast_enabled and critic_pre_plan are on.
//
// Its callers: swarm/sast with "sast_enabled" and swarm/critic with
// "critic_pre_plan" (the plugin's plan-critic gate requires an approval only
// when critic_pre_plan is on: resolvePlanCriticPolicyForExecution in
// src/hooks/delegation-gate.ts).
func (in *Input) QAGateOff(name string) (reason string, off bool) {
	c := in.config()
	q := c.QAGates
	f := q.Field(name)
	if f == nil || *f {
		return "", false
	}
	where := "the plugin's defaults; the policy has no qa_gates section"
	if q.FromFile {
		where = "qa_gates in " + c.Source
	}
	return fmt.Sprintf("%s is off in the QA gate profile (%s)", name, where), true
}

// qaProfileSource says which QA gate profile applies and where it came from,
// for summaries.
func (c *Config) qaProfileSource() string {
	q := c.QAGates
	where := "the plugin's defaults (the policy has no qa_gates section)"
	if q.FromFile {
		where = "qa_gates in " + c.Source
		if q.LegacyCouncilMode {
			where += " (council_mode: true without phase_council read as phase_council: true, as the plugin does)"
		}
	}
	return fmt.Sprintf("QA gate profile: %s; on: %s", where, strings.Join(q.On(), ", "))
}

// DriftConfig is the drift section of the policy file.
type DriftConfig struct {
	// FailMinorDrift makes a MINOR_DRIFT per-task verdict fail swarm/drift
	// (default false: a warning).
	FailMinorDrift bool
	// WarnTraceability turns unmapped MUST/SHALL requirements and criteria
	// into warnings (default false: they fail).
	WarnTraceability bool
}

// PlanLintConfig is the plan_lint key of the policy file.
type PlanLintConfig struct {
	// Enforce makes swarm/plan-lint fail on its findings (plan_lint: fail);
	// by default it is advisory and reports them with a neutral outcome.
	Enforce bool
}

// PhaseWrapConfig is the phase_wrap section of the policy file.
type PhaseWrapConfig struct {
	// AllowFinalCouncilConcerns lets a final council verdict of CONCERNS
	// close the last phase, as the plugin does by default
	// (finalConcernsAllowComplete). swarm-gate blocks it by default.
	AllowFinalCouncilConcerns bool
	// BlockPhaseCouncilConcerns makes a phase council verdict of CONCERNS
	// block (the plugin's phaseConcernsAllowComplete: false); default
	// false: CONCERNS passes with a warning, as in the plugin.
	BlockPhaseCouncilConcerns bool
	// RequireDocs adds docs to the required agents (the plugin's
	// phase_complete.require_docs, default true).
	RequireDocs bool
	// RequiredAgents are the agents a phase needs when its plan entry has
	// no required_agents (the plugin's phase_complete.required_agents).
	RequiredAgents []string
}

// DefaultRequiredAgents is the plugin's default phase_complete.required_agents.
func DefaultRequiredAgents() []string { return []string{"coder", "reviewer", "test_engineer"} }
