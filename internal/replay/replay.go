// Package replay replays real pull requests (../shared/replay: git
// bundles of repositories that use opencode-swarm, and ranges.json) through
// the whole pipeline and keeps, per range, a golden verdict beside a
// reviewer's judgment of it (testdata/JUDGMENTS.md). Its test is the
// measure of whether swarm-gate's verdicts can be trusted on real projects;
// `go test ./internal/replay -update` rewrites the goldens.
package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Range is one entry of ranges.json (../shared/replay/README.md).
type Range struct {
	Repo    string `json:"repo"`    // OWNER__NAME
	Bundle  string `json:"bundle"`  // file name in the replay folder
	Base    string `json:"base"`    // full SHA in the replay repository
	Head    string `json:"head"`    // full SHA
	Subject string `json:"subject"` // of the original head commit
	What    string `json:"what"`    // one line on what the range changes
}

// LoadRanges reads ranges.json from dir. Every range must name a repo, a
// bundle and two full SHAs; the error names the file and the entry.
func LoadRanges(dir string) ([]Range, error) {
	p := filepath.Join(dir, "ranges.json")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var rs []Range
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for i, r := range rs {
		if r.Repo == "" || r.Bundle == "" || len(r.Base) != 40 || len(r.Head) != 40 {
			return nil, fmt.Errorf("%s: entry %d: repo, bundle and 40-hex base and head are required", p, i)
		}
	}
	return rs, nil
}

// Verdict is the golden record of one range: the report's header, and per
// gate its outcome, title and failing findings (rule and path, counted).
type Verdict struct {
	Range       int               `json:"range"`
	Repo        string            `json:"repo"`
	Base        string            `json:"base"`
	Head        string            `json:"head"`
	Subject     string            `json:"subject"`
	Outcome     gates.Outcome     `json:"outcome"`
	ExitCode    int               `json:"exit_code"`
	Phase       int               `json:"phase"`
	PhaseSource gates.PhaseSource `json:"phase_source"`
	Phases      []int             `json:"phases,omitempty"`
	Error       string            `json:"error,omitempty"`
	Gates       []GateVerdict     `json:"gates"`
}

// GateVerdict is one gate of a Verdict.
type GateVerdict struct {
	Name    string        `json:"name"`
	Outcome gates.Outcome `json:"outcome"`
	Title   string        `json:"title"`
	// Failing are the error findings, by rule and path.
	Failing []Where `json:"failing,omitempty"`
	// PreExisting and Fixed are the gate's counts against the merge base.
	PreExisting int `json:"pre_existing,omitempty"`
	Fixed       int `json:"fixed,omitempty"`
}

// Where is a rule on a path, and how many findings it has there.
type Where struct {
	Rule  string `json:"rule"`
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// NewVerdict condenses a report into its golden record.
func NewVerdict(i int, r Range, rep *report.Report) *Verdict {
	v := &Verdict{Range: i, Repo: r.Repo, Base: r.Base, Head: r.Head, Subject: r.Subject,
		Outcome: rep.Outcome, ExitCode: rep.ExitCode, Phase: rep.Phase, PhaseSource: rep.PhaseSource, Phases: rep.Phases, Error: rep.Error, Gates: []GateVerdict{}}
	for _, g := range rep.Gates {
		gv := GateVerdict{Name: g.Name, Outcome: g.Outcome, Title: g.Title}
		if g.Delta != nil {
			gv.PreExisting, gv.Fixed = g.Delta.PreExisting, g.Delta.Fixed
		}
		count := map[Where]int{}
		for _, f := range g.Findings {
			if f.Severity == gates.SeverityError {
				count[Where{Rule: f.Rule, Path: f.Path}]++
			}
		}
		for w, n := range count {
			w.Count = n
			gv.Failing = append(gv.Failing, w)
		}
		slices.SortFunc(gv.Failing, func(a, b Where) int {
			if c := strings.Compare(a.Rule, b.Rule); c != 0 {
				return c
			}
			return strings.Compare(a.Path, b.Path)
		})
		v.Gates = append(v.Gates, gv)
	}
	return v
}

// Failed lists the short names of the gates that block the range (failed,
// or could not evaluate), e.g. "plan-freeze", in report order.
func (v *Verdict) Failed() []string {
	var out []string
	for _, g := range v.Gates {
		if g.Outcome == gates.Failed || g.Outcome == gates.Error {
			out = append(out, strings.TrimPrefix(g.Name, "swarm/"))
		}
	}
	return out
}

// FileName is the golden file of a range: NN-<repo>-<base8>-<head8>.json.
func FileName(i int, r Range) string {
	return fmt.Sprintf("%02d-%s-%s-%s.json", i, r.Repo, r.Base[:8], r.Head[:8])
}
