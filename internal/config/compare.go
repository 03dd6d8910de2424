package config

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/swarm-gate/swarm-gate/gates"
)

// Effect is which way a policy change moves a gate.
type Effect string

// Effects of one setting's change.
const (
	Loosens  Effect = "loosens"  // fewer things fail
	Tightens Effect = "tightens" // more things fail
	Changes  Effect = "changes"  // neither (a setting swarm-gate accepts but does not act on, or a sideways move)
)

// Change is one setting that differs between two policies, in the file's
// words: Key "plan_freeze.approval", From "human", To "any".
type Change struct {
	Key    string `json:"key"`
	From   string `json:"from"`
	To     string `json:"to"`
	Effect Effect `json:"effect"`
}

// String is "loosens plan_freeze.approval: human → any", or for a list
// item "loosens scope.extras: adds \"dist/**\"" / "removes ...".
func (c Change) String() string {
	switch {
	case c.From == "" && c.To != "":
		return fmt.Sprintf("%s %s: adds %q", c.Effect, c.Key, c.To)
	case c.To == "" && c.From != "":
		return fmt.Sprintf("%s %s: removes %q", c.Effect, c.Key, c.From)
	}
	return fmt.Sprintf("%s %s: %s → %s", c.Effect, c.Key, c.From, c.To)
}

// setting is one key's value and its strictness: a higher rank fails more;
// rank -1 means the setting does nothing either way.
type setting struct {
	key   string
	value string
	rank  int
}

// settings lists a policy's scalar settings in file order, with ranks.
func settings(c *gates.Config) []setting {
	rank := func(v string, order ...string) int { return slices.Index(order, v) } // order: loosest first
	b := func(v bool) string { return strconv.FormatBool(v) }
	bi := func(v bool) int { // true is stricter
		if v {
			return 1
		}
		return 0
	}
	inv := func(v bool) int { return 1 - bi(v) } // false is stricter
	word := func(v bool, yes, no string) string {
		if v {
			return yes
		}
		return no
	}
	approval := string(c.PlanFreeze.Approval)
	agent := string(c.PlanFreeze.AgentOverrides)
	if agent == "" {
		agent = "default"
	}
	regression := string(c.PlanFreeze.StatusRegression)
	if regression == "" {
		regression = "default"
	}
	branch := c.PhaseBranch
	if branch == "" {
		branch = gates.DefaultPhaseBranch
	}
	q := c.QAGates
	s := []setting{
		{"phase_branch", branch, -1},
		{"plan_freeze.approval", approval, rank(approval, "any", "base-anchored", "human")},
		{"plan_freeze.legacy_plans", word(c.PlanFreeze.AllowLegacyPlans, "allow", "fail"), inv(c.PlanFreeze.AllowLegacyPlans)},
		{"plan_freeze.unhashed_changes", word(c.PlanFreeze.WarnUnhashedChanges, "warn", "fail"), inv(c.PlanFreeze.WarnUnhashedChanges)},
		{"plan_freeze.agent_overrides", agent, rank(agent, "allow", "default", "fail")},
		{"plan_freeze.status_regression", regression, rank(regression, "warn", "default", "fail")},
		{"scope.lockfiles", b(c.Scope.Lockfiles), inv(c.Scope.Lockfiles)},
		{"scope.untouched_completed", word(c.Scope.FailUntouchedCompleted, "fail", "warn"), bi(c.Scope.FailUntouchedCompleted)},
		{"scope.widened_by_pr", word(c.Scope.FailWidenedByPR, "fail", "warn"), bi(c.Scope.FailWidenedByPR)},
		{"scope.self_approved_widening", word(c.Scope.WarnSelfApprovedWidening, "warn", "fail"), inv(c.Scope.WarnSelfApprovedWidening)},
		{"scope.not_declared", word(c.Scope.WarnNotDeclared, "warn", "fail"), inv(c.Scope.WarnNotDeclared)},
		{"sast.severity_threshold", string(c.SAST.Threshold), rank(string(c.SAST.Threshold), "critical", "high", "medium", "low")},
		{"sast.baseline", string(c.SAST.Baseline), -1},
		{"sast.accept_triage", b(c.SAST.AcceptTriage), inv(c.SAST.AcceptTriage)},
		{"placeholders.markdown_headings", word(c.Placeholders.IgnoreMarkdownHeadings, "ignore", "flag"), inv(c.Placeholders.IgnoreMarkdownHeadings)},
		{"placeholders.prose", word(c.Placeholders.FailProse, "fail", "warn"), bi(c.Placeholders.FailProse)},
	}
	for _, name := range gates.QAGateNames {
		v := *q.Field(name)
		r := bi(v)
		switch name {
		case "sme_enabled", "council_mode", "council_general_review":
			r = -1 // accepted, not acted on
		}
		s = append(s, setting{"qa_gates." + name, b(v), r})
	}
	return append(s,
		setting{"drift.minor_drift", word(c.Drift.FailMinorDrift, "fail", "warn"), bi(c.Drift.FailMinorDrift)},
		setting{"drift.traceability", word(c.Drift.WarnTraceability, "warn", "fail"), inv(c.Drift.WarnTraceability)},
		setting{"plan_lint", word(c.PlanLint.Enforce, "fail", "advisory"), bi(c.PlanLint.Enforce)},
		setting{"phase_wrap.final_council_concerns", word(c.PhaseWrap.AllowFinalCouncilConcerns, "allow", "block"), inv(c.PhaseWrap.AllowFinalCouncilConcerns)},
		setting{"phase_wrap.phase_council_concerns", word(c.PhaseWrap.BlockPhaseCouncilConcerns, "block", "allow"), bi(c.PhaseWrap.BlockPhaseCouncilConcerns)},
		setting{"phase_wrap.require_docs", b(c.PhaseWrap.RequireDocs), bi(c.PhaseWrap.RequireDocs)},
		setting{"commands.min_permission", string(c.Commands.MinPermission), rank(string(c.Commands.MinPermission), "write", "maintain", "admin")},
		setting{"commands.allow_self_approval", b(c.Commands.AllowSelfApproval), inv(c.Commands.AllowSelfApproval)},
		// A lower limit leaves more files unscanned (failing closed, or
		// warned of): neither simply stricter nor looser.
		setting{"limits.max_file_bytes", strconv.FormatInt(c.Limits.MaxFileBytes, 10), -1},
		// A lower limit fails more pull requests closed, a higher one lets
		// bigger ones be evaluated: neither simply stricter nor looser.
		setting{"limits.max_changed_files", strconv.Itoa(c.Limits.MaxChangedFiles), -1},
		setting{"comment", string(c.Comment), -1}, // where the verdict is shown, not what it is
		setting{"limits.unscanned", word(c.Limits.WarnUnscanned, "warn", "fail"), inv(c.Limits.WarnUnscanned)},
		setting{"limits.new_generated", word(c.Limits.ScanNewGenerated, "scan", "skip"), bi(c.Limits.ScanNewGenerated)},
	)
}

// lists are the list settings and which way an added item moves the gate.
func lists(c *gates.Config) []struct {
	key   string
	items []string
	add   Effect
} {
	return []struct {
		key   string
		items []string
		add   Effect
	}{
		{"scope.extras", c.Scope.Extras, Loosens},             // more files any phase may change
		{"placeholders.allow", c.Placeholders.Allow, Loosens}, // more files not scanned
		{"placeholders.sentinels", c.Placeholders.Sentinels, Loosens},
		{"placeholders.disable", c.Placeholders.Disable, Loosens},
		{"phase_wrap.required_agents", c.PhaseWrap.RequiredAgents, Tightens},
		{"commands.teams", c.Commands.Teams, Tightens}, // fewer people may run commands
	}
}

// Compare lists every setting whose value differs from base to head, in
// file order, and says whether each loosens or tightens the gates. A list
// setting gives one Change per item added or removed (From or To "").
func Compare(base, head *gates.Config) []Change {
	var out []Change
	bs, hs := settings(base), settings(head)
	for i := range bs {
		b, h := bs[i], hs[i]
		if b.value == h.value {
			continue
		}
		e := Changes
		switch {
		case b.rank < 0 || h.rank < 0:
		case h.rank > b.rank:
			e = Tightens
		case h.rank < b.rank:
			e = Loosens
		}
		out = append(out, Change{Key: b.key, From: b.value, To: h.value, Effect: e})
	}
	bl, hl := lists(base), lists(head)
	for i := range bl {
		add, opposite := bl[i].add, Loosens
		if add == Loosens {
			opposite = Tightens
		}
		if bl[i].key == "commands.teams" && len(bl[i].items) > 0 {
			// Membership of any one listed team suffices: once there is a
			// list, another team lets more people in, and only emptying it
			// (back to everyone with min_permission) loosens more.
			add, opposite = Loosens, Tightens
			if len(hl[i].items) == 0 {
				opposite = Loosens
			}
		}
		for _, v := range hl[i].items {
			if !slices.Contains(bl[i].items, v) {
				out = append(out, Change{Key: bl[i].key, To: v, Effect: add})
			}
		}
		for _, v := range bl[i].items {
			if !slices.Contains(hl[i].items, v) {
				out = append(out, Change{Key: bl[i].key, From: v, Effect: opposite})
			}
		}
	}
	return out
}
