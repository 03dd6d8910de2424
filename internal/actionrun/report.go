package actionrun

import (
	"bytes"
	"fmt"
	"path"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// checked reports an evaluation whose check runs are posted to the step
// (evaluate.Deps.Checked): the report files, the step outputs and
// summary, and the log. It returns the exit code.
//
// When the checks could not be posted (no token, an API failure), the
// conclusion output is failure whatever the gates said, and so is the exit
// code (2): the verdict did not reach the pull request. A fork's read-only
// token is not such a failure (the fork poster posts the checks).
func (st *step) checked(res evaluate.Result, err error, t event.Target) (int, error) {
	if err != nil {
		return exitError, err
	}
	st.posted(res)
	rep, cs := res.Report, res.Runs
	files := writeReport(st.console, st.workspace, st.s.ReportDir, st.r.Version, rep)
	out := res.Aggregate
	if cs.Status == evaluate.NoToken || cs.Status == evaluate.PostError {
		out.Outcome = gates.Error // the check could not be reported
	}
	st.reported = true
	setOutputs(st.console, st.r.Env, out, res.Results, files)
	writeSummary(st.console, st.r.Env, rep, cs, t.What)
	st.logEvaluation(res)
	if st.api != nil {
		st.group("swarm-gate: GitHub API", apiLog(st.api.Stats(), cs))
	}
	code := rep.ExitCode
	if res.Aggregate.Outcome == gates.Error {
		code = max(code, exitError)
	}
	switch cs.Status {
	case evaluate.PostError:
		// The checks on the pull request say failure whatever the
		// verdict: the step says so too.
		return max(code, exitError), fmt.Errorf("swarm-gate: %s", cs.Why())
	case evaluate.NoToken:
		return max(code, exitError), fmt.Errorf("swarm-gate: %s", evaluate.NoTokenChecks)
	}
	return code, nil
}

// phaseWrapPR reports a phase pull request's phase-wrap to the step
// (evaluate.Deps.Also): a section of the step summary and the log; it
// returns the evaluation's exit code.
func (st *step) phaseWrapPR(res evaluate.Result, t event.Target) int {
	st.posted(res)
	if st.r.Env.SummaryPath() != "" {
		var b bytes.Buffer
		fmt.Fprintf(&b, "\n---\n\n### Pull request #%d (%s)\n\n", t.PR, mdtext.Code(t.HeadBranch))
		if err := report.WriteMarkdown(&b, res.Report, 100); err == nil {
			if err := st.r.Env.AppendSummary(b.String()); err != nil {
				st.warnf("swarm-gate: %v", err)
			}
		}
	}
	st.logEvaluation(res)
	if res.Runs.Status == evaluate.PostError {
		st.errorf("swarm-gate: %s: %s", t.What, res.Runs.Why())
		return exitError
	}
	return res.Report.ExitCode
}

// posted keeps what the step's end must account for of an evaluation
// (its check runs left stuck in progress, a misconfigured workflow), and
// warns when the token may not post check runs.
func (st *step) posted(res evaluate.Result) {
	if res.Misconfigured != nil {
		st.misconfigured = res.Misconfigured
	}
	cs := res.Runs
	st.stuck += cs.Stuck
	if cs.Status == evaluate.Forbidden && len(cs.Failed) == 0 {
		st.warnf("swarm-gate: %s", cs.Why()) // postError and noToken are reported once, by conclude
	}
}

// logEvaluation writes an evaluation to the step's log (writeLog).
func (st *step) logEvaluation(res evaluate.Result) {
	writeLog(st.console, res.Report, res.Runs, path.Join(st.s.ReportDir, ReportJSONName))
}
