// Package report turns gate results into what people and machines read: the
// versioned JSON report, plain text for terminals, SARIF, Markdown for step
// summaries, and check runs' conclusions, titles, summaries and annotations.
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
// shape (docs/report-json.md documents it).
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
	// PolicyChange is what the pull request does to the policy file; nil
	// when it leaves it alone. The change applies only once merged, but a
	// new file that does not parse fails the check: the pull request
	// cannot relax its own gate, and must not merge a broken policy.
	PolicyChange *PolicyChange `json:"policy_change,omitempty"`
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

// PolicyChange describes a pull request's edit of the policy file.
type PolicyChange struct {
	Path   string `json:"path"`   // repository-relative, e.g. .github/swarm-gate.yml
	Status string `json:"status"` // added, modified or deleted
	// Problems are the new file's errors, each "line L, column C:
	// message" (what swarm-gate config validate prints); when there are
	// any, the check fails.
	Problems []string `json:"problems,omitempty"`
	// Changes are the settings the new file changes against the base
	// branch's policy, each "loosens KEY: FROM → TO", "tightens ..." or
	// "changes ..." (a setting that moves neither way).
	Changes []string `json:"changes,omitempty"`
}

// Invalid reports whether the pull request's policy file has problems.
func (p *PolicyChange) Invalid() bool { return p != nil && len(p.Problems) > 0 }

// Settle decides Outcome and ExitCode from the gates and the policy
// change: an invalid new policy fails a check whose gates passed.
func (r *Report) Settle() {
	r.Outcome = r.SettledOutcome()
	r.ExitCode = ExitCode(r.Outcome)
}

// SettledOutcome is the outcome Settle sets (for a report that
// already has one, e.g. one read back from an artifact).
func (r *Report) SettledOutcome() gates.Outcome {
	o := Overall(r.Gates)
	if o == gates.Passed && r.PolicyChange.Invalid() {
		return gates.Failed
	}
	return o
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

// PolicyChangeText is the policy change as a heading and its items, for
// every output: nil heading when the pull request leaves the policy alone.
// The heading counts problems, or the settings loosened and tightened.
func PolicyChangeText(p *PolicyChange) (heading string, items []string) {
	switch {
	case p == nil:
		return "", nil
	case p.Invalid():
		return fmt.Sprintf("The pull request's %s (%s) is invalid, %s: it would not apply once merged, so the check fails",
			p.Path, p.Status, countWord(len(p.Problems), "problem")), p.Problems
	case p.Status == "deleted":
		return fmt.Sprintf("The pull request deletes %s: once merged the built-in defaults apply (%s)", p.Path, effectCounts(p.Changes)), p.Changes
	}
	return fmt.Sprintf("The pull request changes %s (%s; it applies once merged, this run uses the base branch's): %s",
		p.Path, p.Status, effectCounts(p.Changes)), p.Changes
}

func effectCounts(changes []string) string {
	if len(changes) == 0 {
		return "no setting changes"
	}
	n := map[string]int{}
	for _, c := range changes {
		word, _, _ := strings.Cut(c, " ")
		n[word]++
	}
	var parts []string
	for _, w := range []string{"loosens", "tightens", "changes"} {
		if n[w] > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", w, countWord(n[w], "setting")))
		}
	}
	return strings.Join(parts, ", ")
}

func countWord(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
