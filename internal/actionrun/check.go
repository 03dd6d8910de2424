package actionrun

import (
	"context"
	"fmt"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// check evaluates one target and posts its check runs (evaluate.Check),
// then reports it to the step.
func (ses *session) check(ctx context.Context, t target) (int, error) {
	res, err := evaluate.Check(ctx, ses.deps(), ses.evalSettings(), t)
	return ses.checked(res, err, t)
}

// checked reports an evaluation to the step (evaluate.Deps.Checked).
func (ses *session) checked(res evaluate.Result, err error, t target) (int, error) {
	if err != nil {
		return exitError, err
	}
	if res.Misconfigured != nil {
		ses.misconfigured = res.Misconfigured
	}
	ses.posted(res.Runs)
	return ses.reportRun(res.Report, res.Runs, res.Aggregate, res.Results, t.What)
}

// evalSettings are the run's settings for evaluate.
func (ses *session) evalSettings() evaluate.Settings {
	s := ses.s
	timeout := DefaultReportTimeout
	if s.ReportTimeout > 0 {
		timeout = s.ReportTimeout
	}
	return evaluate.Settings{Gates: s.Gates, Phase: s.Phase, Config: s.Config, SARIF: s.SARIF, ReportTimeout: timeout}
}

// reportRun reports an evaluation whose check runs are posted to the
// step: the report files (unless Runner.NoReportFiles), the step outputs
// and summary, and the log. It returns the exit code.
//
// When the checks could not be posted (no token, an API failure), the
// conclusion output is failure whatever the gates said, and so is the exit
// code (2): the verdict did not reach the pull request. A fork's read-only
// token is not such a failure (the fork poster posts the checks).
func (ses *session) reportRun(rep *report.Report, cs *checkSet, agg gates.Result, results []gates.Result, what string) (int, error) {
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

// posted counts what cs left stuck in progress, and warns when the token
// may not post check runs.
func (ses *session) posted(cs *checkSet) {
	ses.stuck += cs.Stuck
	if cs.Status == forbidden && len(cs.Failed) == 0 {
		ses.warnf("swarm-gate: %s", cs.Why()) // postError and noToken are reported once, by finish
	}
}

var _ API = (*ghapi.Client)(nil)
