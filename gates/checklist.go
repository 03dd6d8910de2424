package gates

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// CheckStatus is the state of one step of a phase-close checklist.
type CheckStatus string

// Check statuses. SKIPPED always carries the reason (the step is off in the
// QA gate profile, does not apply to the phase, or cannot be checked from
// the repository); ERROR means a file the step needs cannot be read, and
// fails closed.
const (
	CheckPass    CheckStatus = "PASS"
	CheckFail    CheckStatus = "FAIL"
	CheckSkipped CheckStatus = "SKIPPED"
	CheckError   CheckStatus = "ERROR"
)

// CheckItem is one step of the phase-close checklist.
type CheckItem struct {
	// Step names the check: retrospective, completion-verify, drift,
	// hallucination-guard, mutation-gate, phase-council, final-council,
	// required-agents, tasks, task-evidence.
	Step   string      `json:"step"`
	Status CheckStatus `json:"status"`
	// Code is the plugin's failure code for the step (e.g.
	// RETROSPECTIVE_MISSING), or swarm-gate's own for the steps the plugin
	// has none for (see README); "" when the step passes or is skipped.
	Code string `json:"code,omitempty"`
	// File is the repository-relative file the step read (or looked for);
	// Line a line in it, 0 for the whole file.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Detail says what was found, in one line of plain text.
	Detail   string   `json:"detail"`
	Warnings []string `json:"warnings,omitempty"`
	// Err is the cause of an ERROR.
	Err error `json:"-"`
}

// Checklist is the answer to "can phase N close?": the plugin's
// phase_complete checks in its order, plus swarm-gate's own task checks.
type Checklist struct {
	Phase     int         `json:"phase"`
	LastPhase int         `json:"last_phase"`
	Profile   string      `json:"qa_profile"`
	Items     []CheckItem `json:"items"`
}

// Status is the checklist's overall state: ERROR if a step could not be
// read, else FAIL if a step failed, else PASS.
func (c *Checklist) Status() CheckStatus {
	st := CheckPass
	for _, it := range c.Items {
		switch it.Status {
		case CheckError:
			return CheckError
		case CheckFail:
			st = CheckFail
		}
	}
	return st
}

// Codes are the failure codes of the failed steps, in order (an ERROR step
// that has a code included; one without a code is in Causes instead).
func (c *Checklist) Codes() []string {
	var out []string
	for _, it := range c.Items {
		if (it.Status == CheckFail || it.Status == CheckError) && it.Code != "" {
			out = append(out, it.Code)
		}
	}
	return out
}

// Causes says why each ERROR step could not be evaluated, in order:
// "<step>: <first line of the cause>", e.g. "required-agents:
// .swarm/events.jsonl: line 1: unexpected 'b' ...".
func (c *Checklist) Causes() []string {
	var out []string
	for _, it := range c.Items {
		if it.Status != CheckError {
			continue
		}
		cause := strings.TrimPrefix(it.Detail, "could not evaluate: ")
		if it.Err != nil {
			cause = firstLine(it.Err.Error())
		}
		out = append(out, it.Step+": "+cause)
	}
	return out
}

// Count returns how many steps have the status.
func (c *Checklist) Count(s CheckStatus) int {
	n := 0
	for _, it := range c.Items {
		if it.Status == s {
			n++
		}
	}
	return n
}

// Tally is e.g. "6 PASS, 2 FAIL, 3 SKIPPED".
func (c *Checklist) Tally() string {
	var parts []string
	for _, s := range []CheckStatus{CheckPass, CheckFail, CheckError, CheckSkipped} {
		if n := c.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, ", ")
}

func checkPass(step, file, format string, args ...any) CheckItem {
	return CheckItem{Step: step, Status: CheckPass, File: file, Detail: fmt.Sprintf(format, args...)}
}

func checkFail(step, code, file string, line int, format string, args ...any) CheckItem {
	return CheckItem{Step: step, Status: CheckFail, Code: code, File: file, Line: line, Detail: fmt.Sprintf(format, args...)}
}

func checkSkipped(step, file, format string, args ...any) CheckItem {
	return CheckItem{Step: step, Status: CheckSkipped, File: file, Detail: fmt.Sprintf(format, args...)}
}

func checkUnreadable(step string, err error) CheckItem {
	it := CheckItem{Step: step, Status: CheckError, Detail: "could not evaluate: " + firstLine(err.Error()), Err: err}
	var ae *swarm.ArtifactError
	if errors.As(err, &ae) {
		it.File, it.Line = ae.Path, ae.Line
	}
	return it
}
