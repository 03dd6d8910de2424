package evaluate

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Commenter posts the summary comment once the gates' runs are reported
// and returns lines of note for the aggregate's summary.
type Commenter func(ctx context.Context, rep *report.Report, results []gates.Result, cs *Runs) []string

// Post completes cs's check runs with rep: each gate's, then the
// aggregate's when the set has one (always computed: it is the verdict),
// then whatever is left in progress as failure. timeout is the
// report-timeout; comment (nil: none) runs between the gates and the
// aggregate. It returns the aggregate and the gates' results.
func Post(ctx context.Context, rep *report.Report, cs *Runs, timeout time.Duration, note []string, comment Commenter) (gates.Result, []gates.Result) {
	names, withAggregate := cs.Names, len(cs.Names) > 0 && cs.Names[0] == AggregateCheck
	if withAggregate {
		names = names[1:]
	}
	results := GateResults(rep, names)
	// One deadline for all of it (report-timeout), so that a hanging API
	// cannot hold the job past its timeout-minutes: the gates' runs are
	// reported a few at once, then the aggregate's, within the first four
	// fifths; the last fifth is Close's, to complete what is left.
	deadline := time.Now().Add(timeout)
	rctx, cancel := context.WithDeadline(ctx, deadline.Add(-timeout/5))
	cs.CompleteAll(rctx, results)
	if comment != nil {
		note = append(note, comment(rctx, rep, results, cs)...)
	}
	agg := Aggregate(rep, results, cs, note)
	if withAggregate {
		cs.Complete(rctx, agg)
	}
	late := rctx.Err() != nil && ctx.Err() == nil
	cancel()
	if late {
		cs.LateBy(timeout, deadline)
	}
	cs.Close(ctx)
	return agg, results
}

// CheckNames are the check runs of an evaluation: the aggregate first,
// then the gates in report order.
func CheckNames(gs []gates.Gate) []string {
	names := []string{AggregateCheck}
	for _, g := range gs {
		names = append(names, g.Name())
	}
	return names
}

// GateResults are the results to post for the gate check names: the
// report's, or, when the check could not start, "could not evaluate" with
// the reason for each.
func GateResults(rep *report.Report, names []string) []gates.Result {
	byName := map[string]gates.Result{}
	for _, g := range rep.Gates {
		byName[g.Name] = g
	}
	out := make([]gates.Result, 0, len(names))
	for _, name := range names {
		res, ok := byName[name]
		if !ok {
			why := "the report has no result for this check"
			if rep.Error != "" {
				why = rep.Error
			}
			res = CouldNotEvaluate(name, why)
		}
		out = append(out, res)
	}
	return out
}

// Aggregate is the swarm-gate check: error when the check could not start,
// a gate could not be evaluated or a gate's check run could not be
// reported; else failed when a gate failed; else passed. Its summary is a
// table of the checks with links to their runs.
func Aggregate(rep *report.Report, results []gates.Result, cs *Runs, note []string) gates.Result {
	res := gates.Result{Name: AggregateCheck, Outcome: report.Overall(results), Findings: []gates.Finding{}}
	var failed, errored, advisory []string
	for _, g := range results {
		switch g.Outcome {
		case gates.Failed:
			failed = append(failed, g.Name)
		case gates.Error:
			errored = append(errored, g.Name)
		case gates.NotApplicable:
			advisory = append(advisory, g.Name)
		}
	}
	var unreported []string
	for name := range cs.Failed {
		unreported = append(unreported, name)
	}
	sort.Strings(unreported)
	n := len(results)
	switch {
	case rep.Error != "":
		res.Outcome, res.Title = gates.Error, "could not evaluate: "+mdtext.FirstLine(rep.Error)
	case len(unreported) > 0:
		res.Outcome, res.Title = gates.Error, fmt.Sprintf("%s could not be reported: %s", mdtext.Count(len(unreported), "check"), strings.Join(unreported, ", "))
	case len(errored) > 0:
		res.Title = fmt.Sprintf("could not evaluate %d of %s: %s", len(errored), mdtext.Count(n, "check"), strings.Join(errored, ", "))
		if len(failed) > 0 {
			res.Title += fmt.Sprintf("; %d failed: %s", len(failed), strings.Join(failed, ", "))
		}
	case len(failed) > 0:
		res.Title = fmt.Sprintf("%d of %s failed: %s", len(failed), mdtext.Count(n, "check"), strings.Join(failed, ", "))
		if rep.PolicyChange.Invalid() {
			res.Title += "; the pull request's " + rep.PolicyChange.Path + " is invalid"
		}
	case rep.PolicyChange.Invalid():
		pc := rep.PolicyChange
		res.Outcome = gates.Failed
		res.Title = fmt.Sprintf("the pull request's %s is invalid (%s: %s)", pc.Path, mdtext.Count(len(pc.Problems), "problem"), mdtext.FirstLine(pc.Problems[0]))
	default:
		res.Title = fmt.Sprintf("all %s passed", mdtext.Count(n-len(advisory), "required check"))
		if len(advisory) > 0 {
			res.Title += fmt.Sprintf(" (%d advisory or not applicable)", len(advisory))
		}
	}
	var b strings.Builder
	if f := agentAttested(results); f != nil {
		// What a reviewer most needs to know when everything is green.
		label := "Approved by the agent in this PR"
		if f.Rule == gates.RuleSelfApprovedWidening && strings.HasPrefix(f.Message, "this pull request's scope declaration") {
			// Widened through .swarm/scopes/: no approval was written at all.
			label = "Scope widened by the agent's own declaration in this PR"
		}
		fmt.Fprintf(&b, "> [!WARNING]\n> **%s**: %s\n\n", label, mdtext.Inline(f.Message))
	}
	if rep.Error != "" {
		fmt.Fprintf(&b, "swarm-gate could not evaluate this commit, so every check fails closed.\n\n%s\n", mdtext.CodeBlock(rep.Error))
	} else {
		fmt.Fprintf(&b, "%s · base `%s` · head `%s` · merge base `%s`\n", report.UpperFirst(report.PhaseText(rep)), gitsha.Short(rep.Base), gitsha.Short(rep.Head), gitsha.Short(rep.MergeBase))
		if rep.Config != "" {
			fmt.Fprintf(&b, "\nPolicy: %s\n", mdtext.Inline(rep.Config))
		}
		if rep.PolicyChange != nil {
			b.WriteString("\n")
			report.WritePolicyChangeMarkdown(&b, rep.PolicyChange)
		}
	}
	b.WriteString("\n| check | conclusion | |\n|---|---|---|\n")
	for _, g := range results {
		name := mdtext.Code(g.Name)
		if u := cs.URL(g.Name); u != "" {
			name = "[" + name + "](" + u + ")"
		}
		outcome := string(g.Outcome)
		if err := cs.Failed[g.Name]; err != nil {
			outcome += " (not reported)"
		}
		findings := ""
		if k := len(g.Findings); k > 0 {
			findings = " · " + mdtext.Count(k, "finding")
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s%s |\n", name, report.Badge(g.Outcome), outcome, mdtext.Inline(mdtext.FirstLine(g.Title)), findings)
	}
	for _, name := range unreported {
		fmt.Fprintf(&b, "\n%s could not be reported: %s\n", mdtext.Code(name), mdtext.Inline(mdtext.FirstLine(cs.Failed[name].Error())))
	}
	for _, line := range note {
		b.WriteString("\n" + line + "\n")
	}
	res.Summary = b.String()
	return res
}

// agentAttested is the finding that names the agent's own approval, or
// nil: swarm/scope's self-approved widening first (the agent widened a
// task's scope, through files_touched or a .swarm/scopes/ declaration, and
// approved it), else plan-freeze's finding that the approval it accepts
// was added by the pull request itself. plan-freeze comes first in the
// results, so looking in order would hide the widening behind it.
func agentAttested(results []gates.Result) *gates.Finding {
	var attested *gates.Finding
	for i := range results {
		for j := range results[i].Findings {
			switch f := &results[i].Findings[j]; f.Rule {
			case gates.RuleSelfApprovedWidening:
				return f
			case gates.RuleAgentAttested:
				if attested == nil {
					attested = f
				}
			}
		}
	}
	return attested
}
