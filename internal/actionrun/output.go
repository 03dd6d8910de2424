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
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// What the step writes of an evaluation: the report files, the outputs,
// the step summary and the log. Each writes what it can and warns of the
// rest: the check runs carry the verdict.

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

// writeReport writes report.json and report.sarif under dir (the
// report-dir input, '/'-separated) in the workspace. Files are given to
// the workspace's owner (the container runs as root; a self-hosted runner
// must be able to delete them).
func writeReport(c console, workspace, dir, version string, rep *report.Report) reportFiles {
	var out reportFiles
	full := filepath.Join(workspace, filepath.FromSlash(dir))
	if err := os.MkdirAll(full, 0o755); err != nil {
		c.warnf("swarm-gate: writing the report: %v", err)
		return out
	}
	chown(workspace, full)
	write := func(name string, fn func(*bytes.Buffer) error) string {
		var buf bytes.Buffer
		if err := fn(&buf); err != nil {
			c.warnf("swarm-gate: writing %s: %v", name, err)
			return ""
		}
		p := filepath.Join(full, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			c.warnf("swarm-gate: writing %s: %v", name, err)
			return ""
		}
		chown(workspace, p)
		return path.Join(dir, name)
	}
	out.JSON = write(ReportJSONName, func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) })
	out.SARIF = write(ReportSARIFName, func(b *bytes.Buffer) error { return report.WriteSARIF(b, rep, version) })
	return out
}

// chown gives p to the owner of the workspace when we run as another user
// (errors are ignored: it only matters on self-hosted runners).
func chown(workspace, p string) {
	info, err := os.Stat(workspace)
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
func setOutputs(c console, env actions.Env, agg gates.Result, results []gates.Result, files reportFiles) {
	if env.OutputPath() == "" {
		c.logger.Debug("GITHUB_OUTPUT is not set: no step outputs")
		return
	}
	conclusions := map[string]string{}
	findings := 0
	set := func(name, value string) {
		if err := env.SetOutput(name, value); err != nil {
			c.warnf("swarm-gate: %v", err)
		}
	}
	set("conclusion", report.Conclusion(agg.Outcome))
	for _, g := range results {
		conc := report.Conclusion(g.Outcome)
		conclusions[g.Name] = conc
		findings += len(g.Findings)
		set(strings.TrimPrefix(g.Name, "swarm/"), conc)
	}
	b, _ := json.Marshal(conclusions)
	set("conclusions", string(b))
	set("findings-count", strconv.Itoa(findings))
	set("report-json", files.JSON)
	set("sarif", files.SARIF)
}

// writeSummary appends the report, as Markdown, to the step summary,
// with a line on what was evaluated and where its check runs are.
func writeSummary(c console, env actions.Env, rep *report.Report, cs *evaluate.Runs, what string) {
	if env.SummaryPath() == "" {
		c.logger.Debug("GITHUB_STEP_SUMMARY is not set: no step summary")
		return
	}
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, rep, 100); err != nil {
		c.warnf("swarm-gate: writing the step summary: %v", err)
		return
	}
	fmt.Fprintf(&b, "\n_%s, commit `%s`._ ", mdtext.Inline(what), gitsha.Short(cs.SHA))
	agg := cs.URL(evaluate.AggregateCheck)
	switch {
	case cs.Status == evaluate.Posted && agg != "":
		fmt.Fprintf(&b, "Check runs: [swarm-gate](%s) and one per gate.\n", agg)
	case cs.Status == evaluate.Posted:
		b.WriteString("Check runs: swarm-gate and one per gate.\n")
	default:
		fmt.Fprintf(&b, "%s.\n", mdtext.Inline(cs.Why()))
	}
	if err := env.AppendSummary(b.String() + "\n"); err != nil {
		c.warnf("swarm-gate: %v", err)
	}
}

// writeLog prints the text report in a collapsed group (between
// stop-commands: it quotes the repository), writes each "could not
// evaluate" as an error annotation titled swarm-gate (so that it shows in
// the run's annotations), and, when the check runs could not carry them,
// every finding as an annotation of the step; reportJSON is the
// report.json that has them all.
func writeLog(c console, rep *report.Report, cs *evaluate.Runs, reportJSON string) {
	var b bytes.Buffer
	if rep.Error != "" {
		fmt.Fprintf(&b, "swarm-gate: could not evaluate: %s\n", rep.Error)
	} else if err := report.WriteText(&b, rep, 50); err != nil {
		c.logger.Error("writing the report to the log", "error", err)
	}
	c.group("swarm-gate: the report of "+gitsha.Short(cs.SHA), b.String())
	for _, m := range evaluate.Problems(rep) {
		c.annotate(actions.Annotation{Level: actions.LevelError, Title: evaluate.AggregateCheck, Message: m})
	}
	if cs.Status == evaluate.Posted {
		return
	}
	n := 0
	for _, g := range rep.Gates {
		// Failing first: GitHub shows only the first few annotations of a
		// step.
		for _, f := range gates.FailingFirst(g.Findings) {
			if !c.annotate(findingAnnotation(g.Name, f)) {
				return
			}
			n++
		}
	}
	if n > 0 {
		c.noticef("swarm-gate: %s written as annotations of this step (GitHub shows at most 10 errors and 10 warnings per step; all are in the step summary and %s)", mdtext.Count(n, "finding"), reportJSON)
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

// apiLog is what the GitHub client did for the step, for the log:
// requests, resends, time spent waiting for rate limits, and the check
// runs of cs with their first API error.
func apiLog(s ghapi.Stats, cs *evaluate.Runs) string {
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
	return b.String()
}
