package gates

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// TestStaleEvidence: a review or test record counts only for the task as
// it now reads (issue 18 item 4). The ledger builder stamps seq N at
// 2026-07-17T18:NN:00Z.
func TestStaleEvidence(t *testing.T) {
	// 1.2 without its dependency on 1.1, so that task order is not at stake.
	testPlan := edit(t, testPlan, `"depends": ["1.1"]`, `"depends": []`)
	redefined := edit(t, testPlan, `"description": "Wire the command"`, `"description": "Wire the command and the import"`)
	done := func(plan string) string {
		return edit(t, plan, `"status": "pending", "size": "small", "description": "Wire`, `"status": "completed", "size": "small", "description": "Wire`)
	}
	gates := func(reviewerAt string, extra string) string {
		ts := ""
		if reviewerAt != "" {
			ts = fmt.Sprintf(`"timestamp":%q`, reviewerAt)
		}
		return fmt.Sprintf(`{"taskId":"1.2","required_gates":["explorer","reviewer","test_engineer"],"gates":{"explorer":{"timestamp":"2026-07-17T17:00:00.000Z"},"reviewer":{%s},"test_engineer":{"timestamp":"2026-07-17T18:30:00.000Z"%s}}}`, ts, extra)
	}
	cases := []struct {
		name     string
		ledger   func() *ledgerBuilder
		plan     string
		evidence string
		outcome  Outcome
		rule     string
		says     string
	}{
		{"redefined while pending, reviewed before: stale",
			func() *ledgerBuilder {
				return newLedger(t, testPlan).approve(testPlan).snapshot(redefined).snapshot(done(redefined))
			},
			done(redefined), gates("2026-07-17T18:02:30.000Z", ""), Failed, RuleEvidenceStale,
			"task 1.2: the newest reviewer evidence in .swarm/evidence/1.2.json (2026-07-17T18:02:30.000Z) is older than the task's current definition (.swarm/plan-ledger.jsonl seq 3, 2026-07-17T18:03:00Z: description changed)"},
		{"redefined while pending, reviewed after: passes",
			func() *ledgerBuilder {
				return newLedger(t, testPlan).approve(testPlan).snapshot(redefined).snapshot(done(redefined))
			},
			done(redefined), gates("2026-07-17T18:20:00.000Z", ""), Passed, "", ""},
		{"an explorer record from before the plan is not dated",
			func() *ledgerBuilder { return newLedger(t, testPlan).approve(testPlan).snapshot(done(testPlan)) },
			done(testPlan), gates("2026-07-17T18:20:00.000Z", ""), Passed, "", ""},
		{"redefined after it was completed: not this gate's finding",
			func() *ledgerBuilder {
				return newLedger(t, testPlan).snapshot(done(testPlan)).snapshot(done(redefined))
			},
			done(redefined), gates("2026-07-17T18:02:30.000Z", ""), Passed, "", ""},
		{"added already completed, reviewed before the plan existed: stale",
			func() *ledgerBuilder { return newLedger(t, done(testPlan)) },
			done(testPlan), gates("2026-07-17T17:30:00.000Z", ""), Failed, RuleEvidenceStale, "(.swarm/plan-ledger.jsonl seq 1, 2026-07-17T18:01:00Z: added)"},
		{"a review record without a timestamp cannot be dated: stale",
			func() *ledgerBuilder { return newLedger(t, testPlan).snapshot(done(testPlan)) },
			done(testPlan), gates("", ""), Failed, RuleEvidenceStale, "has no timestamp, so it cannot be shown to postdate"},
		{"an unreadable timestamp: could not evaluate, naming the file",
			func() *ledgerBuilder { return newLedger(t, testPlan).snapshot(done(testPlan)) },
			done(testPlan), gates("yesterday", ""), Error, "", `.swarm/evidence/1.2.json: line`},
		{"a redefinition whose ledger timestamp is not a time: stale, on the ledger line",
			func() *ledgerBuilder {
				b := newLedger(t, testPlan).approve(testPlan).snapshot(redefined)
				last := len(b.lines) - 1
				b.lines[last] = regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAllString(b.lines[last], `"timestamp":"soon"`)
				return b.snapshot(done(redefined))
			},
			done(redefined), gates("2026-07-17T18:20:00.000Z", ""), Failed, RuleEvidenceStale, `has the timestamp "soon", which is not an ISO 8601 time`},
		{"an empty ledger timestamp on the definition: stale",
			func() *ledgerBuilder {
				b := newLedger(t, testPlan)
				b.lines[0] = regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAllString(b.lines[0], `"timestamp":""`)
				return b.snapshot(done(testPlan))
			},
			done(testPlan), gates("2026-07-17T18:20:00.000Z", ""), Failed, RuleEvidenceStale, `has the timestamp "", which is not an ISO 8601 time`},
		{"a legacy ledger without embedded plans: nothing to date by",
			func() *ledgerBuilder {
				b := newLedger(t, testPlan)
				b.lines = b.lines[:0]
				b.add(`"event_type":"plan_created","source":"initLedger"`, b.hashes(done(testPlan)).Ledger)
				return b
			},
			done(testPlan), gates("2026-07-17T17:30:00.000Z", ""), Passed, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := c.ledger().fs(c.plan)
			head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: []byte(c.evidence)}
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(head)})
			if r.Outcome != c.outcome {
				t.Fatalf("%s %q, want %s\n%s", r.Outcome, r.Title, c.outcome, findingsText(r))
			}
			if c.says != "" && !strings.Contains(r.Title+findingsText(r), c.says) {
				t.Errorf("want %q:\n%s\n%s", c.says, r.Title, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
		})
	}
}

// TestStaleEvidenceWithoutAReadableLedger: stale evidence cannot pass by
// making the ledger unreadable (the gate cannot evaluate) or by deleting it
// (the merge base's definitions date the evidence).
func TestStaleEvidenceWithoutAReadableLedger(t *testing.T) {
	testPlan := edit(t, testPlan, `"depends": ["1.1"]`, `"depends": []`)
	redefined := edit(t, testPlan, `"description": "Wire the command"`, `"description": "Wire the command and the import"`)
	done := edit(t, redefined, `"status": "pending", "size": "small", "description": "Wire`, `"status": "completed", "size": "small", "description": "Wire`)
	evidence := `{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2026-07-17T18:02:30.000Z"}}}`
	base := newLedger(t, testPlan).approve(testPlan).snapshot(redefined).fs(redefined)
	t.Run("a garbage first line: could not evaluate", func(t *testing.T) {
		head := newLedger(t, testPlan).approve(testPlan).snapshot(redefined).snapshot(done).fs(done)
		head[".swarm/plan-ledger.jsonl"].Data = append([]byte("not json\n"), head[".swarm/plan-ledger.jsonl"].Data...)
		head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: []byte(evidence)}
		if r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)}); r.Outcome != Error || !strings.Contains(r.Title, swarm.LedgerPath) {
			t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
		}
	})
	t.Run("evidence dated after the head commit: stale", func(t *testing.T) {
		head := newLedger(t, testPlan).approve(testPlan).snapshot(redefined).snapshot(done).fs(done)
		head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: []byte(`{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2999-01-01T00:00:00.000Z"}}}`)}
		headTime := time.Date(2026, 7, 17, 19, 0, 0, 0, time.UTC)
		r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base), HeadTime: headTime})
		if r.Outcome != Failed || !hasRule(r, RuleEvidenceStale) || !strings.Contains(findingsText(r), "after the head commit") {
			t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
		}
		// Within the hour's slack, and with no head time known, it counts.
		for _, ht := range []time.Time{{}, time.Date(2998, 12, 31, 23, 30, 0, 0, time.UTC)} {
			if r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base), HeadTime: ht}); r.Outcome != Passed {
				t.Errorf("head time %v: %s %q\n%s", ht, r.Outcome, r.Title, findingsText(r))
			}
		}
	})
	t.Run("the ledger deleted: dated by the merge base's", func(t *testing.T) {
		head := newLedger(t, testPlan).approve(testPlan).snapshot(redefined).snapshot(done).fs(done)
		delete(head, ".swarm/plan-ledger.jsonl")
		head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: []byte(evidence)}
		if r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)}); r.Outcome != Failed || !hasRule(r, RuleEvidenceStale) {
			t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
		}
	})
	// Adversarial: a pull request that adds .swarm/plan-ledger.resetting
	// makes its ledger read as empty (as in the plugin); its evidence is
	// still dated by the merge base's definitions, as when it deletes the
	// ledger, instead of by none.
	t.Run("a reset marker added: dated by the merge base's", func(t *testing.T) {
		head := newLedger(t, testPlan).approve(testPlan).snapshot(redefined).snapshot(done).fs(done)
		head[".swarm/plan-ledger.resetting"] = &fstest.MapFile{Data: []byte("x")}
		head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: []byte(evidence)}
		if r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)}); r.Outcome != Failed || !hasRule(r, RuleEvidenceStale) {
			t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
		}
	})
}

// TestBundleEntryWithoutVerdict: the plugin's evidence schema requires an
// entry's verdict; one that is empty or missing is no verdict and fails
// closed, while a gate file's record (which has none by design) passes.
func TestBundleEntryWithoutVerdict(t *testing.T) {
	plan := edit(t, edit(t, testPlan, `"depends": ["1.1"]`, `"depends": []`), `"status": "pending", "size": "small", "description": "Wire`, `"status": "completed", "size": "small", "description": "Wire`)
	for _, c := range []struct {
		name, entry string
		outcome     Outcome
	}{
		{"missing", `{"type":"review","agent":"reviewer","timestamp":"2026-07-17T18:30:00.000Z","summary":"ok"}`, Failed},
		{"empty", `{"type":"review","agent":"reviewer","verdict":"","timestamp":"2026-07-17T18:30:00.000Z","summary":"ok"}`, Failed},
		{"approved", `{"type":"review","agent":"reviewer","verdict":"approved","timestamp":"2026-07-17T18:30:00.000Z","summary":"ok"}`, Passed},
	} {
		t.Run(c.name, func(t *testing.T) {
			bundle := `{"schema_version":"1.0.0","task_id":"1.2","entries":[` + c.entry + `,{"type":"test","agent":"test_engineer","verdict":"pass","timestamp":"2026-07-17T18:31:00.000Z","summary":"ok"}],"created_at":"2026-07-17T18:30:00.000Z","updated_at":"2026-07-17T18:31:00.000Z"}`
			head := side(map[string]string{".swarm/plan.json": plan, ".swarm/evidence/1.2/evidence.json": bundle})
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(head)})
			if r.Outcome != c.outcome {
				t.Fatalf("%s %q, want %s\n%s", r.Outcome, r.Title, c.outcome, findingsText(r))
			}
			if c.outcome == Failed && !strings.Contains(findingsText(r), "has no verdict (empty or missing") {
				t.Errorf("the finding does not say the verdict is missing:\n%s", findingsText(r))
			}
		})
	}
}

// TestStaleEvidenceBackdatedDefinition: the ledger events a pull request
// adds carry the agent's own timestamps, so a redefinition (or a
// replacement plan's first event) dated before the merge base's newest
// ledger event counts from that event's time: a review record the base
// already had cannot postdate it. Before, a backdated redefinition (seq 4
// stamped 18:00, before the base's seq 3 at 18:03) made the base's 18:02:30
// review "newer" than the task's new definition (attacker pass: a
// retitled plan whose new ledger was dated the day before kept the old
// tasks' evidence for rewritten tasks, and every gate passed).
func TestStaleEvidenceBackdatedDefinition(t *testing.T) {
	testPlan := edit(t, testPlan, `"depends": ["1.1"]`, `"depends": []`)
	redefined := edit(t, testPlan, `"description": "Wire the command"`, `"description": "Wire the command and the import"`)
	done := edit(t, redefined, `"status": "pending", "size": "small", "description": "Wire`, `"status": "completed", "size": "small", "description": "Wire`)
	evidence := []byte(`{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2026-07-17T18:02:30.000Z"}}}`)
	baseB := newLedger(t, testPlan).approve(testPlan).snapshot(testPlan)
	base := baseB.fs(testPlan)
	base[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: evidence}
	headB := newLedger(t, testPlan).approve(testPlan).snapshot(testPlan).snapshot(redefined)
	last := len(headB.lines) - 1
	headB.lines[last] = regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAllString(headB.lines[last], `"timestamp":"2026-07-17T18:00:00.000Z"`)
	head := headB.snapshot(done).fs(done)
	head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: evidence}
	r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)})
	if r.Outcome != Failed || !hasRule(r, RuleEvidenceStale) || !strings.Contains(findingsText(r), "is before the merge base's newest ledger event") {
		t.Fatalf("%s %q, want evidence/stale\n%s", r.Outcome, r.Title, findingsText(r))
	}
	// Dated honestly after the base's events, a review after it passes.
	headB = newLedger(t, testPlan).approve(testPlan).snapshot(testPlan).snapshot(redefined)
	head = headB.snapshot(done).fs(done)
	head[".swarm/evidence/1.2.json"] = &fstest.MapFile{Data: []byte(`{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2026-07-17T18:04:30.000Z"}}}`)}
	if r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)}); r.Outcome != Passed {
		t.Errorf("an honest redefinition reviewed after: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
}
