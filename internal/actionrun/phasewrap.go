package actionrun

import (
	"bytes"
	"context"
	"fmt"

	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// MaxPhasePullRequests bounds how many open phase pull requests one
// phase-wrap run evaluates (evaluate.MaxPhasePullRequests).
const MaxPhasePullRequests = evaluate.MaxPhasePullRequests

// phaseWrap posts swarm/phase-wrap (evaluate.PhaseWrap) on the checkout's
// commit (GITHUB_SHA, or the head input) and on the open phase pull
// requests. The step's outputs, report files and conclusion are the
// checkout's commit's.
func (ses *session) phaseWrap(ctx context.Context) (int, error) {
	head := ses.s.Head
	if head == "" {
		head = ses.r.Env.Get("GITHUB_SHA")
	}
	if head == "" {
		head = "HEAD"
	}
	w := evaluate.Wrap{Base: ses.s.Base, Head: head, HeadBranch: ses.s.HeadBranch, Ref: ses.r.Env.Ref()}
	return evaluate.PhaseWrap(ctx, ses.deps(), ses.evalSettings(), w)
}

// phaseWrapPR reports a phase pull request's phase-wrap to the step
// (evaluate.Deps.Also): a section of the step summary and the log; it
// returns the evaluation's exit code.
func (ses *session) phaseWrapPR(res evaluate.Result, t event.Target) int {
	if res.Misconfigured != nil {
		ses.misconfigured = res.Misconfigured
	}
	ses.posted(res.Runs)
	rep, cs := res.Report, res.Runs
	if ses.r.Env.SummaryPath() != "" {
		var b bytes.Buffer
		fmt.Fprintf(&b, "\n---\n\n### Pull request #%d (%s)\n\n", t.PR, mdtext.Code(t.HeadBranch))
		if err := report.WriteMarkdown(&b, rep, 100); err == nil {
			if err := ses.r.Env.AppendSummary(b.String()); err != nil {
				ses.warnf("swarm-gate: %v", err)
			}
		}
	}
	ses.writeLog(rep, cs)
	if cs.Status == postError {
		ses.errorf("swarm-gate: %s: %s", t.What, cs.Why())
		return exitError
	}
	return rep.ExitCode
}
