package actionrun

import (
	"bytes"
	"context"
	"fmt"
	"regexp"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// MaxPhasePullRequests bounds how many open phase pull requests one
// phase-wrap run evaluates.
const MaxPhasePullRequests = 20

// phaseBranch is DESIGN.md section 2's phase branch, swarm/phase-<N>.
var phaseBranch = regexp.MustCompile(`^swarm/phase-[1-9][0-9]*$`)

// phaseWrap answers "can the phase close?" as a swarm/phase-wrap check
// run: on the checkout's commit (GITHUB_SHA, or the head input), for the
// plan's current_phase (or the phase input), and on the head of each open
// pull request from a swarm/phase-<N> branch whose commits the checkout
// has, for its branch's phase. The step's outputs, report files and
// conclusion are the checkout's commit's.
func (ses *session) phaseWrap(ctx context.Context) (int, error) {
	head := ses.s.Head
	if head == "" {
		head = ses.r.Env.Get("GITHUB_SHA")
	}
	if head == "" {
		head = "HEAD"
	}
	sha, err := ses.resolve(head)
	if err != nil {
		return exitError, fmt.Errorf("phase-wrap: the commit to check, %q: %w", head, err)
	}
	gs := []gates.Gate{gates.PhaseWrap{}}
	names := []string{gates.PhaseWrap{}.Name()}
	what := "the phase-wrap of " + gitsha.Short(sha)
	if ref := ses.r.Env.Ref(); ref != "" {
		what = "the phase-wrap of " + ref + " at " + gitsha.Short(sha)
	}
	cs := evaluate.Start(ctx, ses.deps(), sha, names, "phase-wrap")
	base := ses.s.Base
	if base == "" {
		base = sha
	}
	rep := ses.evaluate(ctx, pipeline.Options{Base: base, Head: sha, HeadBranch: ses.s.HeadBranch, Phase: ses.s.Phase, Gates: gs})
	code, err := ses.finish(ctx, rep, cs, what, nil)
	for _, pr := range ses.phasePullRequests(ctx) {
		prCode := ses.phaseWrapPR(ctx, pr, gs)
		if prCode == exitError {
			code = max(code, prCode)
		}
	}
	return code, err
}

// phasePullRequests lists the open pull requests from swarm/phase-<N>
// branches whose head and base commits are in the checkout. Without a
// token, or when the API refuses, it warns and returns none.
func (ses *session) phasePullRequests(ctx context.Context) []*ghapi.PullRequest {
	if ses.api == nil {
		return nil
	}
	prs, err := ses.api.OpenPullRequests(ctx, ses.repo, "")
	if err != nil {
		ses.warnf("swarm-gate: phase-wrap: listing the open pull requests: %v; only the checkout's commit was checked%s", err, permissionHint(err, "pull-requests: read"))
		return nil
	}
	var out []*ghapi.PullRequest
	for _, pr := range prs {
		if !phaseBranch.MatchString(pr.HeadRef) {
			continue
		}
		if len(out) == MaxPhasePullRequests {
			ses.noticef("swarm-gate: phase-wrap: more than %d open phase pull requests; the newest %d were checked", MaxPhasePullRequests, MaxPhasePullRequests)
			break
		}
		if !ses.present(pr.HeadSHA, pr.BaseSHA) {
			ses.noticef("swarm-gate: phase-wrap: pull request #%d is not in the checkout (a fork's, or the checkout lacks fetch-depth: 0); skipped", pr.Number)
			continue
		}
		out = append(out, pr)
	}
	return out
}

// phaseWrapPR posts swarm/phase-wrap on a pull request's head and adds it
// to the step summary; it returns the evaluation's exit code.
func (ses *session) phaseWrapPR(ctx context.Context, pr *ghapi.PullRequest, gs []gates.Gate) int {
	what := fmt.Sprintf("the phase-wrap of pull request #%d", pr.Number)
	cs := evaluate.Start(ctx, ses.deps(), pr.HeadSHA, []string{gates.PhaseWrap{}.Name()}, "phase-wrap")
	rep := ses.evaluate(ctx, pipeline.Options{Base: pr.BaseSHA, Head: pr.HeadSHA, HeadBranch: pr.HeadRef, Labels: pr.Labels, Gates: gs})
	ses.post(ctx, rep, cs, nil)
	if ses.r.Env.SummaryPath() != "" {
		var b bytes.Buffer
		fmt.Fprintf(&b, "\n---\n\n### Pull request #%d (%s)\n\n", pr.Number, mdtext.Code(pr.HeadRef))
		if err := report.WriteMarkdown(&b, rep, 100); err == nil {
			if err := ses.r.Env.AppendSummary(b.String()); err != nil {
				ses.warnf("swarm-gate: %v", err)
			}
		}
	}
	ses.writeLog(rep, cs)
	if cs.Status == postError {
		ses.errorf("swarm-gate: %s: %s", what, cs.Why())
		return exitError
	}
	return rep.ExitCode
}
