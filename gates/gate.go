// Package gates holds swarm-gate's checks as pure functions: each Gate takes
// the parsed .swarm/ artifacts of both sides of a pull request plus its
// change set (an Input) and returns a Result with findings. Gates do no I/O:
// no files, environment, clock or network.
package gates

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Outcome is a gate's verdict, the same word in text, JSON and check runs.
type Outcome string

// The five outcomes (DESIGN.md section 5). Passed, Failed, Error and
// Overridden never blur: Error means the gate could not evaluate and fails
// closed; Overridden passes and names who overrode it.
const (
	Passed        Outcome = "passed"
	Failed        Outcome = "failed"
	Error         Outcome = "error"
	Overridden    Outcome = "overridden"
	NotApplicable Outcome = "not_applicable"
)

// Severity of a finding, as GitHub annotation levels read it.
type Severity string

// Finding severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNotice  Severity = "notice"
)

// Finding is one problem a gate found, placed on a repository file so that it
// can become an annotation on the pull request diff.
type Finding struct {
	Path     string   `json:"path"`               // repository-relative, '/'-separated
	Line     int      `json:"line,omitempty"`     // 1-based; 0 when the finding is about the whole file
	EndLine  int      `json:"end_line,omitempty"` // 1-based, >= Line; 0 when Line is 0
	Column   int      `json:"column,omitempty"`   // 1-based byte column; 0 when unknown
	Rule     string   `json:"rule"`               // e.g. placeholder/comment-todo, scope/out-of-scope
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Delta is set on the failing findings of a gate that compares with
	// the merge base: introduced, or pre_existing (then Severity is
	// warning and Message starts with PreExistingPrefix).
	Delta Delta `json:"delta,omitempty"`
	// Key identifies the finding independently of its location, so that
	// the same finding on the merge base can be recognised (rule plus what
	// it is about: a requirement id, a task id and gate, a plan's
	// structure hash); "" means it cannot hold on the merge base.
	Key string `json:"-"`
}

// SeverityRank orders severities failing first: error 0, warning 1,
// notice 2; any other value ranks with error, as it is shown as a failure
// (fail closed).
func SeverityRank(s Severity) int {
	switch s {
	case SeverityWarning:
		return 1
	case SeverityNotice:
		return 2
	}
	return 0
}

// FailingFirst returns a copy of fs ordered for a list that may be cut
// (check-run annotations, a summary's or a report's list of findings, the
// step's annotations): by SeverityRank, then path, then line, findings
// equal in all three in their gate's order. Without it a gate's many
// notices could push its one error past what is shown (issue 20, B8).
// fs is not changed; nil gives nil.
func FailingFirst(fs []Finding) []Finding {
	if fs == nil {
		return nil
	}
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b Finding) int {
		if c := cmp.Compare(SeverityRank(a.Severity), SeverityRank(b.Severity)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	return out
}

// Result is what one gate decided.
type Result struct {
	Name     string    `json:"name"` // the check name, e.g. swarm/scope
	Outcome  Outcome   `json:"outcome"`
	Title    string    `json:"title"`   // one line of plain text (may quote repository text; escape it when showing it)
	Summary  string    `json:"summary"` // Markdown, may be several lines; repository text in it is already escaped
	Findings []Finding `json:"findings"`
	// Delta counts the failing findings against the merge base, for gates
	// that compare with it (nil otherwise, and when there was nothing to
	// count).
	Delta *DeltaSummary `json:"delta,omitempty"`
	// Suppressions are swarm/placeholders' added lines whose findings an
	// inline `swarm-gate:allow placeholder <reason>` dropped, with the
	// reasons (nil for other gates).
	Suppressions []Suppression `json:"suppressions,omitempty"`
}

// PhaseSource says where the pull request's phase number came from.
type PhaseSource string

// Phase sources, in the order DESIGN.md section 2 tries them.
const (
	PhaseFromFlag         PhaseSource = "flag"
	PhaseFromBranch       PhaseSource = "branch"
	PhaseFromLabel        PhaseSource = "label"
	PhaseFromCurrentPhase PhaseSource = "current_phase"
)

// Input is everything a gate may look at.
type Input struct {
	// Phase is the plan phase the pull request carries (>= 1).
	Phase       int
	PhaseSource PhaseSource
	// Phases are the phases whose tasks the pull request changes the
	// status of, ascending (gates.StatusChanges); swarm/scope and
	// swarm/evidence check them with Phase. Nil when none changed.
	Phases []int
	// Base is the .swarm/ state at the merge base (policy side); Head is the
	// pull request's head. Neither is nil.
	Base, Head *swarm.Artifacts
	// Changes are the files changed from the merge base to head. Not nil.
	Changes *changeset.ChangeSet
	// ChangesErr, when not nil, says why Changes could not be built (more
	// changed files than limits.max_changed_files): Changes is then empty,
	// and every gate that reads it (not changeFree) is CouldNotEvaluate
	// with this error, without running.
	ChangesErr error
	// HeadFile returns the content of a file at the head commit (a
	// repository path, as in Changes), for swarm/placeholders, which lexes
	// a changed file whole rather than only its added lines. ok is false
	// when it cannot be read: missing, a symlink or submodule, or over
	// MaxPlaceholderScanSize. The bytes are valid until the next call. Nil
	// when head contents are not available.
	HeadFile func(path string) (content []byte, ok bool)
	// BaseFile is HeadFile for the merge base; nil when not available.
	BaseFile func(path string) (content []byte, ok bool)
	// Linguist is what the base branch's .gitattributes say is generated
	// or vendored (nil: only GeneratedReason's path and header rules).
	Linguist Linguist
	// SAST is the security scan the pipeline ran for swarm/sast (nil when it
	// did not run).
	SAST *SASTScan
	// Config is the base branch's policy; nil means DefaultConfig.
	Config *Config
	// Overrides are the human decisions swarm-gate recorded for this pull
	// request, oldest first (none until a comment command records one).
	Overrides []Override
	// HeadTime is the head commit's committer time (the pipeline caps it at its
	// own clock, as a committer can forge it into the future): the "now" of the
	// checks that have a time window (the councils' 24-hour freshness),
	// since gates have no clock. The zero value means unknown, and those
	// windows are then not checked (the output says so).
	HeadTime time.Time
	// Prescan, when not nil, holds swarm/placeholders' scan of the files
	// the pipeline streamed while the diff was read (StartPrescan); nil
	// means every file is scanned in Evaluate. Same result either way.
	Prescan *Prescan

	// atMergeBase marks the merge-base side of a comparison (atBase).
	atMergeBase bool
}

// Gate is one check. Evaluate must not panic and must not do I/O; it returns
// Error with a reason when its inputs cannot be read.
type Gate interface {
	// Name is the stable check-run name, e.g. "swarm/plan-freeze".
	Name() string
	Evaluate(ctx context.Context, in *Input) Result
}

// Registry is every gate, in report order. Adding a gate is one file plus one
// line here. The default check runs Default(): these without the on-demand
// gates (swarm/phase-wrap).
func Registry() []Gate {
	return []Gate{
		PlanFreeze{},
		Critic{},
		Scope{},
		Placeholders{},
		SAST{},
		Evidence{},
		Drift{},
		PhaseWrap{},
		PlanLint{},
	}
}

// Select returns the registered gates named, in registry order. A name is
// a gate's full name (swarm/scope) or the part after "swarm/" (scope);
// surrounding spaces and empty names are ignored, repeats count once. The
// error names the first unknown name (in the order given) and lists the
// known ones; naming none is an error too. The CLI's --gates and the
// Action's checks input both use it.
func Select(names []string) ([]Gate, error) {
	want := map[string]bool{}
	var order []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if !strings.Contains(n, "/") {
			n = "swarm/" + n
		}
		if !want[n] {
			want[n] = true
			order = append(order, n)
		}
	}
	var gs []Gate
	var all []string
	for _, g := range Registry() {
		all = append(all, g.Name())
		if want[g.Name()] {
			gs = append(gs, g)
			delete(want, g.Name())
		}
	}
	for _, n := range order {
		if want[n] {
			return nil, fmt.Errorf("unknown check %q (known: %s)", n, strings.Join(all, ", "))
		}
	}
	if len(gs) == 0 {
		return nil, fmt.Errorf("no check named (known: %s)", strings.Join(all, ", "))
	}
	return gs, nil
}

// changeFree is implemented by the gates that never read Input.Changes
// (their inputs are the .swarm/ artifacts and the policy). A gate without
// it is taken to read the change set, so a new gate gets it unless it
// says otherwise.
type changeFree interface{ changeFree() }

func (PlanFreeze) changeFree() {}
func (Critic) changeFree()     {}
func (Evidence) changeFree()   {}
func (Drift) changeFree()      {}
func (PhaseWrap) changeFree()  {}
func (PlanLint) changeFree()   {}

// NeedsChanges reports whether one of gs reads Input.Changes: when none
// does, the pipeline does not compute the change set (no git diff over
// the source tree) and gives them an empty one.
func NeedsChanges(gs []Gate) bool {
	for _, g := range gs {
		if _, ok := g.(changeFree); !ok {
			return true
		}
	}
	return false
}

// Run evaluates each gate in order. A gate that panics is reported as Error
// ("internal error") instead of crashing the run; a cancelled context turns
// the remaining gates into Error results.
func Run(ctx context.Context, in *Input, gs []Gate) []Result {
	out := make([]Result, 0, len(gs))
	for _, g := range gs {
		out = append(out, runOne(ctx, in, g))
	}
	return out
}

func runOne(ctx context.Context, in *Input, g Gate) (r Result) {
	if err := ctx.Err(); err != nil {
		return CouldNotEvaluate(g.Name(), fmt.Errorf("not run: %w", err))
	}
	defer func() {
		if p := recover(); p != nil {
			r = CouldNotEvaluate(g.Name(), fmt.Errorf("internal error in swarm-gate (please report it): %v\n%s", p, debug.Stack()))
		}
	}()
	if _, free := g.(changeFree); in.ChangesErr != nil && !free {
		return CouldNotEvaluate(g.Name(), in.ChangesErr) // an empty change set would pass
	}
	r = g.Evaluate(ctx, in)
	if _, ok := g.(baseComparer); ok && !in.atMergeBase {
		applyDelta(ctx, in, g, &r)
	}
	r.Name = g.Name()
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	MaskSecretText(&r)
	return r
}

// RuleUnreadable marks the finding of an artifact that could not be read or
// parsed, placed on its file and line.
const RuleUnreadable = "swarm-gate/unreadable-artifact"

// RuleTooLargeToScan marks a changed file whose head blob is over the
// policy's limits.max_file_bytes (changeset.File.TooLarge): its content was
// never read, so swarm/placeholders and swarm/sast could not evaluate it.
// An error (the gate fails closed) unless limits.unscanned is warn.
const RuleTooLargeToScan = "swarm-gate/too-large-to-scan"

// unscannedSeverity is the severity of a file a gate could not scan for a
// stated reason (too large, over its own size limit): an error unless the
// policy's limits.unscanned is warn.
func unscannedSeverity(c *Config) Severity {
	if c.Limits.WarnUnscanned {
		return SeverityWarning
	}
	return SeverityError
}

// maxFileBytes is the policy's limits.max_file_bytes, or its default.
func maxFileBytes(c *Config) int64 {
	if c.Limits.MaxFileBytes > 0 {
		return c.Limits.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

// tooLargeFinding is the one finding of a file the change set did not read
// (changeset.File.TooLarge), with what to do about it; remedy names the
// gate's own way out.
func tooLargeFinding(c *Config, path string, size int64, remedy string) Finding {
	sev := unscannedSeverity(c)
	msg := fmt.Sprintf("too large to scan: %d bytes, over the policy's limits.max_file_bytes (%d); its content was not read, so nothing in it was checked", size, maxFileBytes(c))
	if sev == SeverityError {
		msg += "; split the file, " + remedy + ", raise limits.max_file_bytes, or set limits.unscanned: warn in the base branch's policy"
	} else {
		msg += " (limits.unscanned: warn)"
	}
	return Finding{Path: path, Line: 1, EndLine: 1, Rule: RuleTooLargeToScan, Severity: sev, Key: fkey(RuleTooLargeToScan, path, "size"), Message: msg}
}

// CouldNotEvaluate is the one "could not evaluate" result (Outcome Error,
// which fails closed) for gate name: the title is "could not evaluate: "
// and the error's first line, as check runs show it; the summary has the
// whole error in a code block (the title may be cut where it is shown). When the cause is a file (a
// *swarm.ArtifactError), it is also a finding on that file and line, so
// that it shows as an annotation.
func CouldNotEvaluate(name string, err error) Result {
	r := Result{
		Name:     name,
		Outcome:  Error,
		Title:    "could not evaluate: " + firstLine(err.Error()),
		Summary:  "swarm-gate could not evaluate this gate, so it fails closed.\n\n" + mdtext.CodeBlock(err.Error()),
		Findings: []Finding{},
	}
	var ae *swarm.ArtifactError
	if errors.As(err, &ae) {
		r.Findings = append(r.Findings, Finding{Path: ae.Path, Line: ae.Line, EndLine: ae.Line, Rule: RuleUnreadable, Severity: SeverityError,
			Message: "could not evaluate: " + firstLine(ae.Err.Error())})
	}
	return r
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
