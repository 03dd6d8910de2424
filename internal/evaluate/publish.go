package evaluate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Publish posts the checks of a pull request from a fork, whose own run
// had a read-only token. It runs on the workflow_run event that follows
// that run, with this repository's code and a write token, and never runs
// anything of the pull request.
//
// Everything that decides where the checks go comes from GitHub, not from
// the fork's run: the commit is workflow_run.head_sha, and the pull
// request is the open one whose head is that commit of that branch, as the
// API lists it (its base commit is the base to compare with).
//
// The verdict is swarm-gate's own when the checkout has the pull request's
// head and base commits (the poster workflow fetches the head commit's
// objects; nothing is checked out): the pipeline reads them as data, with
// the base branch's policy. Otherwise it is the report the fork's run
// wrote (the report input), which is checked field by field and bound to
// the commit, but which the pull request could have forged: the aggregate
// check says so. reportPath is that report's file ("": none). It returns
// the exit code (report.Exit*) and why it could not publish.
func Publish(ctx context.Context, d *Deps, s Settings, ev *actions.Event, reportPath string) (int, error) {
	wr, err := ev.WorkflowRun()
	if err != nil {
		return report.ExitError, err
	}
	if wr.Event != "pull_request" {
		d.noticef("swarm-gate: nothing to publish: workflow run %d was triggered by %s, not pull_request", wr.ID, wr.Event)
		return report.ExitPassed, nil
	}
	headRepo := ""
	if wr.HeadRepository != nil {
		headRepo = wr.HeadRepository.FullName
	}
	if strings.EqualFold(headRepo, d.Repo.String()) {
		d.noticef("swarm-gate: nothing to publish: workflow run %d was for a branch of this repository, whose run posts its own checks", wr.ID)
		return report.ExitPassed, nil
	}
	if d.API == nil {
		return report.ExitError, fmt.Errorf("publishing the checks of workflow run %d: %v", wr.ID, d.NoAPI)
	}
	pr, err := forkPullRequest(ctx, d, wr, headRepo)
	if err != nil {
		return report.ExitError, err
	}
	if pr == nil {
		d.noticef("swarm-gate: nothing to publish: no open pull request has %s at %s (closed, or pushed again since: the newer run's checks will follow)", mdtext.Printable(headRepo+":"+wr.HeadBranch), gitsha.Short(wr.HeadSHA))
		return report.ExitPassed, nil
	}
	what := fmt.Sprintf("pull request #%d (from %s)", pr.Number, mdtext.Printable(headRepo))
	cs := Start(ctx, d, wr.HeadSHA, CheckNames(s.Gates), "pull_request")
	d.OpenComment(ctx, pr.Number) // the trusted path posts the fork's summary comment too
	runLink := fmt.Sprintf("workflow run %d", wr.ID)
	if wr.HTMLURL != "" {
		runLink = fmt.Sprintf("[workflow run %d](%s)", wr.ID, wr.HTMLURL)
	}
	var artifact *report.Report
	var artifactErr error
	if reportPath != "" {
		artifact, artifactErr = readArtifact(reportPath, wr.HeadSHA)
	} else {
		artifactErr = errors.New("no report was given (the report input)")
	}
	if artifactErr == nil && artifact.Error == "" && artifact.Base != pr.BaseSHA {
		// The fork's run chose its own base; the pull request's is the one
		// that counts (a report against base = head would pass anything).
		artifactErr = fmt.Errorf("it was made against base %s, but the pull request's base is %s", gitsha.Short(artifact.Base), gitsha.Short(pr.BaseSHA))
	}
	var rep *report.Report
	var note []string
	var misconfigured error
	if Present(d.Checkout.Dir, wr.HeadSHA, pr.BaseSHA) {
		rep, misconfigured = Run(ctx, d, s, pipeline.Options{Base: pr.BaseSHA, Head: wr.HeadSHA, HeadBranch: pr.HeadRef, Labels: pr.Labels, Phase: s.Phase, Gates: s.Gates})
		note = append(note, fmt.Sprintf("Evaluated here, from the pull request's commits read as data with the base branch's policy, after %s of the pull request, which could not post checks (a fork's read-only token).", runLink))
		compareArtifact(d, artifact, artifactErr, rep)
	} else {
		switch {
		case artifactErr != nil:
			rep = report.Failure(fmt.Errorf("the head commit %s is not in the checkout and the report of workflow run %d cannot be used: %w", gitsha.Short(wr.HeadSHA), wr.ID, artifactErr))
		default:
			rep = unverified(artifact)
			note = append(note, fmt.Sprintf("**Not re-evaluated:** these results are the report of %s, which ran the pull request's own workflow file, so the pull request could have forged them: its failures are shown, and every check it says passed could not be evaluated here. Fetch the head commit in the poster workflow (see the README) to have swarm-gate evaluate it here.", runLink))
			d.warnf("swarm-gate: the head commit %s is not in the checkout, so the checks of %s are posted from the report of workflow run %d, which the pull request could have forged; fetch the head commit (git fetch origin <sha>) before this step", gitsha.Short(wr.HeadSHA), what, wr.ID)
		}
	}
	rep.Tool = report.Tool{Name: "swarm-gate", Version: d.Checkout.Version}
	return d.finish(ctx, s, rep, cs, what, note, misconfigured)
}

// unverified makes a fork's report, which the poster could not re-evaluate,
// unable to pass: a forged report could claim anything, so a gate it says
// passed (or was overridden) becomes could-not-evaluate; what it says
// failed stays failed, since only the forger is hurt by that.
func unverified(rep *report.Report) *report.Report {
	for i := range rep.Gates {
		g := &rep.Gates[i]
		if g.Outcome != gates.Passed && g.Outcome != gates.Overridden {
			continue
		}
		g.Title = fmt.Sprintf("not re-evaluated: the pull request's own run reported %s, which it could have forged", g.Outcome)
		g.Outcome = gates.Error
		g.Findings = nil
	}
	rep.Settle()
	return rep
}

// forkPullRequest finds the open pull request whose head is the run's
// commit on the run's branch of headRepo; nil when there is none.
func forkPullRequest(ctx context.Context, d *Deps, wr *actions.WorkflowRun, headRepo string) (*ghapi.PullRequest, error) {
	owner, _, ok := strings.Cut(headRepo, "/")
	if !ok || owner == "" || wr.HeadBranch == "" {
		return nil, fmt.Errorf("workflow run %d names no head repository and branch (%q, %q)", wr.ID, mdtext.Printable(headRepo), mdtext.Printable(wr.HeadBranch))
	}
	prs, err := d.API.OpenPullRequests(ctx, d.Repo, owner+":"+wr.HeadBranch)
	if err != nil {
		return nil, fmt.Errorf("finding the pull request of workflow run %d: %w%s", wr.ID, err, PermissionHint(err, "pull-requests: read"))
	}
	for _, pr := range prs {
		if pr.HeadSHA == wr.HeadSHA && strings.EqualFold(pr.HeadRepo, headRepo) && gitsha.Full(pr.BaseSHA) {
			return pr, nil
		}
	}
	return nil, nil
}

// compareArtifact logs where the fork's own report disagrees with the
// evaluation done here (the posted checks are the evaluation's).
func compareArtifact(d *Deps, artifact *report.Report, artifactErr error, rep *report.Report) {
	if artifactErr != nil {
		d.logger().Info("the fork's report was not used", "reason", artifactErr)
		return
	}
	theirs := map[string]string{}
	for _, g := range artifact.Gates {
		theirs[g.Name] = string(g.Outcome)
	}
	for _, g := range rep.Gates {
		if t, ok := theirs[g.Name]; ok && t != string(g.Outcome) {
			d.warnf("swarm-gate: %s: the pull request's own run reported %s, the evaluation here says %s (the checks show the evaluation here)", g.Name, mdtext.Printable(t), g.Outcome)
		}
	}
}

// finish completes cs's check runs with rep and the summary comment, then
// has the front door report the evaluation (Deps.Checked).
func (d *Deps) finish(ctx context.Context, s Settings, rep *report.Report, cs *Runs, what string, note []string, misconfigured error) (int, error) {
	agg, results := Post(ctx, rep, cs, s.ReportTimeout, note, d.Comment)
	return d.reported(Result{Report: rep, Runs: cs, Aggregate: agg, Results: results, Misconfigured: misconfigured}, nil, event.Target{What: what, PostSHA: cs.SHA})
}

// reported has the front door report an evaluation (Deps.Checked, else
// Result.Verdict).
func (d *Deps) reported(res Result, err error, t event.Target) (int, error) {
	if d.Checked != nil {
		return d.Checked(res, err, t)
	}
	if err != nil {
		return report.ExitError, err
	}
	return res.Verdict()
}
