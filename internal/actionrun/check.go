package actionrun

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// check evaluates one target: the check runs are put in progress first,
// then the pipeline runs, then each gate's run is completed and the
// aggregate last; whatever happens, no run is left in progress.
func (ses *session) check(ctx context.Context, t target) (int, error) {
	s := ses.s
	sha := t.PostSHA
	if sha == "" {
		resolved, err := ses.resolve(t.Head)
		if err != nil {
			// Usually a checkout without that commit (fetch-depth): could
			// not evaluate, as for a base the checkout lacks. A head that
			// is not a revision at all was refused with the inputs.
			return exitError, fmt.Errorf("could not evaluate %s: the head %q is not a commit of the checkout, so there is no commit to post the checks on: %v", t.What, t.Head, err)
		}
		sha = resolved
	}
	ses.logger.Info("evaluating", "what", t.What, "base", t.Base, "head", t.Head, "post_sha", sha, "fork", t.Fork)
	names := evaluate.CheckNames(s.Gates)
	cs := ses.startChecks(ctx, sha, names, t.Kind)
	if t.QueuedPR > 0 && t.HeadBranch == "" {
		t.HeadBranch, t.Labels = ses.queuedBranch(ctx, t.QueuedPR)
	}
	overrides := ses.overrides(ctx, t)
	// A merge group or push has no summary comment; a fork's pull request
	// gets it from the workflow_run poster when its token is read-only
	// (stickyComment skips forbidden check runs).
	ses.commentPR = t.PR
	ses.presetCommentDetails(ctx, t.PR) // comment.go
	rep := ses.evaluate(ctx, pipeline.Options{Base: t.Base, Head: t.Head, HeadBranch: t.HeadBranch, Labels: t.Labels, Phase: s.Phase, SARIF: s.SARIF, Gates: s.Gates, Overrides: overrides})
	return ses.finish(ctx, rep, cs, t.What, nil)
}

// evaluate runs the pipeline on the checkout; a check that cannot start
// becomes a report with outcome error and the reason.
func (ses *session) evaluate(ctx context.Context, opts pipeline.Options) *report.Report {
	opts.RepoDir = ses.workspace
	opts.Repo = ses.r.Repo
	opts.Logger = ses.logger
	opts.ConfigPath = ses.s.Config
	opts.OrgPolicy = ses.orgPolicy()
	// A pull request to the owner's .github repository may change the
	// owner's policy (its root swarm-gate.yml): validated like the
	// repository's own.
	opts.OrgPolicyRepo = strings.EqualFold(ses.repo.Name, OrgPolicyRepo)
	opts.MergeBase = ses.r.MergeBase.For(opts.Base, opts.Head)
	var rep *report.Report
	err := ses.r.SourceError
	if err == nil {
		rep, err = pipeline.Check(ctx, opts)
	}
	if err != nil {
		ses.logger.Warn("could not evaluate", "error", err)
		rep = report.Failure(err)
		if errors.Is(err, pipeline.ErrPolicyMissing) {
			ses.misconfigured = err // the checks fail closed; the step says it is the workflow's fault
		}
	}
	rep.Tool = report.Tool{Name: "swarm-gate", Version: ses.r.Version}
	return rep
}

// finish reports an evaluation everywhere: the check runs (gates first,
// the aggregate last), the report files (unless Runner.NoReportFiles), the
// step outputs and summary, and the log; the lines of note are added to
// the aggregate's summary. It returns the exit code.
//
// When the checks could not be posted (no token, an API failure), the
// conclusion output is failure whatever the gates said, and so is the exit
// code (2): the verdict did not reach the pull request. A fork's read-only
// token is not such a failure (the fork poster posts the checks).
func (ses *session) finish(ctx context.Context, rep *report.Report, cs *checkSet, what string, note []string) (int, error) {
	agg, results := ses.post(ctx, rep, cs, note)
	var files reportFiles
	if !ses.r.NoReportFiles {
		files = ses.writeReport(rep)
	}
	out := agg
	if cs.Status == noToken || cs.Status == postError {
		out.Outcome = gates.Error // the check could not be reported
	}
	ses.setOutputs(out, results, files)
	ses.writeSummary(rep, cs, what)
	ses.writeLog(rep, cs)
	ses.logAPI(cs)
	code := rep.ExitCode
	if agg.Outcome == gates.Error {
		code = max(code, exitError)
	}
	switch cs.Status {
	case postError:
		// The checks on the pull request say failure whatever the
		// verdict: the step says so too.
		return max(code, exitError), fmt.Errorf("swarm-gate: %s", cs.Why())
	case noToken:
		return max(code, exitError), fmt.Errorf("swarm-gate: %s", evaluate.NoTokenChecks)
	}
	return code, nil
}

// post completes cs's check runs with rep and the summary comment
// (evaluate.Post), within the report-timeout.
func (ses *session) post(ctx context.Context, rep *report.Report, cs *checkSet, note []string) (gates.Result, []gates.Result) {
	timeout := DefaultReportTimeout
	if ses.s != nil && ses.s.ReportTimeout > 0 {
		timeout = ses.s.ReportTimeout
	}
	agg, results := evaluate.Post(ctx, rep, cs, timeout, note, ses.stickyComment) // comment.go
	ses.stuck += cs.Stuck
	if cs.Status == forbidden && len(cs.Failed) == 0 {
		ses.warnf("swarm-gate: %s", cs.Why()) // postError and noToken are reported once, by finish
	}
	return agg, results
}

// resolve returns the full SHA of a ref in the checkout.
func (ses *session) resolve(ref string) (string, error) {
	if gitsha.Full(ref) {
		return ref, nil
	}
	g, err := source.OpenGit(ses.workspace)
	if err != nil {
		return "", err
	}
	defer g.Close()
	h, err := g.ResolveCommit(ref)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// present reports whether every commit is in the checkout.
func (ses *session) present(shas ...string) bool {
	g, err := source.OpenGit(ses.workspace)
	if err != nil {
		return false
	}
	defer g.Close()
	for _, sha := range shas {
		if _, err := g.ResolveCommit(sha); err != nil || !gitsha.Full(sha) {
			return false
		}
	}
	return true
}

// queuedBranch is the head branch and the labels of the pull request a
// merge group was made for, so that the phase comes from them as it did on
// the pull request; "" and nil (the plan's current_phase) when the API
// cannot say.
func (ses *session) queuedBranch(ctx context.Context, number int) (string, []string) {
	if ses.api == nil {
		ses.warnf("swarm-gate: the merge group is for pull request #%d, whose head branch names the phase, but there is no token to read it; the phase comes from the plan's current_phase", number)
		return "", nil
	}
	pr, err := ses.api.PullRequest(ctx, ses.repo, number)
	if err != nil {
		ses.warnf("swarm-gate: reading pull request #%d of the merge group (its head branch names the phase): %v; the phase comes from the plan's current_phase%s", number, err, permissionHint(err, "pull-requests: read"))
		return "", nil
	}
	return pr.HeadRef, pr.Labels
}

var _ API = (*ghapi.Client)(nil)
