package evaluate

import (
	"context"
	"fmt"
	"regexp"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// MaxPhasePullRequests bounds how many open phase pull requests one
// phase-wrap run evaluates.
const MaxPhasePullRequests = 20

// phaseBranch is DESIGN.md section 2's phase branch, swarm/phase-<N>.
var phaseBranch = regexp.MustCompile(`^swarm/phase-[1-9][0-9]*$`)

// Wrap is what a phase-wrap run checks: Head, a revision of the checkout
// (the workflow's commit), against Base ("": Head itself) with
// HeadBranch; Ref names Head in the summaries ("": its SHA alone).
type Wrap struct {
	Base, Head, HeadBranch, Ref string
}

// PhaseWrap answers "can the phase close?" as a swarm/phase-wrap check
// run: on w's commit, for the plan's current_phase (or s.Phase), reported
// by Deps.Checked; and on the head of each open pull request from a
// swarm/phase-<N> branch whose commits the checkout has, for its branch's
// phase, reported by Deps.Also. It returns the exit code of w's commit
// (report.ExitError when a pull request's runs could not be posted) and
// why it could not evaluate or report that commit.
func PhaseWrap(ctx context.Context, d *Deps, s Settings, w Wrap) (int, error) {
	sha, err := Resolve(d.Checkout.Dir, w.Head)
	if err != nil {
		return report.ExitError, fmt.Errorf("phase-wrap: the commit to check, %q: %w", w.Head, err)
	}
	gs := []gates.Gate{gates.PhaseWrap{}}
	names := []string{gates.PhaseWrap{}.Name()}
	what := "the phase-wrap of " + gitsha.Short(sha)
	if w.Ref != "" {
		what = "the phase-wrap of " + w.Ref + " at " + gitsha.Short(sha)
	}
	cs := Start(ctx, d, sha, names, "phase-wrap")
	base := w.Base
	if base == "" {
		base = sha
	}
	rep, misconfigured := Run(ctx, d, s, pipeline.Options{Base: base, Head: sha, HeadBranch: w.HeadBranch, Phase: s.Phase, Gates: gs})
	code, err := d.finish(ctx, s, rep, cs, what, nil, misconfigured)
	for _, pr := range phasePullRequests(ctx, d) {
		if phaseWrapPR(ctx, d, s, pr, gs) == report.ExitError {
			code = max(code, report.ExitError)
		}
	}
	return code, err
}

// phasePullRequests lists the open pull requests from swarm/phase-<N>
// branches whose head and base commits are in the checkout. Without a
// token, or when the API refuses, it warns and returns none.
func phasePullRequests(ctx context.Context, d *Deps) []*ghapi.PullRequest {
	if d.API == nil {
		return nil
	}
	prs, err := d.API.OpenPullRequests(ctx, d.Repo, "")
	if err != nil {
		d.warnf("swarm-gate: phase-wrap: listing the open pull requests: %v; only the checkout's commit was checked%s", err, PermissionHint(err, "pull-requests: read"))
		return nil
	}
	var out []*ghapi.PullRequest
	for _, pr := range prs {
		if !phaseBranch.MatchString(pr.HeadRef) {
			continue
		}
		if len(out) == MaxPhasePullRequests {
			d.noticef("swarm-gate: phase-wrap: more than %d open phase pull requests; the newest %d were checked", MaxPhasePullRequests, MaxPhasePullRequests)
			break
		}
		if !Present(d.Checkout.Dir, pr.HeadSHA, pr.BaseSHA) {
			d.noticef("swarm-gate: phase-wrap: pull request #%d is not in the checkout (a fork's, or the checkout lacks fetch-depth: 0); skipped", pr.Number)
			continue
		}
		out = append(out, pr)
	}
	return out
}

// phaseWrapPR posts swarm/phase-wrap on a pull request's head and has the
// front door report it (Deps.Also); it returns the evaluation's exit code.
func phaseWrapPR(ctx context.Context, d *Deps, s Settings, pr *ghapi.PullRequest, gs []gates.Gate) int {
	cs := Start(ctx, d, pr.HeadSHA, []string{gates.PhaseWrap{}.Name()}, "phase-wrap")
	rep, misconfigured := Run(ctx, d, s, pipeline.Options{Base: pr.BaseSHA, Head: pr.HeadSHA, HeadBranch: pr.HeadRef, Labels: pr.Labels, Gates: gs})
	agg, results := Post(ctx, rep, cs, s.ReportTimeout, nil, d.Comment)
	res := Result{Report: rep, Runs: cs, Aggregate: agg, Results: results, Misconfigured: misconfigured}
	t := event.Target{What: fmt.Sprintf("the phase-wrap of pull request #%d", pr.Number), PR: pr.Number, HeadBranch: pr.HeadRef, PostSHA: pr.HeadSHA}
	if d.Also != nil {
		return d.Also(res, t)
	}
	if cs.Status == PostError {
		return report.ExitError
	}
	return rep.ExitCode
}
