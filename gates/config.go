package gates

import "github.com/swarm-gate/swarm-gate/internal/sast"

// Config is the policy the gates apply, read from the base branch's
// .github/swarm-gate.yml (DESIGN.md section 3.1: a pull request cannot relax
// its own rules). The zero value is not valid; start from DefaultConfig.
// internal/config parses the file into this type.
type Config struct {
	// Source says where the policy came from, for summaries: e.g.
	// ".github/swarm-gate.yml at 1a2b3c4" or "built-in defaults".
	Source string

	PlanFreeze   PlanFreezeConfig
	Scope        ScopeConfig
	SAST         SASTConfig
	Placeholders PlaceholdersConfig

	// The QA gate profile and the phase-close checks (qa_gates.go).
	QAGates   QAGates
	Drift     DriftConfig
	PlanLint  PlanLintConfig
	PhaseWrap PhaseWrapConfig

	// Limits bounds what the diff reads and says whether a file left
	// unscanned fails the gates (the limits section).
	Limits LimitsConfig

	// Commands is who may run `/swarm` comment commands.
	Commands CommandsConfig

	// PhaseBranch is the head branch pattern that names a pull request's
	// phase (DESIGN.md section 2): literal text with one "{N}" where the
	// phase number goes and "*" for any run of characters; "" means
	// DefaultPhaseBranch. internal/config checks it when it reads it.
	PhaseBranch string

	// Comment is when the sticky pull request summary comment is posted
	// (the comment key): CommentOnFailure, the default, when
	// it is not "".
	Comment CommentPolicy
}

// CommentPolicy is the comment key of the config file: when swarm-gate
// posts its one summary comment on a pull request.
type CommentPolicy string

// The comment policies.
const (
	// CommentOn posts the comment on every evaluation of a pull request,
	// passing or not.
	CommentOn CommentPolicy = "on"
	// CommentOff posts none (an existing one is left as it is).
	CommentOff CommentPolicy = "off"
	// CommentOnFailure posts one when a check does not pass, and keeps
	// one that exists up to date (it then says when every check passes).
	CommentOnFailure CommentPolicy = "on-failure"
)

// DefaultPhaseBranch is DESIGN.md section 2's phase branch: swarm/phase-<N>.
const DefaultPhaseBranch = "swarm/phase-{N}"

// CommandPermission is a repository permission level a comment command
// requires.
type CommandPermission string

// The permission levels commands.min_permission takes.
const (
	PermissionWrite    CommandPermission = "write"
	PermissionMaintain CommandPermission = "maintain"
	PermissionAdmin    CommandPermission = "admin"
)

// CommandsConfig is the commands section of the config file.
type CommandsConfig struct {
	// MinPermission is the lowest repository permission that may run a
	// command other than help (default write).
	MinPermission CommandPermission
	// AllowSelfApproval lets the pull request's author record overrides
	// on their own pull request (default false).
	AllowSelfApproval bool
	// Teams, when not empty, narrows who may run a command other than
	// help to active members of at least one of these organization teams
	// ("org/team-slug"), on top of MinPermission (commands.teams).
	Teams []string
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
	// AgentOverrides decides a plan-critic approval that no critic gave
	// and no human comment backs (SelfApproval: the plugin's
	// approve_plan_critic tool, or a manual override the pull request adds):
	// "" (the default) accepts it for bookkeeping-grade changes, with a
	// warning, and fails it when it is the only approval of a material
	// change, as the critic-gate protocol says; AgentOverridesAllow always
	// warns; AgentOverridesFail always fails.
	AgentOverrides AgentOverridePolicy
	// StatusRegression decides a task completed on the merge base that the
	// pull request resets or removes: "" (the default) fails when the
	// task's phase was complete on the merge base or the task's evidence is
	// deleted in the same pull request, and warns otherwise;
	// RegressionFail always fails; RegressionWarn always warns.
	StatusRegression RegressionPolicy
}

// AgentOverridePolicy is plan_freeze.agent_overrides.
type AgentOverridePolicy string

// Agent override policies ("warn", the old name of allow, parses as allow).
const (
	AgentOverridesDefault AgentOverridePolicy = ""
	AgentOverridesAllow   AgentOverridePolicy = "allow"
	AgentOverridesFail    AgentOverridePolicy = "fail"
)

// RegressionPolicy is plan_freeze.status_regression.
type RegressionPolicy string

// Status regression policies.
const (
	RegressionDefault RegressionPolicy = ""
	RegressionFail    RegressionPolicy = "fail"
	RegressionWarn    RegressionPolicy = "warn"
)

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
	// WarnSelfApprovedWidening turns RuleSelfApprovedWidening (a task's
	// scope widened by this pull request to cover a file it changes, with
	// only an approval the pull request itself adds behind the new plan,
	// or a declaration it adds giving a task more than its files_touched)
	// into a warning (default false: it fails).
	WarnSelfApprovedWidening bool
	// WarnNotDeclared turns SCOPE_NOT_DECLARED (a phase whose tasks declare
	// no scope at all) into a warning, letting the gate pass (default false:
	// it fails).
	WarnNotDeclared bool
}

// PlaceholdersConfig is the placeholders section of the config file. The
// zero value is the default: the plugin's rules, SC-PLACEHOLDER as the only
// sentinel, Markdown "# TODO:" headings reported (as warnings).
type PlaceholdersConfig struct {
	// Allow are doublestar glob patterns of files the gate does not scan
	// (the plugin's allow_globs), each matched against the whole
	// repository-relative path and against the file name: "**/fixtures/**",
	// "*.snap". Validated when the config is read.
	Allow []string
	// Sentinels are strings that drop a finding when its excerpt (the
	// line's first 100 characters) contains one, ignoring case, as
	// SC-PLACEHOLDER always does (the plugin's sentinel_allowlist).
	Sentinels []string
	// IgnoreMarkdownHeadings stops reporting a Markdown "# TODO:" heading
	// (a prose marker, reported as a warning). Default false.
	IgnoreMarkdownHeadings bool
	// FailProse makes a prose marker (a TODO: or FIXME: starting a line of
	// Markdown or text) a failure instead of a warning
	// (placeholders.prose: fail). Default false.
	FailProse bool
	// Disable lists rule ids (see PlaceholderRules) that are not applied,
	// e.g. placeholder/code-stub-return.
	// placeholder/suppression-without-reason cannot be disabled.
	Disable []string
}

// SASTBaselineMode is where swarm/sast's baseline comes from.
type SASTBaselineMode string

// Baseline modes.
const (
	// SASTBaselineAuto: the phase's sast-baseline.json at the merge base
	// when there is one, else SASTBaselineMergeBase.
	SASTBaselineAuto SASTBaselineMode = "auto"
	// SASTBaselineFile: only the baseline file (none is an error).
	SASTBaselineFile SASTBaselineMode = "file"
	// SASTBaselineMergeBase: the same rules run on the merge base's version
	// of each changed file.
	SASTBaselineMergeBase SASTBaselineMode = "merge-base"
)

// SASTConfig is the sast section of the config file.
type SASTConfig struct {
	// Threshold is the lowest severity of a new finding that fails the
	// gate (default medium, as the plugin's sast_scan).
	Threshold sast.Severity
	// Baseline is where the baseline comes from (default auto).
	Baseline SASTBaselineMode
	// AcceptTriage lets fingerprints the pull request adds to its own
	// baseline file, each with a triage rationale, clear their findings
	// (default false: agent self-triage does not clear the gate).
	AcceptTriage bool
}

// DefaultConfig is the policy when the base branch has no config file:
// plugin-compatible, fail-closed.
func DefaultConfig() *Config {
	return &Config{
		Source:     "built-in defaults (no .github/swarm-gate.yml on the base branch)",
		PlanFreeze: PlanFreezeConfig{Approval: ApprovalAny},
		Scope:      ScopeConfig{Lockfiles: true},
		SAST:       SASTConfig{Threshold: sast.Medium, Baseline: SASTBaselineAuto},

		QAGates:   DefaultQAGates(),
		PhaseWrap: PhaseWrapConfig{RequireDocs: true, RequiredAgents: DefaultRequiredAgents()},
		Commands:  CommandsConfig{MinPermission: PermissionWrite},
		Limits:    LimitsConfig{MaxFileBytes: DefaultMaxFileBytes, MaxChangedFiles: DefaultMaxChangedFiles},
		Comment:   CommentOnFailure,
	}
}

// DefaultMaxFileBytes is limits.max_file_bytes when the policy does not set
// it: 16 MiB. MinMaxFileBytes and MaxMaxFileBytes bound what it accepts.
const (
	DefaultMaxFileBytes = 16 << 20
	MinMaxFileBytes     = 1 << 20
	MaxMaxFileBytes     = 1 << 30
)

// DefaultMaxChangedFiles is limits.max_changed_files when the policy does
// not set it. An evaluation grows by about 2 KB per changed path (measured:
// 30,000 one-line files took 115 MB peak, 100,000 took 270 MB, 300,000
// 800 MB and 1.5 minutes): 30,000 keeps it near 120 MB, well inside the
// App's 512 MiB, and passes vendoring a dependency tree or renaming a
// directory of 15,000 files (a rename counts its two paths).
// MinMaxChangedFiles and MaxMaxChangedFiles bound what it accepts.
const (
	DefaultMaxChangedFiles = 30_000
	MinMaxChangedFiles     = 100
	MaxMaxChangedFiles     = 1_000_000
)

// LimitsConfig is the limits section of the config file.
type LimitsConfig struct {
	// MaxFileBytes is the largest head blob, in bytes, whose content the
	// change set reads (limits.max_file_bytes; DefaultMaxFileBytes). A
	// changed file over it is not read into memory: it is marked
	// changeset.File.TooLarge and gets one "too large to scan" finding.
	// The zero value means DefaultMaxFileBytes.
	MaxFileBytes int64
	// MaxChangedFiles is the most paths the change set may list, counted
	// as the tree diff lists them before rename detection (a rename is its
	// two paths): limits.max_changed_files; DefaultMaxChangedFiles. Past
	// it the change set is not built and every gate that reads it could
	// not evaluate (fails closed). The zero value means
	// DefaultMaxChangedFiles.
	MaxChangedFiles int
	// WarnUnscanned turns the findings of files swarm/placeholders and
	// swarm/sast could not scan for a stated reason (over MaxFileBytes,
	// over a gate's own size limit) from failures into warnings
	// (limits.unscanned: warn; the default, fail, fails closed).
	WarnUnscanned bool
	// ScanNewGenerated scans a file the pull request adds, copies or
	// renames that only its own path or content calls generated (a
	// "Code generated ... DO NOT EDIT" header, vendor/, *.min.js):
	// limits.new_generated: scan. Then only the base branch's
	// .gitattributes exempt such a file. The default, skip, exempts it
	// and lists it in the gate's notice.
	ScanNewGenerated bool
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
	// SpecStaleness binds an acknowledge-spec-drift to the drift it
	// acknowledged (SpecStalenessKey of .swarm/spec-staleness.json at
	// HeadSHA); "" for other commands.
	SpecStaleness string
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
