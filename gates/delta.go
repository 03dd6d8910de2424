package gates

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Delta says whether a failing finding is the pull request's doing
// (DESIGN.md section 3.6): introduced (not on the merge base, or made
// worse), or pre-existing (the same finding, by its Key, holds on the merge
// base). Only introduced findings fail a gate.
type Delta string

// Deltas of a finding.
const (
	DeltaIntroduced  Delta = "introduced"
	DeltaPreExisting Delta = "pre_existing"
)

// PreExistingPrefix starts the message of a finding that already holds on
// the merge base; such a finding is a warning, never a failure.
const PreExistingPrefix = "already on the base branch: "

// DeltaSummary counts a gate's failing findings against the same gate
// evaluated on the merge base.
type DeltaSummary struct {
	Introduced  int `json:"introduced"`   // failing findings new in the pull request
	PreExisting int `json:"pre_existing"` // findings that already held on the merge base (shown as warnings)
	Fixed       int `json:"fixed"`        // failing findings of the merge base that the head no longer has
	// BaseError says why the gate could not be evaluated on the merge base
	// ("" when it could): no finding could be matched, so all count as
	// introduced.
	BaseError string `json:"base_error,omitempty"`
	// BaseNote says what the merge base lacks when there was nothing to
	// compare with (no plan, or no such phase there), else "".
	BaseNote string `json:"base_note,omitempty"`
}

// baseComparer marks a gate whose findings can already hold on the merge
// base. Run evaluates such a gate on the merge base too (Input.atBase) and
// matches failing findings by Finding.Key: a match is pre-existing, turned
// into a warning; the rest are introduced. A finding with an empty Key is
// always introduced (what the change set itself causes: a file outside the
// scope, a placeholder on an added line).
type baseComparer interface {
	comparesWithBase()
}

// atBase is the input of the same gate evaluated on the merge base: the
// base side as both sides, with nothing changed and no head contents.
func (in *Input) atBase() *Input {
	b := *in
	b.Head = in.Base
	b.HeadFile = in.BaseFile
	b.Changes = &changeset.ChangeSet{}
	b.SAST = nil
	b.Prescan = nil
	b.atMergeBase = true
	return &b
}

// AtMergeBase reports whether this input is the merge-base side of a
// comparison (see baseComparer), for gates whose checks differ there.
func (in *Input) AtMergeBase() bool { return in.atMergeBase }

// applyDelta classifies r's failing findings against g evaluated on the
// merge base, as baseComparer describes, and adjusts the outcome and title
// when what fails is only what was already there.
func applyDelta(ctx context.Context, in *Input, g Gate, r *Result) {
	if r.Outcome == Overridden || (r.Outcome == Error && !slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Key != "" })) {
		return // overridden, or could not evaluate at all: nothing to compare
	}
	base := evaluateAtBase(ctx, in, g)
	d := &DeltaSummary{}
	baseKeys := map[string]int{}
	switch {
	case base.Outcome == Error && baseAbsent(in):
		d.BaseNote = baseAbsentNote(in)
	case base.Outcome == Error:
		d.BaseError = base.Title
	case in.Base.Plan == nil && in.Base.PlanErr == nil:
		d.BaseNote = baseAbsentNote(in)
	default:
		for _, f := range base.Findings {
			if f.Severity == SeverityError && f.Key != "" {
				baseKeys[f.Key]++
			}
		}
	}
	headKeys := map[string]int{}
	for _, f := range r.Findings {
		if f.Key != "" {
			headKeys[f.Key]++
		}
	}
	gone := map[string]int{} // rule -> base findings the head no longer has
	for k, n := range baseKeys {
		if m := headKeys[k]; n > m {
			gone[ruleOfKey(k)] += n - m
		}
	}
	introduced := map[string]int{} // rule -> new findings
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Severity != SeverityError {
			continue
		}
		if f.Key != "" && baseKeys[f.Key] > 0 {
			baseKeys[f.Key]--
			f.Severity = SeverityWarning
			f.Delta = DeltaPreExisting
			f.Message = PreExistingPrefix + f.Message
			d.PreExisting++
			continue
		}
		f.Delta = DeltaIntroduced
		d.Introduced++
		introduced[f.Rule]++
	}
	// Fixed is net of the new findings of the same rule: a state the head
	// replaces (no approval of the old plan, none of the new) is not fixed.
	for rule, n := range gone {
		d.Fixed += max(0, n-introduced[rule])
	}
	if d.Introduced == 0 && d.PreExisting == 0 && d.Fixed == 0 && d.BaseError == "" {
		return
	}
	r.Delta = d
	if r.Outcome == Failed && d.PreExisting > 0 {
		if d.Introduced == 0 {
			r.Outcome = Passed
			r.Title = PreExistingPrefix + r.Title
		} else {
			r.Title += fmt.Sprintf(" (%s already on the base branch)", plural(d.PreExisting, "finding", "findings"))
		}
	}
	note := "**Against the merge base**: " + deltaText(d)
	if r.Summary == "" {
		r.Summary = note
	} else {
		r.Summary += "\n\n" + note
	}
}

// deltaText is the summary line of a DeltaSummary.
func deltaText(d *DeltaSummary) string {
	var parts []string
	parts = append(parts, plural(d.Introduced, "failing finding", "failing findings")+" new in this pull request")
	if d.PreExisting > 0 {
		parts = append(parts, plural(d.PreExisting, "finding", "findings")+" already on the base branch (shown as warnings; they do not block this pull request)")
	}
	if d.Fixed > 0 {
		parts = append(parts, plural(d.Fixed, "finding", "findings")+" of the base branch fixed")
	}
	s := strings.Join(parts, "; ") + "."
	switch {
	case d.BaseError != "":
		s += " This gate could not be evaluated on the merge base (" + d.BaseError + "), so no finding could be matched against it: every finding counts as introduced."
	case d.BaseNote != "":
		s += " " + d.BaseNote
	}
	return s
}

// evaluateAtBase runs g on the merge-base side; a panic is an Error result.
func evaluateAtBase(ctx context.Context, in *Input, g Gate) (r Result) {
	defer func() {
		if p := recover(); p != nil {
			r = CouldNotEvaluate(g.Name(), fmt.Errorf("internal error in swarm-gate at the merge base (please report it): %v\n%s", p, debug.Stack()))
		}
	}()
	return g.Evaluate(ctx, in.atBase())
}

// baseAbsent reports whether the merge base lacks what the gates compare
// (a .swarm/ plan, or the phase under check) without anything there being
// unreadable: then every finding is simply new.
func baseAbsent(in *Input) bool {
	b := in.Base
	if !b.Present {
		return true
	}
	if b.PlanErr != nil || b.LedgerErr != nil || b.EventsErr != nil || b.SpecErr != nil || b.SpecStalenessErr != nil ||
		b.Evidence.DirErr != nil || b.Scopes.DirErr != nil || b.Receipts.DirErr != nil {
		return false
	}
	return b.Plan == nil || b.Plan.FindPhase(in.Phase) == nil
}

func baseAbsentNote(in *Input) string {
	switch {
	case !in.Base.Present:
		return "The merge base has no .swarm/ folder, so every finding is new in this pull request."
	case in.Base.Plan == nil:
		return "The merge base has no plan, so every finding is new in this pull request."
	}
	return fmt.Sprintf("The merge base's plan has no phase %d, so every finding about it is new in this pull request.", in.Phase)
}

// fkey builds a Finding.Key from the rule and what the finding is about.
func fkey(rule string, about ...string) string {
	return rule + "\x00" + strings.Join(about, "\x00")
}

// eventKey identifies a ledger event by its exact line, for keys: the same
// event on the merge base has the same bytes.
func eventKey(ev *swarm.LedgerEvent) string {
	if ev == nil {
		return ""
	}
	sum := sha256.Sum256(ev.Raw)
	return hex.EncodeToString(sum[:])
}

func (PlanFreeze) comparesWithBase() {}
func (Critic) comparesWithBase()     {}
func (Scope) comparesWithBase()      {}
func (Evidence) comparesWithBase()   {}
func (Drift) comparesWithBase()      {}
func (PlanLint) comparesWithBase()   {}

// ruleOfKey is the rule a Finding.Key starts with (fkey).
func ruleOfKey(k string) string {
	rule, _, _ := strings.Cut(k, "\x00")
	return rule
}

// EvaluateAtMergeBase evaluates g on the merge-base side of in, as Run does
// to classify findings (baseComparer): the base artifacts on both sides,
// nothing changed. The result is unclassified. For tools and tests that
// check a verdict against the merge base.
func EvaluateAtMergeBase(ctx context.Context, g Gate, in *Input) Result {
	return evaluateAtBase(ctx, in, g)
}

// ComparesWithBase reports whether Run classifies g's failing findings
// against the merge base (only then are they ever pre-existing).
func ComparesWithBase(g Gate) bool {
	_, ok := g.(baseComparer)
	return ok
}
