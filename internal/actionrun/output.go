package actionrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

func codeBlock(s string) string { return mdtext.CodeBlock(s) }

// reportFiles are the files writeReport wrote, relative to the workspace
// ('/'-separated), "" when not written.
type reportFiles struct {
	JSON, SARIF string
}

// Report file names inside the report directory.
const (
	ReportJSONName  = "report.json"
	ReportSARIFName = "report.sarif"
)

// writeReport writes report.json and report.sarif under the report
// directory in the workspace. Files are given to the workspace's owner
// (the container runs as root; a self-hosted runner must be able to
// delete them).
func (ses *session) writeReport(rep *report.Report) reportFiles {
	var out reportFiles
	dir := filepath.Join(ses.workspace, filepath.FromSlash(ses.s.ReportDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ses.warnf("swarm-gate: writing the report: %v", err)
		return out
	}
	ses.chown(dir)
	write := func(name string, fn func(*bytes.Buffer) error) string {
		var buf bytes.Buffer
		if err := fn(&buf); err != nil {
			ses.warnf("swarm-gate: writing %s: %v", name, err)
			return ""
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			ses.warnf("swarm-gate: writing %s: %v", name, err)
			return ""
		}
		ses.chown(p)
		return path.Join(ses.s.ReportDir, name)
	}
	out.JSON = write(ReportJSONName, func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) })
	out.SARIF = write(ReportSARIFName, func(b *bytes.Buffer) error { return report.WriteSARIF(b, rep, ses.r.Version) })
	return out
}

// chown gives p to the workspace's owner when we run as another user
// (errors are ignored: it only matters on self-hosted runners).
func (ses *session) chown(p string) {
	info, err := os.Stat(ses.workspace)
	if err != nil {
		return
	}
	uid, gid, ok := fileOwner(info)
	if !ok || uid == os.Getuid() {
		return
	}
	_ = os.Chown(p, uid, gid)
}

// setOutputs sets the step outputs: conclusion (the aggregate's),
// conclusions (JSON, by check name), one output per gate named after it
// without "swarm/" (plan-freeze, scope, ...), findings-count, report-json
// and sarif.
func (ses *session) setOutputs(agg gates.Result, results []gates.Result, files reportFiles) {
	ses.reported = true
	if ses.r.Env.OutputPath() == "" {
		ses.logger.Debug("GITHUB_OUTPUT is not set: no step outputs")
		return
	}
	conclusions := map[string]string{}
	findings := 0
	set := func(name, value string) {
		if err := ses.r.Env.SetOutput(name, value); err != nil {
			ses.warnf("swarm-gate: %v", err)
		}
	}
	set("conclusion", conclusionOf(agg))
	for _, g := range results {
		c := conclusionOf(g)
		conclusions[g.Name] = c
		findings += len(g.Findings)
		set(strings.TrimPrefix(g.Name, "swarm/"), c)
	}
	b, _ := json.Marshal(conclusions)
	set("conclusions", string(b))
	set("findings-count", strconv.Itoa(findings))
	set("report-json", files.JSON)
	set("sarif", files.SARIF)
}

// conclusionOf is the check-run conclusion of a result (success, failure
// or neutral).
func conclusionOf(res gates.Result) string {
	return report.Conclusion(res.Outcome)
}

// writeSummary appends the report, as Markdown, to the step summary.
func (ses *session) writeSummary(rep *report.Report, cs *checkSet, what string) {
	if ses.r.Env.SummaryPath() == "" {
		ses.logger.Debug("GITHUB_STEP_SUMMARY is not set: no step summary")
		return
	}
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, rep, 100); err != nil {
		ses.warnf("swarm-gate: writing the step summary: %v", err)
		return
	}
	fmt.Fprintf(&b, "\n_%s, commit `%s`._ ", mdtext.Inline(what), gitsha.Short(cs.SHA))
	switch {
	case cs.Status == posted && cs.URL(aggregateName) != "":
		fmt.Fprintf(&b, "Check runs: [swarm-gate](%s) and one per gate.\n", cs.URL(aggregateName))
	case cs.Status == posted:
		b.WriteString("Check runs: swarm-gate and one per gate.\n")
	default:
		fmt.Fprintf(&b, "%s.\n", mdtext.Inline(cs.Why()))
	}
	if err := ses.r.Env.AppendSummary(b.String() + "\n"); err != nil {
		ses.warnf("swarm-gate: %v", err)
	}
}

// writeLog prints the text report in a collapsed group (between
// stop-commands: it quotes the repository), writes each "could not
// evaluate" as an error annotation titled swarm-gate (so that it shows in
// the run's annotations), and, when the check runs could not carry them,
// every finding as an annotation of the step.
func (ses *session) writeLog(rep *report.Report, cs *checkSet) {
	var b bytes.Buffer
	if rep.Error != "" {
		fmt.Fprintf(&b, "swarm-gate: could not evaluate: %s\n", rep.Error)
	} else if err := report.WriteText(&b, rep, 50); err != nil {
		ses.logger.Error("writing the report to the log", "error", err)
	}
	ses.group("swarm-gate: the report of "+gitsha.Short(cs.SHA), func() error { return ses.log.PrintUntrusted(b.String()) })
	ses.annotateErrors(rep)
	if cs.Status == posted {
		return
	}
	n := 0
	for _, g := range rep.Gates {
		// Failing first: GitHub shows only the first few annotations of a
		// step.
		for _, f := range gates.FailingFirst(g.Findings) {
			if err := ses.log.Annotate(findingAnnotation(g.Name, f)); err != nil {
				ses.logger.Error("writing to the log", "error", err)
				return
			}
			n++
		}
	}
	if n > 0 {
		where := " and " + path.Join(ses.s.ReportDir, ReportJSONName)
		if ses.r.NoReportFiles {
			where = ""
		}
		ses.noticef("swarm-gate: %s written as annotations of this step (GitHub shows at most 10 errors and 10 warnings per step; all are in the step summary%s)", mdtext.Count(n, "finding"), where)
	}
}

// findingAnnotation is a finding as a workflow-command annotation.
func findingAnnotation(gate string, f gates.Finding) actions.Annotation {
	level := actions.LevelError
	switch f.Severity {
	case gates.SeverityWarning:
		level = actions.LevelWarning
	case gates.SeverityNotice:
		level = actions.LevelNotice
	}
	return actions.Annotation{Level: level, Title: gate + ": " + f.Rule, File: f.Path, Line: f.Line, EndLine: f.EndLine, Col: f.Column, Message: f.Message}
}

// group writes what print writes inside a collapsed group of the log
// titled title.
func (ses *session) group(title string, print func() error) {
	if err := ses.log.Group(title); err != nil {
		ses.logger.Error("writing to the log", "error", err)
		return
	}
	if err := print(); err != nil {
		ses.logger.Error("writing to the log", "error", err)
	}
	if err := ses.log.EndGroup(); err != nil {
		ses.logger.Error("writing to the log", "error", err)
	}
}

// annotateErrors writes an ::error:: annotation titled swarm-gate for an
// evaluation that could not be done, or for each gate that could not be
// evaluated.
func (ses *session) annotateErrors(rep *report.Report) {
	var msgs []string
	if rep.Error != "" {
		msgs = append(msgs, "could not evaluate: "+rep.Error)
	} else {
		for _, g := range rep.Gates {
			if g.Outcome == gates.Error {
				msgs = append(msgs, g.Name+": "+g.Title)
			}
		}
	}
	for _, m := range msgs {
		if err := ses.log.Annotate(actions.Annotation{Level: actions.LevelError, Title: aggregateName, Message: m}); err != nil {
			ses.logger.Error("writing to the log", "error", err)
		}
	}
}

// logAPI prints, in a collapsed group, what the GitHub client did for the
// step: requests, resends, time spent waiting for rate limits, and the
// first API error of the check runs.
func (ses *session) logAPI(cs *checkSet) {
	if ses.api == nil {
		return
	}
	s := ses.api.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "requests sent: %d (%d of them resent); waited for rate limits and backoff: %v\n", s.Requests, s.Retries, s.Waited.Round(time.Millisecond))
	fmt.Fprintf(&b, "check runs on %s: %d started", gitsha.Short(cs.SHA), cs.Started())
	if n := len(cs.Failed); n > 0 {
		fmt.Fprintf(&b, ", %d not reported", n)
	}
	if cs.Stuck > 0 {
		fmt.Fprintf(&b, ", %d left in progress", cs.Stuck)
	}
	b.WriteString("\n")
	if cs.Err != nil {
		fmt.Fprintf(&b, "first API error: %v\n", cs.Err)
	}
	ses.group("swarm-gate: GitHub API", func() error { return ses.log.PrintUntrusted(b.String()) })
}
