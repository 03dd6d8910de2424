package evaluate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Limits on a report read back from an artifact (ModePublish), which is
// untrusted: the run that wrote it used the pull request's own workflow
// file.
const (
	MaxArtifactBytes       = 16 << 20
	MaxArtifactFindings    = 20000 // in all gates together
	maxArtifactText        = 64000 // a message, a title or the error, in bytes
	maxArtifactRule        = 200
	maxArtifactPath        = 4096
	maxArtifactLineOrCol   = 10_000_000
	maxArtifactPhase       = 1 << 20
	maxArtifactConfigBytes = 4096
)

// readArtifact reads and checks a report that another run wrote (the
// swarm-gate-report artifact of a fork's pull request run) and returns it
// with nothing in it that GitHub would render as the artifact wrote it:
// gate summaries (Markdown) are replaced by a line saying where the
// result came from; titles and messages are kept as plain text (check
// runs and summaries escape them). head is the commit the run was for, as
// the workflow_run event says; a report about another commit is refused.
//
// Refused, with an error naming the field: a file that is not a regular
// file or is over MaxArtifactBytes; anything but one JSON object; a
// version other than report.Version; a head, base or merge base that is
// not a full SHA (base and merge base may be empty in a report with an
// error); an unknown or repeated check name; an outcome or severity that
// is not one of swarm-gate's; a finding path that is not a clean
// repository-relative path; numbers out of range; invalid UTF-8; more
// than MaxArtifactFindings findings; text over its limit.
func readArtifact(file, head string) (*report.Report, error) {
	data, err := readRegular(file, MaxArtifactBytes)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var rep report.Report
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("not a swarm-gate JSON report: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a swarm-gate JSON report: data after the JSON object")
	}
	if err := checkArtifact(&rep, head); err != nil {
		return nil, err
	}
	evaluated := 0
	for _, g := range rep.Gates {
		if g.Outcome != gates.NotApplicable {
			evaluated++
		}
	}
	if rep.Error == "" && evaluated == 0 {
		return nil, errors.New("no gate in it was evaluated (every one is not_applicable), which proves nothing about the pull request")
	}
	rep.ExitCode = report.ExitCode(rep.Outcome) // never the artifact's word
	for i := range rep.Gates {
		rep.Gates[i].Summary = "Result as reported by the pull request's own workflow run (its summary is not shown: it came from the pull request's run)."
	}
	return &rep, nil
}

// readRegular reads a regular file (not a symlink) of at most limit bytes.
func readRegular(file string, limit int64) ([]byte, error) {
	info, err := os.Lstat(file)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", file)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", file, info.Size(), limit)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is over the %d-byte limit", file, limit)
	}
	return data, nil
}

func checkArtifact(rep *report.Report, head string) error {
	switch {
	case rep.Version != report.Version:
		return fmt.Errorf("version %d: this swarm-gate reads version %d reports", rep.Version, report.Version)
	case rep.Head != head:
		return fmt.Errorf("head %q: the workflow run was for commit %s, so the report is not about it", mdtext.Printable(clip(rep.Head, 80)), head)
	case !optionalSHA(rep.Base) || !optionalSHA(rep.MergeBase):
		return errors.New("base or merge_base is not a full commit SHA")
	case rep.Error == "" && (rep.Base == "" || rep.MergeBase == ""):
		return errors.New("base and merge_base are missing from a report without an error")
	case rep.Phase < 0 || rep.Phase > maxArtifactPhase:
		return fmt.Errorf("phase %d is out of range", rep.Phase)
	case !text(rep.Error, maxArtifactText) || !text(rep.Config, maxArtifactConfigBytes) || !text(string(rep.PhaseSource), 64):
		return errors.New("error, config or phase_source is not valid UTF-8 text within its limit")
	}
	if pc := rep.PolicyChange; pc != nil {
		if err := checkPolicyChange(pc); err != nil {
			return fmt.Errorf("policy_change: %w", err)
		}
	}
	switch rep.Outcome {
	case gates.Passed, gates.Failed, gates.Error:
	default:
		return fmt.Errorf("outcome %q is not passed, failed or error", mdtext.Printable(clip(string(rep.Outcome), 80)))
	}
	seen := map[string]bool{}
	total := 0
	for i := range rep.Gates {
		g := &rep.Gates[i]
		where := fmt.Sprintf("gates[%d]", i)
		switch {
		case !OwnCheck(g.Name) || g.Name == AggregateCheck:
			return fmt.Errorf("%s: %q is not one of swarm-gate's checks", where, mdtext.Printable(clip(g.Name, 80)))
		case seen[g.Name]:
			return fmt.Errorf("%s: %s appears twice", where, g.Name)
		case !validOutcome(g.Outcome):
			return fmt.Errorf("%s (%s): outcome %q is not one of swarm-gate's", where, g.Name, mdtext.Printable(clip(string(g.Outcome), 80)))
		case !text(g.Title, maxArtifactText):
			return fmt.Errorf("%s (%s): the title is not valid UTF-8 text within %d bytes", where, g.Name, maxArtifactText)
		}
		seen[g.Name] = true
		total += len(g.Findings)
		if total > MaxArtifactFindings {
			return fmt.Errorf("more than %d findings", MaxArtifactFindings)
		}
		for j, f := range g.Findings {
			if err := checkFinding(f); err != nil {
				return fmt.Errorf("%s (%s): findings[%d]: %w", where, g.Name, j, err)
			}
		}
		if g.Findings == nil {
			g.Findings = []gates.Finding{}
		}
	}
	if want := rep.SettledOutcome(); rep.Error == "" && rep.Outcome != want {
		return fmt.Errorf("outcome %s does not follow from the checks' outcomes (%s)", rep.Outcome, want)
	}
	return nil
}

// maxPolicyChangeItems bounds a report's policy problems and changes
// (a policy file has about 60 settings; the parser reports each key once).
const maxPolicyChangeItems = 1000

func checkPolicyChange(pc *report.PolicyChange) error {
	switch {
	case len(pc.Path) > maxArtifactPath || !utf8.ValidString(pc.Path) || path.Clean(pc.Path) != pc.Path || path.IsAbs(pc.Path) || strings.HasPrefix(pc.Path, "../") || strings.ContainsAny(pc.Path, "\x00\r\n\\"):
		return fmt.Errorf("path %q is not a clean repository-relative path", mdtext.Printable(clip(pc.Path, 200)))
	case pc.Status != "added" && pc.Status != "modified" && pc.Status != "deleted":
		return fmt.Errorf("status %q is not added, modified or deleted", mdtext.Printable(clip(pc.Status, 80)))
	case len(pc.Problems)+len(pc.Changes) > maxPolicyChangeItems:
		return fmt.Errorf("more than %d problems and changes", maxPolicyChangeItems)
	}
	for _, s := range append(slices.Clone(pc.Problems), pc.Changes...) {
		if !text(s, maxArtifactText) {
			return fmt.Errorf("an item is not valid UTF-8 text within %d bytes", maxArtifactText)
		}
	}
	return nil
}

func checkFinding(f gates.Finding) error {
	if f.Path != "" {
		if len(f.Path) > maxArtifactPath || !utf8.ValidString(f.Path) || strings.ContainsAny(f.Path, "\x00\r\n\\") ||
			path.Clean(f.Path) != f.Path || path.IsAbs(f.Path) || f.Path == ".." || strings.HasPrefix(f.Path, "../") {
			return fmt.Errorf("path %q is not a clean repository-relative path", mdtext.Printable(clip(f.Path, 200)))
		}
	}
	for _, n := range []int{f.Line, f.EndLine, f.Column} {
		if n < 0 || n > maxArtifactLineOrCol {
			return fmt.Errorf("line or column %d is out of range", n)
		}
	}
	switch f.Severity {
	case gates.SeverityError, gates.SeverityWarning, gates.SeverityNotice:
	default:
		return fmt.Errorf("severity %q is not error, warning or notice", mdtext.Printable(clip(string(f.Severity), 80)))
	}
	if !text(f.Rule, maxArtifactRule) || !text(f.Message, maxArtifactText) {
		return errors.New("rule or message is not valid UTF-8 text within its limit")
	}
	return nil
}

func validOutcome(o gates.Outcome) bool {
	switch o {
	case gates.Passed, gates.Failed, gates.Error, gates.Overridden, gates.NotApplicable:
		return true
	}
	return false
}

func optionalSHA(s string) bool { return s == "" || gitsha.Full(s) }

func text(s string, limit int) bool { return len(s) <= limit && utf8.ValidString(s) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
