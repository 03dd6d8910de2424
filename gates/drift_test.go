package gates

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func TestDriftCorpus(t *testing.T) {
	cases := []struct {
		repo    string
		phase   int
		want    Outcome
		rule    string
		mention string
	}{
		// The summary says "A verifier NEEDS_REVISION note was caused by ..."
		// under verdict approved: the plugin's rule rejects it, and the
		// finding says that the summary was the reason.
		{"DediGadot__IMU-Parkinson", 1, Failed, RuleDriftSummaryNeedsRevision, "summary contains NEEDS_REVISION, which the plugin's drift gate reads as a rejection"},
		// fm-value-scout: approved, but its spec's FR headings ("### FR-001:
		// CSV File Selection") are named by no task.
		{"JG1995__fm-value-scout", 1, Failed, RuleDriftUntracedRequirement, "FR-001 (MUST) maps to no task"},
		// landingpage: tasks carry fr_refs; FR-011 (SHALL) is in none.
		{"VerduzcoTristan__landingpage", 1, Failed, RuleDriftUntracedRequirement, "FR-011 (SHALL)"},
		// bomberz closed phase 1 without drift evidence although spec.md
		// exists.
		{"phlawlessDevelopment__bomberz", 1, Failed, RuleDriftMissing, "DRIFT_VERIFICATION_MISSING"},
		// ... and the line says that the plugin closed the phase anyway.
		{"phlawlessDevelopment__bomberz", 1, Failed, RuleDriftMissing, "yet the plugin closed phase 1 (.swarm/events.jsonl line 9: phase_complete, status success)"},
		// msocr: no spec, no drift evidence: the plugin only warns.
		{"Areopaguaworkshop__msocr", 1, NotApplicable, "", "only warns"},
		// Frontend_1er_modulo numbers its requirements FR-1, FR-1.1: no FR-###
		// ids to trace, and the phase is still open.
		{"jonathanlopezc83717-commits__Frontend_1er_modulo", 1, NotApplicable, "", "defines no FR-### or SC-### ids"},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			r := eval(Drift{}, &Input{Phase: c.phase, Head: corpus(t, c.repo)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if all := r.Title + r.Summary + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// driftPlan has phase 1 with tasks that trace FR-001 (fr_refs) and FR-002
// (named in the acceptance), and one task that names nothing.
const driftPlan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"A","tasks":[
 {"id":"1.1","phase":1,"status":"completed","description":"Write the CSV writer","fr_refs":["FR-001"]},
 {"id":"1.2","phase":1,"status":"completed","description":"Export command","acceptance":"covers fr-002"},
 {"id":"1.3","phase":1,"status":"STATUS","description":"Polish"}]}]}`

const driftSpec = "## Requirements\n- FR-001: The tool MUST write CSV.\n- FR-002: It SHALL export.\n- FR-003: It SHOULD be fast.\n\n## Success criteria\n- **SC-001**: Users MUST see progress.\n- SC-002: 95% finish in a second.\n"

func driftEntry(verdict, summary, extra string) string {
	return `{"entries":[{"type":"drift-verification","verdict":"` + verdict + `","summary":"` + summary + `","timestamp":"2026-05-04T19:23:00.135Z"` + extra + `}]}`
}

func TestDriftHandMade(t *testing.T) {
	tracedSpec := "- FR-001: The tool MUST write CSV.\n- FR-002: It SHALL export.\n"
	cases := []struct {
		name    string
		status  string // of task 1.3
		spec    string // "" = no spec.md
		base    string // spec.md on the merge base beside the same plan, "" = no .swarm there
		drift   string // content of 1/drift-verifier.json, "" = absent
		config  func(*Config)
		want    Outcome
		rule    string
		sev     Severity
		mention string
	}{
		{name: "approved, every MUST traced", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "All tasks ALIGNED.", ""), want: Passed, mention: "approved"},
		{name: "summary NEEDS_REVISION under verdict approved", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "ALIGNED overall; reviewer flagged NEEDS_REVISION on 1.2 then withdrew it.", ""),
			want: Failed, rule: RuleDriftSummaryNeedsRevision, sev: SeverityError, mention: "reads as a rejection"},
		{name: "a verdict word in the summary is not read", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "Verdict: REJECTED earlier, MAJOR_DRIFT fixed.", ""), want: Passed},
		{name: "rejected", status: "completed", spec: tracedSpec, drift: driftEntry("rejected", "Drift in 1.2.", ""), want: Failed, rule: RuleDriftRejected, mention: `verdict "rejected"`},
		// The plugin compares entry.verdict === 'approved'; write_drift_evidence
		// stores lower case.
		{name: "uppercase APPROVED is not the plugin's approval", status: "completed", spec: tracedSpec, drift: driftEntry("APPROVED", "ok", ""), want: Failed, rule: RuleDriftRejected,
			mention: `verdict "APPROVED", not "approved": the plugin compares the verdict exactly`},
		{name: "an unknown verdict is not approval", status: "completed", spec: tracedSpec, drift: driftEntry("pending", "ok", ""), want: Failed, rule: RuleDriftRejected, mention: "not approved"},
		{name: "older top-level verdict with a drift-verifier entry", status: "completed", spec: tracedSpec,
			drift: `{"schema_version":"1.0.0","task_id":"drift-verifier","verdict":"approved","entries":[{"type":"drift-verifier","verdict":"approved","summary":"ok"}]}`, want: Passed},
		{name: "top-level verdict only: the plugin reads entries", status: "completed", spec: tracedSpec, drift: `{"verdict":"approved","entries":[]}`,
			want: Failed, rule: RuleDriftMissing, mention: "top-level verdict"},
		{name: "top-level rejection beside an approved entry", status: "completed", spec: tracedSpec,
			drift: `{"verdict":"rejected","entries":[{"type":"drift-verifier","verdict":"approved","summary":"ok"}]}`, want: Failed, rule: RuleDriftRejected, mention: "top-level verdict"},
		{name: "missing while the phase is open", status: "pending", spec: tracedSpec, want: Passed, mention: "due when phase 1 closes"},
		{name: "missing when the phase is ready to close", status: "completed", spec: tracedSpec, want: Failed, rule: RuleDriftMissing},
		{name: "a blocked task does not keep the phase open", status: "blocked", spec: tracedSpec, want: Failed, rule: RuleDriftMissing},
		{name: "no spec and no evidence", status: "completed", want: NotApplicable, mention: "only warns"},
		{name: "no spec, rejected evidence still fails", status: "completed", drift: driftEntry("rejected", "x", ""), want: Failed, rule: RuleDriftRejected},
		{name: "drift_check off", status: "completed", spec: tracedSpec, drift: driftEntry("rejected", "x", ""), config: func(c *Config) { c.QAGates.DriftCheck = false },
			want: Passed, mention: "drift_check is off"},
		{name: "MINOR_DRIFT warns", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "ok", `,"task_verdicts":[{"task_id":"1.1","verdict":"ALIGNED"},{"task_id":"1.2","verdict":"MINOR_DRIFT"}]`),
			want: Passed, rule: RuleDriftTaskVerdict, sev: SeverityWarning, mention: "task 1.2: drift verdict MINOR_DRIFT"},
		{name: "MINOR_DRIFT fails under drift.minor_drift: fail", status: "completed", spec: tracedSpec,
			drift: driftEntry("approved", "ok", `,"task_verdicts":{"1.2":"MINOR_DRIFT"}`), config: func(c *Config) { c.Drift.FailMinorDrift = true },
			want: Failed, rule: RuleDriftTaskVerdict, sev: SeverityError, mention: "DRIFT_TASK_VERDICT"},
		{name: "OFF_SPEC fails", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "ok", `,"tasks":[{"taskId":"1.1","verdict":"OFF_SPEC"}]`),
			want: Failed, rule: RuleDriftTaskVerdict, mention: "1.1 OFF_SPEC"},
		// Item 3: the newest entry decides; the plugin only rejects "rejected".
		{name: "approved, then NEEDS_REVISION", status: "completed", spec: tracedSpec,
			drift: `{"entries":[{"type":"drift-verification","verdict":"approved","summary":"ok","timestamp":"2026-05-09T10:00:00Z"},{"type":"drift-verification","verdict":"NEEDS_REVISION","summary":"1.2 diverges","timestamp":"2026-05-09T11:00:00Z"}]}`,
			want:  Failed, rule: RuleDriftRejected, mention: `the newest entry (entry 2 at 2026-05-09T11:00:00Z) has verdict "NEEDS_REVISION" after entry 1 approved: the newest entry decides. The plugin's gate rejects only the verdict "rejected" and would close the phase on entry 1's approval; swarm-gate is stricter`},
		{name: "approved, then fail", status: "completed", spec: tracedSpec,
			drift: `{"entries":[{"type":"drift-verification","verdict":"approved","summary":"ok"},{"type":"drift-verification","verdict":"fail","summary":"drift"}]}`,
			want:  Failed, rule: RuleDriftRejected, mention: `the newest entry (entry 2) has verdict "fail" after entry 1 approved`},
		{name: "NEEDS_REVISION, then approved", status: "completed", spec: tracedSpec,
			drift: `{"entries":[{"type":"drift-verification","verdict":"NEEDS_REVISION","summary":"bad"},{"type":"drift-verification","verdict":"approved","summary":"fixed"}]}`,
			want:  Passed, mention: "approved (entry 2, the newest of 2)"},
		{name: "the newest by timestamp, not by position", status: "completed", spec: tracedSpec,
			drift: `{"entries":[{"type":"drift-verification","verdict":"approved","summary":"ok","timestamp":"2026-05-09T12:00:00Z"},{"type":"drift-verification","verdict":"fail","summary":"old","timestamp":"2026-05-09T08:00:00Z"}]}`,
			want:  Passed, mention: "approved (entry 1 at 2026-05-09T12:00:00Z, the newest of 2)"},
		{name: "a verdict that is not a string fails closed", status: "completed", spec: tracedSpec,
			drift: `{"entries":[{"type":"drift-verification","verdict":"approved","summary":"ok"},{"type":"drift-verification","verdict":false,"summary":"x"}]}`,
			want:  Failed, rule: RuleDriftRejected, mention: "entry 2 has verdict false, which is not a string"},
		// Item 4: task ids written as JSON numbers.
		{name: "a numeric task id is read as JavaScript renders it", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "ok", `,"task_verdicts":[{"id":1.2,"verdict":"OFF_SPEC"}]`),
			want: Failed, rule: RuleDriftTaskVerdict, mention: "task verdicts say 1.2 OFF_SPEC"},
		{name: "a numeric task id that does not survive is ambiguous", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "ok", `,"task_verdicts":[{"id":1.10,"verdict":"ALIGNED"}]`),
			want: Failed, rule: RuleDriftTaskVerdict, mention: `task_verdicts[0].id is the JSON number 1.10, which reads as 1.1: the task id is ambiguous`},
		{name: "a per-task verdict without a task id fails closed", status: "completed", spec: tracedSpec, drift: driftEntry("approved", "ok", `,"task_verdicts":[{"verdict":"ALIGNED"}]`),
			want: Failed, rule: RuleDriftTaskVerdict, mention: "a per-task verdict cannot be read, so swarm-gate fails closed: task_verdicts[0] has no task id"},
		{name: "invalid JSON fails closed naming the file", status: "completed", spec: tracedSpec, drift: `{"entries":[`, want: Error, mention: ".swarm/evidence/1/drift-verifier.json"},
		{name: "a byte order mark", status: "completed", spec: tracedSpec, drift: "\ufeff" + driftEntry("approved", "ok", ""), want: Passed},
		{name: "non-code phase", status: "completed", spec: tracedSpec, want: Passed, mention: "non-code"},
		// Traceability.
		{name: "unmapped MUST criterion fails", status: "completed", spec: driftSpec, drift: driftEntry("approved", "ok", ""), want: Failed, rule: RuleDriftUntracedCriterion, sev: SeverityError, mention: "SC-001 (MUST)"},
		{name: "unmapped SHOULD warns", status: "completed", spec: driftSpec, drift: driftEntry("approved", "ok", ""), want: Failed, rule: RuleDriftUntracedRequirement, sev: SeverityWarning, mention: "FR-003 (SHOULD)"},
		{name: "a task naming nothing is possible gold-plating", status: "completed", spec: driftSpec, drift: driftEntry("approved", "ok", ""), want: Failed, rule: RuleDriftUntracedTask, sev: SeverityNotice, mention: "task 1.3 names no FR or SC"},
		{name: "traceability: warn", status: "completed", spec: driftSpec, drift: driftEntry("approved", "ok", ""), config: func(c *Config) { c.Drift.WarnTraceability = true },
			want: Passed, rule: RuleDriftUntracedCriterion, sev: SeverityWarning},
		// Item 9: an fr_refs id the spec does not define.
		{name: "fr_refs naming an undefined FR warns", status: "completed", spec: tracedSpec + "- FR-003: It MAY log.\n", drift: driftEntry("approved", "ok", ""), want: Passed, rule: RuleDriftUnknownRef, sev: SeverityWarning,
			mention: `task 1.1's fr_refs names "FR-999", which .swarm/spec.md does not define`},
		// Item 7: one requirement "maps", not "map".
		{name: "one unmapped requirement", status: "completed", spec: tracedSpec + "- FR-004: It MUST log.\n", drift: driftEntry("approved", "ok", ""), want: Failed, rule: RuleDriftUntracedRequirement,
			mention: "1 requirement of .swarm/spec.md maps to no task of the plan"},
		// Issue 18 item 6: deleting spec.md does not dodge traceability.
		{name: "spec.md deleted while the base plan traces to it", status: "completed", base: tracedSpec + "- FR-005: It MAY log.\n", drift: driftEntry("approved", "ok", ""), want: Failed, rule: RuleDriftSpecDeleted, sev: SeverityError,
			mention: "2 traced requirements (FR-001, FR-002) of the 3 the spec defined disappear"},
		{name: "spec.md deleted, the base plan traced none of it", status: "completed", base: "- FR-007: It MUST fly.\n", drift: driftEntry("approved", "ok", ""), want: Passed, rule: RuleDriftSpecDeleted, sev: SeverityWarning,
			mention: "none traced by the plan there"},
		{name: "spec.md kept", status: "completed", spec: tracedSpec, base: tracedSpec, drift: driftEntry("approved", "ok", ""), want: Passed, mention: "approved"},
		// Attacker pass: deleting the one MUST requirement the agent did not
		// implement (FR-002 here) from spec.md passed every gate (only an
		// unknown-ref warning), though deleting spec.md whole fails. With
		// no specHash in the plan, nothing else records the revision.
		{name: "a traced MUST requirement removed from spec.md", status: "completed", spec: "- FR-001: It MUST parse.\n", base: tracedSpec, drift: driftEntry("approved", "ok", ""), want: Failed, rule: RuleDriftRequirementRemoved, sev: SeverityError,
			mention: "the pull request removes 1 MUST/SHALL requirement (FR-002) from .swarm/spec.md"},
		{name: "a traced MUST requirement removed, traceability: warn", status: "completed", spec: "- FR-001: It MUST parse.\n", base: tracedSpec, drift: driftEntry("approved", "ok", ""), config: func(c *Config) { c.Drift.WarnTraceability = true },
			want: Passed, rule: RuleDriftRequirementRemoved, sev: SeverityWarning},
		{name: "an untraced MAY requirement removed", status: "completed", spec: tracedSpec, base: tracedSpec + "- FR-005: It MAY log.\n", drift: driftEntry("approved", "ok", ""), want: Passed},
		{name: "FR-000 is flagged", status: "completed", spec: tracedSpec + "- FR-000: zero MUST x\n", drift: driftEntry("approved", "ok", ""), want: Passed, rule: RuleDriftInvalidID, sev: SeverityWarning},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := strings.Replace(driftPlan, "STATUS", c.status, 1)
			if c.name == "non-code phase" {
				plan = strings.Replace(plan, `"name":"A",`, `"name":"A","type":"non-code",`, 1)
			}
			if c.rule == RuleDriftUnknownRef {
				plan = strings.Replace(plan, `"fr_refs":["FR-001"]`, `"fr_refs":["FR-001","FR-999"]`, 1)
			}
			m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}}
			if c.spec != "" {
				m[".swarm/spec.md"] = &fstest.MapFile{Data: []byte(c.spec)}
			}
			if c.drift != "" {
				m[".swarm/evidence/1/drift-verifier.json"] = &fstest.MapFile{Data: []byte(c.drift)}
			}
			cfg := DefaultConfig()
			if c.config != nil {
				c.config(cfg)
			}
			in := &Input{Phase: 1, Head: load(m), Config: cfg}
			if c.base != "" {
				in.Base = load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}, ".swarm/spec.md": {Data: []byte(c.base)}})
			}
			r := eval(Drift{}, in)
			if c.base == c.spec && hasRule(r, RuleDriftSpecDeleted) {
				t.Errorf("%s with spec.md kept", RuleDriftSpecDeleted)
			}
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" {
				found := false
				for _, f := range r.Findings {
					if f.Rule == c.rule && (c.sev == "" || f.Severity == c.sev) {
						found = true
					}
				}
				if !found {
					t.Errorf("no %s %s finding:\n%s", c.sev, c.rule, findingsText(r))
				}
			}
			if all := r.Title + r.Summary + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// TestDriftFindingLines: item 10: a finding points at the offending field's
// line (the summary that says NEEDS_REVISION, the verdict that rejects, the
// per-task verdict element), not at the entry's first line.
func TestDriftFindingLines(t *testing.T) {
	plan := strings.Replace(driftPlan, "STATUS", "completed", 1)
	cases := []struct {
		name  string
		drift string
		line  int
	}{
		{"summary NEEDS_REVISION", "{\"entries\":[{\n\"type\":\"drift-verification\",\n\"verdict\":\"approved\",\n\"summary\":\"NEEDS_REVISION on 1.2\"}]}", 4},
		{"verdict rejected", "{\"entries\":[{\n\"type\":\"drift-verification\",\n\"summary\":\"x\",\n\"verdict\":\"rejected\"}]}", 4},
		{"newest NEEDS_REVISION", "{\"entries\":[{\"type\":\"drift-verification\",\"verdict\":\"approved\"},\n{\"type\":\"drift-verification\",\n\"verdict\":\"NEEDS_REVISION\"}]}", 3},
		{"a per-task verdict", "{\"entries\":[{\"type\":\"drift-verification\",\"verdict\":\"approved\",\"task_verdicts\":[\n{\"task_id\":\"1.1\",\"verdict\":\"ALIGNED\"},\n{\"task_id\":\"1.2\",\"verdict\":\"MAJOR_DRIFT\"}]}]}", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}, ".swarm/evidence/1/drift-verifier.json": {Data: []byte(c.drift)}}
			r := eval(Drift{}, &Input{Phase: 1, Head: load(m)})
			if r.Outcome != Failed || !hasFindingAt(r, ".swarm/evidence/1/drift-verifier.json", c.line) {
				t.Errorf("outcome %s, want a finding at line %d:\n%+v", r.Outcome, c.line, r.Findings)
			}
		})
	}
}

// driftScaleInput is a spec of n unique namespaced ids
// ("p000001/FR-001: ... MUST") and a plan of n/10 tasks of phase 1, each
// listing 10 of them in fr_refs and naming one in its description.
func driftScaleInput(n int) *Input {
	var spec, plan strings.Builder
	for i := range n {
		fmt.Fprintf(&spec, "- p%06d/FR-001: It MUST do thing %d.\n", i, i)
	}
	plan.WriteString(`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"A","tasks":[`)
	for j := range n / 10 {
		if j > 0 {
			plan.WriteString(",")
		}
		fmt.Fprintf(&plan, `{"id":"1.%d","phase":1,"status":"pending","description":"task %d covers p%06d/FR-001","fr_refs":[`, j+1, j, j*10)
		for k := range 10 {
			if k > 0 {
				plan.WriteString(",")
			}
			fmt.Fprintf(&plan, `"p%06d/FR-001"`, j*10+k)
		}
		plan.WriteString("]}")
	}
	plan.WriteString("]}]}")
	in := &Input{Phase: 1, Head: load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan.String())}, ".swarm/spec.md": {Data: []byte(spec.String())}})}
	in.Base, in.Changes, in.PhaseSource = empty(), &changeset.ChangeSet{}, PhaseFromFlag
	return in
}

// TestDriftTraceLinear: issue 20 (B5): tracing compared every requirement
// with every task, compiling a regexp per requirement, so 60k namespaced
// ids took a minute. The work must be linear: doubling the spec and the
// plan may at most about double the allocations (quadratic work would
// quadruple them).
func TestDriftTraceLinear(t *testing.T) {
	cases := []struct{ n int }{{1000}, {2000}}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			small, large := driftScaleInput(c.n), driftScaleInput(2*c.n)
			for _, in := range []*Input{small, large} {
				if r := (Drift{}).Evaluate(context.Background(), in); r.Outcome != Passed || !strings.Contains(r.Title, "every requirement maps to a task") {
					t.Fatalf("outcome %s (%s), want every requirement traced", r.Outcome, r.Title)
				}
			}
			a := testing.AllocsPerRun(2, func() { (Drift{}).Evaluate(context.Background(), small) })
			b := testing.AllocsPerRun(2, func() { (Drift{}).Evaluate(context.Background(), large) })
			if b > 3*a {
				t.Errorf("allocations %.0f for %d ids, %.0f for %d: not linear", a, c.n, b, 2*c.n)
			}
		})
	}
}

// TestDriftCancelled: issue 20 (B5): the gate stops when its context is
// done and says it could not evaluate, with the context's error.
func TestDriftCancelled(t *testing.T) {
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
		{"deadline passed", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, context.DeadlineExceeded},
	}
	in := driftScaleInput(2000)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := c.ctx()
			defer cancel()
			r := (Drift{}).Evaluate(ctx, in)
			if r.Outcome != Error || !strings.Contains(r.Title, c.want.Error()) {
				t.Errorf("outcome %s (%s), want Error with %q", r.Outcome, r.Title, c.want)
			}
		})
	}
}

// TestDriftTraceMatchesWord: the index matches exactly as the per-id
// regexp it replaces (the oracle below): an id as a word of description +
// acceptance, not after [0-9A-Za-z_/-], not before [0-9A-Za-z_], with
// regexp's case folding; or its id or bare id in fr_refs.
func TestDriftTraceMatchesWord(t *testing.T) {
	ids := []string{"FR-001", "SC-002", "b/FR-001", "a.b/FR-001", "x-y/SC-002", "K/FR-003", "s.t/SC-004"}
	texts := []string{
		"FR-001", "fr-001.", "xFR-001", "_FR-001", "-FR-001", "/FR-001", "FR-0011", "FR-001_", "FR-001-x", "FR-001/x",
		"b/FR-001", "a/b/FR-001", "a.b/FR-001", "z.a.b/FR-001", "za.b/FR-001", ".b/FR-001", "b//FR-001", "é b/fr-001", "éFR-001",
		"\u017fc-002", "SC-002\u212a", "\u212a/fr-003", "k/FR-003", "x-y/SC-002", "y/SC-002", "s.t/sc-004 and t/SC-004", "fr-fr-001", "FR-00", "",
		"line\nSC-002\n", "S.T/SC-004", "a b/FR-001 c", "\xffFR-001",
	}
	var reqs []swarm.Requirement
	for _, id := range ids {
		bare := id[strings.LastIndex(id, "/")+1:]
		reqs = append(reqs, swarm.Requirement{ID: id, Bare: bare, Kind: bare[:2]})
	}
	for _, text := range texts {
		for _, refs := range [][]string{nil, {" fr-001 "}, {"A.B/fr-001"}, {"\u017fc-002"}} {
			task := swarm.Task{ID: "1.1", Description: text, FRRefs: refs}
			ix, err := newTraceIndex(context.Background(), []swarm.Task{task}, reqs)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range reqs {
				word := regexp.MustCompile(`(?i)(^|[^0-9A-Za-z_/-])` + regexp.QuoteMeta(r.ID) + `($|[^0-9A-Za-z_])`)
				want := word.MatchString(task.Description + "\n" + task.Acceptance)
				for _, ref := range refs {
					ref = strings.TrimSpace(ref)
					want = want || strings.EqualFold(ref, r.ID) || strings.EqualFold(ref, r.Bare)
				}
				if got := ix.names(r); got != want {
					t.Errorf("text %q refs %q, id %s: names %v, want %v", text, refs, r.ID, got, want)
				}
			}
		}
	}
}

func BenchmarkDriftTrace(b *testing.B) {
	in := driftScaleInput(20000)
	b.ResetTimer()
	for range b.N {
		(Drift{}).Evaluate(context.Background(), in)
	}
}

// TestDriftRequirementRemovedWithSpecHash: a plan with a specHash does not
// let a requirement go either when the pull request re-saves the plan
// against the revised spec itself (specHash is outside the structure hash,
// so no approval covers it: attacker pass, FR-002 deleted from spec.md and
// the specHash updated by a save_plan snapshot passed every gate); when the
// plan keeps the merge base's specHash, plan-freeze's staleness names it
// instead, and drift stays quiet.
func TestDriftRequirementRemovedWithSpecHash(t *testing.T) {
	tracedSpec := "- FR-001: The tool MUST write CSV.\n- FR-002: It SHALL export.\n"
	plan := strings.Replace(driftPlan, "STATUS", "completed", 1)
	withHash := func(spec string) string {
		return strings.Replace(plan, `{`, `{"specHash":"`+swarm.SpecHash([]byte(spec))+`",`, 1)
	}
	revised := "- FR-001: The tool MUST write CSV.\n"
	side := func(plan, spec string) *swarm.Artifacts {
		return load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}, ".swarm/spec.md": {Data: []byte(spec)},
			".swarm/evidence/1/drift-verifier.json": {Data: []byte(driftEntry("approved", "ok", ""))}})
	}
	base := side(withHash(tracedSpec), tracedSpec)
	r := eval(Drift{}, &Input{Phase: 1, Base: base, Head: side(withHash(revised), revised)})
	if r.Outcome != Failed || !hasRule(r, RuleDriftRequirementRemoved) {
		t.Errorf("specHash re-saved by the pull request: %s %q, want %s\n%s", r.Outcome, r.Title, RuleDriftRequirementRemoved, findingsText(r))
	}
	r = eval(Drift{}, &Input{Phase: 1, Base: base, Head: side(withHash(tracedSpec), revised)})
	if hasRule(r, RuleDriftRequirementRemoved) {
		t.Errorf("specHash kept (stale, plan-freeze's): %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
}

// corpusSwarm is a corpus repository's whole .swarm folder as a MapFS.
func corpusSwarm(t *testing.T, repo string) fstest.MapFS {
	t.Helper()
	dir := filepath.Join(corpusDir, repo)
	if _, err := os.Stat(dir); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo to run corpus tests)", dir)
	}
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), swarm.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Issue 20: a broken .swarm/events.jsonl was silently ignored by
// swarm/drift, which reads the plugin's phase_complete events from it.
func TestDriftEventsUnreadable(t *testing.T) {
	const bomberz, open = "phlawlessDevelopment__bomberz", "jonathanlopezc83717-commits__Frontend_1er_modulo"
	lineNine := func(m fstest.MapFS) { // line 9 is bomberz's phase_complete of phase 1
		lines := strings.Split(string(m[swarm.EventsPath].Data), "\n")
		lines[8] = "not json"
		m[swarm.EventsPath].Data = []byte(strings.Join(lines, "\n"))
	}
	cutLast := func(m fstest.MapFS) { // the plugin was writing its last line
		d := strings.TrimSuffix(string(m[swarm.EventsPath].Data), "\n")
		m[swarm.EventsPath].Data = []byte(d[:len(d)-20])
	}
	edited := &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Modified, OldPath: swarm.EventsPath, NewPath: swarm.EventsPath}}}
	for _, c := range []struct {
		name       string
		repo       string
		base, head func(fstest.MapFS) // nil: the corpus file
		changes    *changeset.ChangeSet
		want       Outcome
		line       int
		mention    string
	}{
		{"intact events: the corpus verdict, already on the base", bomberz, nil, nil, edited, Passed, 0, "yet the plugin closed phase 1"},
		{"the PR breaks a line", bomberz, nil, lineNine, edited, Error, 9, ".swarm/events.jsonl: line 9: invalid literal"},
		{"the PR commits a cut-off last line", bomberz, nil, cutLast, edited, Error, 17, "(the line is truncated)"},
		{"the PR breaks a line of a phase still open", open, nil, lineNine, edited, Error, 9, "restore the line"},
		{"the file cannot be read", bomberz, nil, func(m fstest.MapFS) { m[swarm.EventsPath] = &fstest.MapFile{Mode: fs.ModeDir} }, edited, Error, 0, swarm.EventsPath},
		{"broken on the base, the PR edits the file", bomberz, lineNine, lineNine, edited, Error, 9, "line 9"},
		{"broken on the base, the PR leaves it alone", bomberz, lineNine, lineNine, &changeset.ChangeSet{}, Passed, 9, PreExistingPrefix + ".swarm/events.jsonl: line 9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, head := corpusSwarm(t, c.repo), corpusSwarm(t, c.repo)
			if c.repo == open {
				base[swarm.EventsPath].Data = []byte(strings.Repeat(`{"type":"x"}`+"\n", 10))
				head[swarm.EventsPath].Data = base[swarm.EventsPath].Data
			}
			if c.base != nil {
				c.base(base)
			}
			if c.head != nil {
				head[swarm.EventsPath] = &fstest.MapFile{Data: bytes.Clone(head[swarm.EventsPath].Data)}
				c.head(head)
			}
			r := eval(Drift{}, &Input{Phase: 1, Base: load(base), Head: load(head), Changes: c.changes})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if all := r.Title + r.Summary + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
			if c.line > 0 && !slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Path == swarm.EventsPath && f.Line == c.line }) {
				t.Errorf("no finding at %s:%d:\n%s", swarm.EventsPath, c.line, findingsText(r))
			}
		})
	}
}
