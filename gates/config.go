package gates

// Config is the policy the gates apply, read from the base branch's
// .github/swarm-gate.yml (DESIGN.md section 3.1: a pull request cannot relax
// its own rules). The zero value is not valid; start from DefaultConfig.
// internal/config parses the file into this type.
type Config struct {
	// Source says where the policy came from, for summaries: e.g.
	// ".github/swarm-gate.yml at 1a2b3c4" or "built-in defaults".
	Source string

	PlanFreeze PlanFreezeConfig
	Scope      ScopeConfig
}

// ApprovalPolicy is which plan-critic approvals swarm/plan-freeze accepts.
type ApprovalPolicy string

// Approval policies, from the most permissive.
const (
	// ApprovalAny accepts any plan-critic approval in the ledger, including
	// one the agent added in this pull request (plugin-compatible default).
	ApprovalAny ApprovalPolicy = "any"
	// ApprovalBaseAnchored accepts an approval already on the base side, or
	// a human override.
	ApprovalBaseAnchored ApprovalPolicy = "base-anchored"
	// ApprovalHuman accepts only a human override recorded by swarm-gate.
	ApprovalHuman ApprovalPolicy = "human"
)

// PlanFreezeConfig is the plan_freeze section of the config file.
type PlanFreezeConfig struct {
	// Approval is which approvals count (default ApprovalAny).
	Approval ApprovalPolicy
	// AllowLegacyPlans lets a plan whose ledger predates the plugin's
	// mechanical plan-critic gate (every event at schema_version 1.0.0) pass
	// without a plan-critic approval (default false: such plans fail with a
	// hint).
	AllowLegacyPlans bool
	// WarnUnhashedChanges turns changes to fields outside the structure hash
	// that still matter to the process (task fr_refs, phase type) into
	// warnings instead of failures (default false: they fail).
	WarnUnhashedChanges bool
	// FailAgentOverrides fails, instead of warning about, a plan-critic
	// approval the agent recorded itself (manual_override with
	// user_confirmed false, from the plugin's approve_plan_critic tool).
	FailAgentOverrides bool
}

// ScopeConfig is the scope section of the config file.
type ScopeConfig struct {
	// Extras are doublestar glob patterns (github.com/bmatcuk/doublestar/v4
	// syntax, '/'-separated, matched against the whole repository-relative
	// path) of files every phase may change: generated outputs, lockfiles
	// the defaults do not cover. Validated when the config is read.
	Extras []string
	// Lockfiles lets a lockfile change when the manifest beside it is in
	// scope (go.sum with go.mod, package-lock.json with package.json, ...;
	// see LockfileManifests). Default true.
	Lockfiles bool
	// FailUntouchedCompleted fails, instead of warning about, a task this
	// pull request marks completed although none of its scoped files
	// changed (default false: a warning).
	FailUntouchedCompleted bool
	// FailWidenedByPR fails, instead of warning about, a scope declaration
	// the pull request adds or changes that covers more than the task's
	// files_touched (default false: a warning).
	FailWidenedByPR bool
	// WarnNotDeclared turns SCOPE_NOT_DECLARED (a phase whose tasks declare
	// no scope at all) into a warning, letting the gate pass (default false:
	// it fails).
	WarnNotDeclared bool
}

// DefaultConfig is the policy when the base branch has no config file:
// plugin-compatible, fail-closed.
func DefaultConfig() *Config {
	return &Config{
		Source:     "built-in defaults (no .github/swarm-gate.yml on the base branch)",
		PlanFreeze: PlanFreezeConfig{Approval: ApprovalAny},
		Scope:      ScopeConfig{Lockfiles: true},
	}
}

// config returns the input's policy, or the defaults.
func (in *Input) config() *Config {
	if in.Config != nil {
		return in.Config
	}
	return DefaultConfig()
}

// Override is a human decision recorded by swarm-gate itself (DESIGN.md
// section 3.5), e.g. from an authorized `/swarm approve-plan-critic <reason>`
// comment. It is bound to the head SHA and plan structure hash current when
// it was made; a later change of the structure voids it.
type Override struct {
	// Command is the comment command: "approve-plan-critic" or
	// "acknowledge-spec-drift".
	Command string
	// Actor is the GitHub login of the human who ran it.
	Actor  string
	Reason string
	// RecordedAt is an RFC 3339 timestamp.
	RecordedAt string
	// HeadSHA and StructureHash are what the override is bound to.
	HeadSHA       string
	StructureHash string
	// URL links to the comment or commit that records it ("" if none).
	URL string
}

// Override commands.
const (
	CommandApprovePlanCritic    = "approve-plan-critic"
	CommandAcknowledgeSpecDrift = "acknowledge-spec-drift"
)

// override returns the newest override of the given command bound to the
// structure hash, or nil.
func (in *Input) override(command, structureHash string) *Override {
	for i := len(in.Overrides) - 1; i >= 0; i-- {
		o := &in.Overrides[i]
		if o.Command == command && o.StructureHash == structureHash {
			return o
		}
	}
	return nil
}
