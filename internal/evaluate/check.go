package evaluate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// Settings are the workflow's choices for an evaluation.
type Settings struct {
	// Gates are the gates to run; Phase the plan phase (0: from the branch
	// or current_phase); Config the policy file's path in the base commit
	// ("": the default); SARIF other scanners' SARIF logs.
	Gates  []gates.Gate
	Phase  int
	Config string
	SARIF  []string
	// ReportTimeout bounds reporting the check runs (more than 0;
	// DefaultReportTimeout unless the workflow says).
	ReportTimeout time.Duration
}

// DefaultReportTimeout bounds reporting an evaluation's check runs when
// the workflow does not say (the Action's report-timeout input).
const DefaultReportTimeout = 5 * time.Minute

// Checkout is the repository an evaluation reads.
type Checkout struct {
	// Dir is the local clone; Git, when not nil, is already open on it.
	Dir string
	Git *source.Git
	// MergeBase is a merge base a trusted source gave (the App's compare).
	MergeBase KnownMergeBase
	// SourceError, when not nil, is why the commits could not be put in
	// Dir: every evaluation reports "could not evaluate" with it.
	SourceError error
	// OrgPolicy reads the owner's policy (nil: none); OrgPolicyRepo is
	// true in the owner's .github repository.
	OrgPolicy     pipeline.OrgPolicy
	OrgPolicyRepo bool
	// Version is swarm-gate's, for the reports.
	Version string
}

// KnownMergeBase is a merge base a trusted source gave: SHA is the merge
// base of the commits Base and Head (all three full SHAs).
type KnownMergeBase struct {
	Base, Head, SHA string
}

// For returns the merge base to give the pipeline for evaluating base and
// head: SHA when they are exactly Base and Head, else "".
func (k KnownMergeBase) For(base, head string) string {
	if k.SHA == "" || base != k.Base || head != k.Head {
		return ""
	}
	return k.SHA
}

// Result is what Check did.
type Result struct {
	Report    *report.Report
	Runs      *Runs
	Aggregate gates.Result
	Results   []gates.Result
	// Misconfigured is set when the evaluation failed because of the
	// workflow's own settings (pipeline.ErrPolicyMissing).
	Misconfigured error
}

// Verdict is the exit code of the evaluation (report.Exit*) and, when its
// verdict did not reach the pull request or the settings are wrong, why:
// check runs that could not be posted, or were left in progress, fail
// it as could not evaluate.
func (r Result) Verdict() (int, error) {
	code := r.Report.ExitCode
	if r.Aggregate.Outcome == gates.Error {
		code = max(code, report.ExitError)
	}
	if r.Runs.Stuck > 0 {
		code = max(code, report.ExitError)
	}
	switch r.Runs.Status {
	case PostError:
		return max(code, report.ExitError), fmt.Errorf("swarm-gate: %s", r.Runs.Why())
	case NoToken:
		return max(code, report.ExitError), fmt.Errorf("swarm-gate: %s", NoTokenChecks)
	}
	if r.Misconfigured != nil {
		return report.ExitUsage, fmt.Errorf("swarm-gate: the action is misconfigured: %w", r.Misconfigured)
	}
	return code, nil
}

// Problems are the reasons the evaluation could not be done, or one per
// gate that could not be evaluated ("<gate>: <title>"); none when every
// gate was evaluated.
func (r Result) Problems() []string {
	return Problems(r.Report)
}

// Problems are rep's reasons it could not be evaluated (Result.Problems).
func Problems(rep *report.Report) []string {
	if rep.Error != "" {
		return []string{"could not evaluate: " + rep.Error}
	}
	var out []string
	for _, g := range rep.Gates {
		if g.Outcome == gates.Error {
			out = append(out, g.Name+": "+g.Title)
		}
	}
	return out
}

// Check evaluates t and posts the verdict: the check runs are put in
// progress first, then the pipeline runs, then each gate's run is
// completed and the aggregate last; whatever happens, no run is left in
// progress. The error is a head that is not a commit of the checkout
// (nothing was posted).
func Check(ctx context.Context, d *Deps, s Settings, t event.Target) (Result, error) {
	sha := t.PostSHA
	if sha == "" {
		resolved, err := Resolve(d.Checkout.Dir, t.Head)
		if err != nil {
			// Usually a checkout without that commit (fetch-depth): could
			// not evaluate, as for a base the checkout lacks. A head that
			// is not a revision at all was refused with the inputs.
			return Result{}, fmt.Errorf("could not evaluate %s: the head %q is not a commit of the checkout, so there is no commit to post the checks on: %v", t.What, t.Head, err)
		}
		sha = resolved
	}
	d.logger().Info("evaluating", "what", t.What, "base", t.Base, "head", t.Head, "post_sha", sha, "fork", t.Fork)
	cs := Start(ctx, d, sha, CheckNames(s.Gates), t.Kind)
	if t.QueuedPR > 0 && t.HeadBranch == "" {
		t.HeadBranch, t.Labels = queuedBranch(ctx, d, t.QueuedPR)
	}
	if t.ReadLabels && t.PR > 0 {
		t.Labels = prLabels(ctx, d, t.PR)
	}
	var overrides []gates.Override
	var comment Commenter
	if d.Conversation != nil {
		overrides = d.thread(s).overrides(ctx, t)
		// A merge group or push has no summary comment; a fork's pull
		// request gets it from the workflow_run poster when its token is
		// read-only (the comment skips forbidden check runs).
		d.OpenComment(ctx, t.PR)
		comment = d.Comment
	}
	opts := pipeline.Options{Base: t.Base, Head: t.Head, HeadBranch: t.HeadBranch, Labels: t.Labels, Phase: s.Phase, SARIF: s.SARIF, Gates: s.Gates, Overrides: overrides}
	if onRun != nil {
		onRun(opts)
	}
	var rep *report.Report
	var misconfigured error
	if err := sharedHead(ctx, d, t.PR, sha); err != nil {
		d.logger().Warn("could not evaluate", "error", err)
		rep = report.Failure(err)
		rep.Tool = report.Tool{Name: "swarm-gate", Version: d.Checkout.Version}
	} else {
		rep, misconfigured = Run(ctx, d, s, opts)
	}
	agg, results := Post(ctx, rep, cs, s.ReportTimeout, nil, comment)
	return Result{Report: rep, Runs: cs, Aggregate: agg, Results: results, Misconfigured: misconfigured}, nil
}

// onRun, when set (by a test), is told the options Check runs the
// pipeline with.
var onRun func(pipeline.Options)

// Run runs the pipeline on the checkout; a check that cannot start
// becomes a report with outcome error and the reason. The error is why it
// failed when that is the workflow's own settings (a missing policy).
func Run(ctx context.Context, d *Deps, s Settings, opts pipeline.Options) (*report.Report, error) {
	co := &d.Checkout
	opts.RepoDir = co.Dir
	opts.Repo = co.Git
	opts.Logger = d.logger()
	opts.ConfigPath = s.Config
	opts.OrgPolicy = co.OrgPolicy
	// A pull request to the owner's .github repository may change the
	// owner's policy (its root swarm-gate.yml): validated like the
	// repository's own.
	opts.OrgPolicyRepo = co.OrgPolicyRepo
	opts.MergeBase = co.MergeBase.For(opts.Base, opts.Head)
	var rep *report.Report
	var misconfigured error
	err := co.SourceError
	if err == nil {
		rep, err = pipeline.Check(ctx, opts)
	}
	if err != nil {
		d.logger().Warn("could not evaluate", "error", err)
		rep = report.Failure(err)
		if errors.Is(err, pipeline.ErrPolicyMissing) {
			misconfigured = err // the checks fail closed; the step says it is the workflow's fault
		}
	}
	rep.Tool = report.Tool{Name: "swarm-gate", Version: co.Version}
	return rep, misconfigured
}

// Resolve returns the full SHA of a ref in the checkout at dir.
func Resolve(dir, ref string) (string, error) {
	if gitsha.Full(ref) {
		return ref, nil
	}
	g, err := source.OpenGit(dir)
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

// queuedBranch is the head branch and the labels of the pull request a
// merge group was made for, so that the phase comes from them as it did on
// the pull request; "" and nil (the plan's current_phase) when the API
// cannot say.
func queuedBranch(ctx context.Context, d *Deps, number int) (string, []string) {
	if d.API == nil {
		d.warnf("swarm-gate: the merge group is for pull request #%d, whose head branch names the phase, but there is no token to read it; the phase comes from the plan's current_phase", number)
		return "", nil
	}
	pr, err := d.API.PullRequest(ctx, d.Repo, number)
	if err != nil {
		d.warnf("swarm-gate: reading pull request #%d of the merge group (its head branch names the phase): %v; the phase comes from the plan's current_phase%s", number, err, PermissionHint(err, "pull-requests: read"))
		return "", nil
	}
	return pr.HeadRef, pr.Labels
}

// prLabels is the labels of pull request number, whose check_run or
// check_suite payload does not carry them (a swarm:phase-<N> label names
// the phase when the head branch does not); nil, with a warning, when the
// API cannot say.
func prLabels(ctx context.Context, d *Deps, number int) []string {
	if d.API == nil {
		d.warnf("swarm-gate: the labels of pull request #%d (a swarm:phase-<N> label names the phase) cannot be read without a token; the phase comes from the branch or the plans", number)
		return nil
	}
	pr, err := d.API.PullRequest(ctx, d.Repo, number)
	if err != nil {
		d.warnf("swarm-gate: reading the labels of pull request #%d (a swarm:phase-<N> label names the phase): %v; the phase comes from the branch or the plans%s", number, err, PermissionHint(err, "pull-requests: read"))
		return nil
	}
	return pr.Labels
}

// Present reports whether every commit (full SHAs) is in the checkout at
// dir.
func Present(dir string, shas ...string) bool {
	g, err := source.OpenGit(dir)
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
