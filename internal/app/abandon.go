package app

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// AggregateCheck is the name of the aggregate check run, the one branch
// protection requires (evaluate.AggregateCheck).
const AggregateCheck = evaluate.AggregateCheck

// Abandon implements webhook.Abandoner: for a job the server accepted (202)
// and then dropped at shutdown, it completes the aggregate swarm-gate
// check run on the job's head SHA as failure ("could not evaluate"),
// saying that the server shut down before evaluating the commit and how to
// have it evaluated (push, re-run the checks, /swarm recheck), so that the
// required check does not wait forever for a delivery GitHub considers
// delivered. The run is the one the evaluation would have used (same name
// and external id): one list of the commit's check runs, then one update
// or create, plus the installation token when none is cached.
//
// Jobs the evaluation would not have reported on get no run, and neither
// do comment commands (a comment may not be a command at all); both are
// logged. Errors are logged: a warning with the delivery, so that it can
// be redelivered from the App's settings.
func (a *App) Abandon(ctx context.Context, job webhook.Job, reason string) {
	log := a.log.With("delivery", job.Delivery, "event", job.Event, "action", job.Action, "repo", job.Repo, "pr", job.PR,
		"head_sha", job.HeadSHA, "installation", job.Installation)
	kind, why := a.abandonKind(job)
	if kind == "" {
		log.Warn("job dropped at shutdown and not evaluated; no check run to fail: "+why+"; redeliver it from the App's settings (Advanced > Recent deliveries)", "reason", reason)
		return
	}
	repo, err := ghapi.ParseRepo(job.Repo)
	if err != nil {
		log.Error("job dropped at shutdown: cannot mark it failed", "error", err.Error())
		return
	}
	token, err := a.auth.token(ctx, job.Installation)
	if err != nil {
		log.Error("job dropped at shutdown: cannot mark it failed; redeliver it from the App's settings (Advanced > Recent deliveries)", "error", err.Error())
		return
	}
	hc := &http.Client{Transport: &counting{next: &installationAuth{tokens: a.auth.installation(job.Installation), next: a.base}, m: a.m, limit: strconv.FormatInt(job.Installation, 10)}}
	opts := []ghapi.Option{ghapi.WithLogger(log)}
	if a.cfg.Sleep != nil {
		opts = append(opts, ghapi.WithSleep(a.cfg.Sleep))
	}
	c, err := ghapi.NewClient(a.apiRoot, token, hc, opts...)
	if err != nil {
		log.Error("job dropped at shutdown: cannot mark it failed", "error", err.Error())
		return
	}
	res := gates.Result{Name: AggregateCheck, Outcome: gates.Error,
		Title: "the swarm-gate server shut down before evaluating this commit",
		Summary: fmt.Sprintf("swarm-gate accepted delivery `%s` (%s %s) for this commit but did not evaluate it: %s. This check fails rather than wait forever.\n\n"+
			"To have the commit evaluated: push a new commit, re-run this check from the Checks tab (**Re-run**), or comment `/swarm recheck` on the pull request.",
			job.Delivery, job.Event, job.Action, reason)}
	run, err := c.ReportCheck(ctx, repo, job.HeadSHA, evaluate.ExternalID(kind, externalKey()), res.Name, report.CheckOutput(res, ""))
	if err != nil {
		log.Error("job dropped at shutdown: could not mark its check failed; redeliver it from the App's settings (Advanced > Recent deliveries)", "error", err.Error())
		return
	}
	log.Warn("job dropped at shutdown: its check run is completed as failure, saying how to re-run it", "check", AggregateCheck, "id", run.ID, "reason", reason)
}

// abandonKind is the kind of evaluation a job would have been (the middle
// of its external id), or "" and why it would have posted no check run.
func (a *App) abandonKind(job webhook.Job) (kind, why string) {
	if job.HeadSHA == "" {
		return "", "a comment command (it runs only when commented again)"
	}
	ev, err := actions.ParseEvent(job.Payload)
	if err != nil {
		return "", "the payload does not parse: " + err.Error()
	}
	ev.Name = job.Event
	switch w := event.Route(ev, job.Repo, event.App); w.Kind {
	case event.Skip:
		return "", "its evaluation would have done nothing: " + w.Reason
	case event.Command:
		return "", "a comment command (it runs only when commented again)"
	default:
		return w.Target.Kind, ""
	}
}

// externalKey is the key part of the App's external ids: the
// evaluate.WorkflowKey of WorkflowName and JobName.
func externalKey() string { return evaluate.WorkflowKey(WorkflowName, JobName) }
