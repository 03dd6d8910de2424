package app

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// fullReport is where a cut check-run summary says the whole report is.
const fullReport = "the report of `swarm-gate check` run on the pull request's commits (the App keeps none)"

// evalLog is where an evaluation's messages go: records of the job's
// logger marked source=evaluation; the last error is the job's error.
type evalLog struct {
	log  *slog.Logger
	last string
}

func (l *evalLog) at(level slog.Level, msg string) {
	msg = strings.TrimSpace(msg)
	if level == slog.LevelError {
		l.last = msg
	}
	l.log.Log(context.Background(), level, msg, "source", "evaluation")
}

// evaluate does work (evaluate.Check or evaluate.Command) with the
// default settings, the gates' runs deferred (the API budget) and a
// cancelled context reported as failure (the App's shutdown is no one's
// cancellation). It returns the exit code (report.Exit*) and the last
// error it logged ("" when none). A panic is recovered: the runs left in
// progress are completed as failure (evaluate.Deps.Crashed) and the code
// is report.ExitError.
func (a *App) evaluate(ctx context.Context, log *slog.Logger, c *ghapi.Client, repo ghapi.Repo, co evaluate.Checkout,
	ev *actions.Event, work event.Work) (code int, lastError string) {
	el := &evalLog{log: log}
	var started []*ghapi.CheckRun
	s := evaluate.Settings{Gates: gates.Default(), ReportTimeout: evaluate.DefaultReportTimeout}
	co.OrgPolicy = evaluate.OrgPolicy(&a.orgPolicy, c, repo, s.Config)
	co.OrgPolicyRepo = strings.EqualFold(repo.Name, evaluate.OrgPolicyRepo)
	co.Version = a.cfg.Version
	d := &evaluate.Deps{
		API: c, Repo: repo, Logger: log, WorkflowKey: externalKey(), FullReport: fullReport,
		DeferGateRuns: true, FinaliseTimeout: a.cfg.FinaliseTimeout, CancelledAsFailure: true,
		Track:        func(runs ...*ghapi.CheckRun) { started = append(started, runs...) },
		Checkout:     co,
		Conversation: &evaluate.Conversation{BotLogin: a.botLogin(ctx), AppID: a.cfg.AppID},
		Warn:         func(msg string) { el.at(slog.LevelWarn, msg) },
		Notice:       func(msg string) { el.at(slog.LevelInfo, msg) },
	}
	d.Checked = func(res evaluate.Result, err error, _ event.Target) (int, error) {
		if err != nil {
			return report.ExitError, err
		}
		logResult(el, res)
		return res.Verdict()
	}
	defer func() {
		if v := recover(); v != nil {
			d.Crashed(ctx, started, v, debug.Stack(), func(msg string) { el.at(slog.LevelError, msg) })
			code = report.ExitError
		}
		lastError = el.last
	}()
	log.Info("swarm-gate evaluation", "event", ev.Name, "action", ev.Action, "job", work.Kind.String())
	var err error
	switch work.Kind {
	case event.Check:
		var res evaluate.Result
		res, err = evaluate.Check(ctx, d, s, work.Target)
		code, err = d.Checked(res, err, work.Target)
	case event.Command:
		code, err = evaluate.Command(ctx, d, s, ev)
	default:
		code, err = report.ExitError, fmt.Errorf("the App does not do %s work", work.Kind)
	}
	if err != nil {
		el.at(slog.LevelError, err.Error())
		code = max(code, report.ExitError)
	}
	return code, ""
}

// logResult logs what the check runs could not say: why the evaluation
// or a gate could not be done, and, when the runs could not be posted,
// every finding at its severity's level.
func logResult(el *evalLog, res evaluate.Result) {
	for _, m := range res.Problems() {
		el.at(slog.LevelError, m)
	}
	if res.Runs.Status == evaluate.Forbidden && len(res.Runs.Failed) == 0 {
		el.at(slog.LevelWarn, "swarm-gate: "+res.Runs.Why())
	}
	if res.Runs.Status == evaluate.Posted {
		return
	}
	for _, g := range res.Report.Gates {
		for _, f := range gates.FailingFirst(g.Findings) {
			level := slog.LevelError
			switch f.Severity {
			case gates.SeverityWarning:
				level = slog.LevelWarn
			case gates.SeverityNotice:
				level = slog.LevelInfo
			}
			el.at(level, f.Message)
		}
	}
}
