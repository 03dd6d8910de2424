// Package report turns gate results into what people and machines read: the
// versioned JSON report, plain text for terminals, and Markdown for step
// summaries and check-run bodies.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
)

// Version is the JSON report's format version. Fields may be added without
// changing it; removing or renaming one bumps it.
const Version = 1

// Report is the outcome of one `swarm-gate check`, and the JSON report's
// shape (README.md documents it).
type Report struct {
	Version     int               `json:"version"`
	Outcome     gates.Outcome     `json:"outcome"` // passed, failed or error
	ExitCode    int               `json:"exit_code"`
	Base        string            `json:"base"`         // full SHA of the base commit
	Head        string            `json:"head"`         // full SHA of the head commit
	MergeBase   string            `json:"merge_base"`   // full SHA
	Phase       int               `json:"phase"`        // 0 when there is no head plan (phase_source no_plan)
	PhaseSource gates.PhaseSource `json:"phase_source"` // flag, branch, label, status_changes, active_phase, current_phase or no_plan
	// Phases are every phase whose tasks the pull request changes the
	// status of, when the phase was inferred from them: swarm/scope and
	// swarm/evidence check each (omitted when none).
	Phases []int          `json:"phases,omitempty"`
	Gates  []gates.Result `json:"gates"`
	// Config says where the policy came from: the base commit's
	// .github/swarm-gate.yml, or the built-in defaults.
	Config string `json:"config,omitempty"`
	// Comment is the policy's comment key (when the Action and the App
	// post the pull request summary comment); "" when the policy was not
	// read. It is not in the JSON: a report read back (a fork's artifact)
	// is not where the base branch's policy comes from.
	Comment gates.CommentPolicy `json:"-"`
	// Error says why the check could not start at all (outcome "error",
	// no gates): a missing .swarm/ folder, an unknown ref, a shallow clone.
	Error string `json:"error,omitempty"`
	Tool  Tool   `json:"tool"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// New builds a report from gate results, deciding the overall outcome and
// exit code.
func New(results []gates.Result) *Report {
	o := Overall(results)
	return &Report{Version: Version, Outcome: o, ExitCode: ExitCode(o), Gates: results}
}

// Failure is the report of a check that could not start: outcome error,
// exit code 2, no gates, and the reason.
func Failure(err error) *Report {
	return &Report{Version: Version, Outcome: gates.Error, ExitCode: ExitError, Gates: []gates.Result{}, Error: err.Error()}
}

// Overall is the aggregate outcome of the "swarm-gate" check: error when any
// gate could not be evaluated (the verdict is incomplete, so it fails
// closed), else failed when any gate failed, else passed (overridden and
// not-applicable gates do not block).
func Overall(results []gates.Result) gates.Outcome {
	failed := false
	for _, r := range results {
		switch r.Outcome {
		case gates.Error:
			return gates.Error
		case gates.Failed:
			failed = true
		}
	}
	if failed {
		return gates.Failed
	}
	return gates.Passed
}

// Exit codes of the CLI (DESIGN.md section 5).
const (
	ExitPassed = 0 // all required gates passed
	ExitFailed = 1 // a gate failed
	ExitError  = 2 // could not evaluate (bad input, missing history)
	ExitUsage  = 3 // usage error
)

// ExitCode maps an overall outcome to the CLI's exit code.
func ExitCode(o gates.Outcome) int {
	switch o {
	case gates.Passed, gates.Overridden, gates.NotApplicable:
		return ExitPassed
	case gates.Failed:
		return ExitFailed
	}
	return ExitError
}

// WriteJSON writes the report as indented JSON followed by a newline.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// PhaseText says which phase was checked and why, for headers:
// "phase 2 (from status_changes)", "phases 2, 3 (from status_changes; 2 is
// the pull request's)" or "no plan phase (no_plan)".
func PhaseText(r *Report) string {
	if r.Phase == 0 {
		return "no plan phase (" + string(r.PhaseSource) + ": no plan at head)"
	}
	if len(r.Phases) > 1 {
		ids := make([]string, len(r.Phases))
		for i, p := range r.Phases {
			ids[i] = strconv.Itoa(p)
		}
		return fmt.Sprintf("phases %s (from %s; %d is the pull request's)", strings.Join(ids, ", "), r.PhaseSource, r.Phase)
	}
	return fmt.Sprintf("phase %d (from %s)", r.Phase, r.PhaseSource)
}

// Counts tallies gates by outcome.
func (r *Report) Counts() map[gates.Outcome]int {
	m := map[gates.Outcome]int{}
	for _, g := range r.Gates {
		m[g.Outcome]++
	}
	return m
}

// UpperFirst capitalises an ASCII first letter, for sentence starts.
func UpperFirst(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
