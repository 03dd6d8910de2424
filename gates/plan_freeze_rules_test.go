package gates

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// TestPlanFreezeClassification has a row per PLAN FREEZE classification:
// the critic approved testPlan, then the agent saved a changed plan (a
// save_plan snapshot, so the ledger stays intact and only the approval is in
// question).
func TestPlanFreezeClassification(t *testing.T) {
	cases := []struct {
		name    string
		change  func(t *testing.T, p string) string
		cfg     *Config
		want    Outcome
		rule    string
		sev     Severity
		mention string
	}{
		{"status-only: a task completed", func(t *testing.T, p string) string {
			return edit(t, p, `"id": "1.1", "phase": 1, "status": "pending"`, `"id": "1.1", "phase": 1, "status": "completed"`)
		}, nil, Passed, "", "", "1 status-only change"},
		{"status-only: a phase in progress", func(t *testing.T, p string) string {
			return edit(t, p, `"name": "Export ✓",
      "status": "pending"`, `"name": "Export ✓",
      "status": "in_progress"`)
		}, nil, Passed, "", "", "phase 1: status changed"},
		{"material: description", func(t *testing.T, p string) string {
			return edit(t, p, `"description": "Wire the command"`, `"description": "Wire the command and a flag"`)
		}, nil, Failed, RulePlanChanged, SeverityError, `task 1.2: description changed: "Wire the command" → "Wire the command and a flag"`},
		{"material: acceptance", func(t *testing.T, p string) string {
			return edit(t, p, `"acceptance": "prints rows"`, `"acceptance": "prints some rows"`)
		}, nil, Failed, RulePlanChanged, SeverityError, "task 1.2: acceptance changed"},
		{"material: depends", func(t *testing.T, p string) string {
			return edit(t, p, `"depends": ["1.1"]`, `"depends": []`)
		}, nil, Failed, RulePlanChanged, SeverityError, "task 1.2: depends changed: [1.1] → []"},
		{"material: task added", func(t *testing.T, p string) string {
			return edit(t, p, `"files_touched": ["README.md"]}`, `"files_touched": ["README.md"]}, {"id": "2.2", "phase": 2, "description": "Extra", "depends": [], "files_touched": []}`)
		}, nil, Failed, RulePlanChanged, SeverityError, `task 2.2 added: "Extra"`},
		{"material: task moved to another phase", func(t *testing.T, p string) string {
			return edit(t, p, `{"id": "2.1", "phase": 2,`, `{"id": "2.1", "phase": 1,`)
		}, nil, Failed, RulePlanChanged, SeverityError, "task 2.1: phase changed: 2 → 1"},
		{"material: phase renamed", func(t *testing.T, p string) string {
			return edit(t, p, `"name": "Docs"`, `"name": "Documentation"`)
		}, nil, Failed, RulePlanChanged, SeverityError, `phase 2: name changed: "Docs" → "Documentation"`},
		{"material: required_agents", func(t *testing.T, p string) string {
			return edit(t, p, `"name": "Docs",`, `"name": "Docs", "required_agents": ["docs"],`)
		}, nil, Failed, RulePlanChanged, SeverityError, "phase 2: required_agents changed: [] → [docs]"},
		{"material: execution_profile", func(t *testing.T, p string) string {
			return edit(t, p, `"current_phase": 1,`, `"current_phase": 1, "execution_profile": {"parallelization_enabled": true, "max_concurrent_tasks": 2, "council_parallel": false, "locked": false},`)
		}, nil, Failed, RulePlanChanged, SeverityError, "plan: execution_profile changed"},
		{"material: task order", func(t *testing.T, p string) string {
			a := `{"id": "1.1", "phase": 1, "status": "pending", "size": "small", "description": "Write C:\\tmp\\out.csv — naïve <b>&amp;</b>", "depends": [], "acceptance": "round trip passes", "files_touched": ["src/a.go"], "fr_refs": ["FR-001"]}`
			b := `{"id": "1.2", "phase": 1, "status": "pending", "size": "small", "description": "Wire the command", "depends": ["1.1"], "acceptance": "prints rows", "files_touched": ["cmd/x.go"], "fr_refs": ["FR-002"]}`
			return edit(t, p, a+",\n        "+b, b+",\n        "+a)
		}, nil, Failed, RulePlanChanged, SeverityError, "phase 1: order changed: [1.1, 1.2] → [1.2, 1.1]"},
		{"bookkeeping: size", func(t *testing.T, p string) string {
			return edit(t, p, `"id": "1.2", "phase": 1, "status": "pending", "size": "small"`, `"id": "1.2", "phase": 1, "status": "pending", "size": "large"`)
		}, nil, Failed, RuleBookkeepingChanged, SeverityError, "Only bookkeeping-grade fields changed"},
		{"bookkeeping: files_touched", func(t *testing.T, p string) string {
			return edit(t, p, `"files_touched": ["cmd/x.go"]`, `"files_touched": ["cmd/x.go", "cmd/y.go"]`)
		}, nil, Failed, RuleBookkeepingChanged, SeverityError, "task 1.2: files_touched changed: [cmd/x.go] → [cmd/x.go, cmd/y.go]"},
		{"bookkeeping: current_phase", func(t *testing.T, p string) string {
			return edit(t, p, `"current_phase": 1,`, `"current_phase": 2,`)
		}, nil, Failed, RuleBookkeepingChanged, SeverityError, "plan: current_phase changed: 1 → 2"},
		{"bookkeeping: blocked_reason", func(t *testing.T, p string) string {
			return edit(t, p, `"description": "Document it",`, `"description": "Document it", "blocked_reason": "waiting for \\\"design\\\"",`)
		}, nil, Failed, RuleBookkeepingChanged, SeverityError, "task 2.1: blocked_reason changed"},
		{"fr_refs: not in the hash, still flagged", func(t *testing.T, p string) string {
			return edit(t, p, `"fr_refs": ["FR-002"]`, `"fr_refs": ["FR-002", "FR-009"]`)
		}, nil, Failed, RuleUnhashedChanged, SeverityError, "task 1.2: fr_refs changed: [FR-002] → [FR-002, FR-009]"},
		{"fr_refs: a warning when the policy says so", func(t *testing.T, p string) string {
			return edit(t, p, `"fr_refs": ["FR-002"]`, `"fr_refs": []`)
		}, withPlanFreeze(PlanFreezeConfig{Approval: ApprovalAny, WarnUnhashedChanges: true}), Passed, RuleUnhashedChanged, SeverityWarning, "fr_refs changed"},
		{"phase type: not in the hash, still flagged", func(t *testing.T, p string) string {
			return edit(t, p, `"name": "Docs",`, `"name": "Docs", "type": "non-code",`)
		}, nil, Failed, RuleUnhashedChanged, SeverityError, `phase 2: type changed: (none) → "non-code"`},
		{"title: a new plan id", func(t *testing.T, p string) string {
			return edit(t, p, `"title": "Café <export> & \"quotes\""`, `"title": "Café export"`)
		}, nil, Failed, RuleNoApproval, SeverityError, "identity changed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := c.change(t, testPlan)
			l := newLedger(t, testPlan).approve(testPlan).snapshot(head)
			r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(l.fs(head)), Config: c.cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if c.rule != "" {
				found := false
				for _, f := range r.Findings {
					if f.Rule == c.rule && f.Severity == c.sev {
						found = true
					}
				}
				if !found {
					t.Errorf("no %s finding with severity %s:\n%s", c.rule, c.sev, findingsText(r))
				}
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
			for _, f := range r.Findings {
				if f.Path == ".swarm/plan.json" && f.Line < 1 {
					t.Errorf("finding without a line: %+v", f)
				}
			}
		})
	}
}

// TestPlanFreezeChangeLines checks that a changed task is annotated on its
// own line of plan.json.
func TestPlanFreezeChangeLines(t *testing.T) {
	head := edit(t, testPlan, `"description": "Document it"`, `"description": "Document everything"`)
	l := newLedger(t, testPlan).approve(testPlan).snapshot(head)
	r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(l.fs(head))})
	want := strings.Count(head[:strings.Index(head, `{"id": "2.1"`)], "\n") + 1
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Message, "task 2.1: description changed") {
			if f.Line != want {
				t.Errorf("line %d, want %d", f.Line, want)
			}
			return
		}
	}
	t.Fatalf("no finding for task 2.1:\n%s", findingsText(r))
}

func TestPlanFreezeApprovalsAndPolicy(t *testing.T) {
	bookkeeping := edit(t, testPlan, `"files_touched": ["cmd/x.go"]`, `"files_touched": ["cmd/x.go", "cmd/y.go"]`)
	done := edit(t, testPlan, `"id": "1.1", "phase": 1, "status": "pending"`, `"id": "1.1", "phase": 1, "status": "completed"`)
	structure := func(t *testing.T, plan string) string { return newLedger(t, plan).hashes(plan).Structure }
	policy := func(a ApprovalPolicy) *Config {
		return withPlanFreeze(PlanFreezeConfig{Approval: a})
	}
	cases := []struct {
		name      string
		base      func(t *testing.T) *ledgerBuilder // nil: no ledger at the merge base
		head      func(t *testing.T) (*ledgerBuilder, string)
		cfg       *Config
		overrides func(t *testing.T) []Override
		want      Outcome
		rule      string
		mention   string
	}{
		{"manual override after a bookkeeping edit", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan).snapshot(bookkeeping).manualApprove(bookkeeping, "files_touched was incomplete"), bookkeeping
		}, nil, nil, Passed, "", "manual override`, approved at 2026-07-18T09:00:00.000Z (user_confirmed: true, reason: files\\_touched was incomplete)"},
		{"manual override before the edit does not cover it", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).manualApprove(testPlan, "lost verdict").snapshot(bookkeeping), bookkeeping
		}, nil, nil, Failed, RuleBookkeepingChanged, "structure hash"},
		{"agent-attested approval, default policy", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan), testPlan
		}, nil, nil, Passed, "", "agent-attested"},
		{"agent-attested approval, base-anchored policy", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan), testPlan
		}, policy(ApprovalBaseAnchored), nil, Failed, RuleApprovalSource, "plan_freeze.approval: base-anchored"},
		{"base-anchored approval, base-anchored policy", func(t *testing.T) *ledgerBuilder {
			return newLedger(t, testPlan).approve(testPlan)
		}, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan).status("1.1", "pending", "completed", done), done
		}, policy(ApprovalBaseAnchored), nil, Passed, "", "base-anchored"},
		{"human policy without an override", func(t *testing.T) *ledgerBuilder {
			return newLedger(t, testPlan).approve(testPlan)
		}, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan), testPlan
		}, policy(ApprovalHuman), nil, Failed, RuleApprovalSource, "human override"},
		{"human policy with an override for this structure", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan), testPlan
		}, policy(ApprovalHuman), func(t *testing.T) []Override {
			return []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "reviewed by hand", RecordedAt: "2026-07-19T10:00:00Z", StructureHash: structure(t, testPlan)}}
		}, Overridden, "", "@octocat"},
		{"an override for an older structure is void", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan).approve(testPlan).snapshot(bookkeeping), bookkeeping
		}, nil, func(t *testing.T) []Override {
			return []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "ok", StructureHash: structure(t, testPlan)}}
		}, Failed, RuleBookkeepingChanged, "**Voided override**: `/swarm approve-plan-critic` by @octocat"},
		{"no approval, human override", nil, func(t *testing.T) (*ledgerBuilder, string) {
			return newLedger(t, testPlan), testPlan
		}, nil, func(t *testing.T) []Override {
			return []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "critic output lost", StructureHash: structure(t, testPlan)}}
		}, Overridden, RuleNoApproval, "critic output lost"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, plan := c.head(t)
			in := &Input{Phase: 1, Head: load(l.fs(plan)), Config: c.cfg}
			if c.base != nil {
				in.Base = load(fstest.MapFS{".swarm/plan-ledger.jsonl": {Data: c.base(t).data()}})
			}
			if c.overrides != nil {
				in.Overrides = c.overrides(t)
			}
			r := eval(PlanFreeze{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

func TestPlanFreezeRemovedTasks(t *testing.T) {
	without21 := edit(t, testPlan, `{"id": "2.1", "phase": 2, "status": "pending", "size": "small", "description": "Document it", "depends": [], "files_touched": ["README.md"]}`, ``)
	cases := []struct {
		name   string
		ledger func(t *testing.T) *ledgerBuilder
		sev    Severity // "" means no task-removed finding
	}{
		{"removed through save_plan and re-approved", func(t *testing.T) *ledgerBuilder {
			return newLedger(t, testPlan).approve(testPlan).removed("2.1", without21).snapshot(without21).approve(without21)
		}, ""},
		{"dropped silently and re-approved", func(t *testing.T) *ledgerBuilder {
			return newLedger(t, testPlan).approve(testPlan).snapshot(without21).approve(without21)
		}, SeverityError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(c.ledger(t).fs(without21))})
			var got Severity
			for _, f := range r.Findings {
				if f.Rule == RuleTaskRemoved {
					got = f.Severity
					if !strings.Contains(f.Message, "task 2.1 (pending") {
						t.Errorf("message: %s", f.Message)
					}
				}
			}
			if got != c.sev {
				t.Errorf("task-removed severity %q, want %q\n%s", got, c.sev, findingsText(r))
			}
		})
	}
}

func TestPlanFreezeSpecStale(t *testing.T) {
	stale := []byte(`{"type":"spec_stale_detected","timestamp":"2026-04-30T17:22:16.012Z","phase":1,"specHash_plan":"c7211bf247e44e2c17574f1fe78d2efc3a89b7713e526ff016a62a821973d361","specHash_current":"2848b6e561a19a29f70532b76e37df079ab91b5120b249a96d109dd4d14828f0","reason":"spec.md has been modified since plan was saved","planTitle":"x"}`)
	// The same drift detected again later: another timestamp, the same hashes.
	again := bytes.Replace(stale, []byte("2026-04-30T17:22:16.012Z"), []byte("2026-05-02T09:00:00.000Z"), 1)
	// Later, different drift: spec.md changed again.
	other := bytes.Replace(stale, []byte(`"specHash_current":"2848`), []byte(`"specHash_current":"9999`), 1)
	bare := []byte(`{}`) // the plugin only checks that the file exists
	key := "spec:c7211bf247e44e2c17574f1fe78d2efc3a89b7713e526ff016a62a821973d361:2848b6e561a19a29f70532b76e37df079ab91b5120b249a96d109dd4d14828f0"
	bareSum := sha256.Sum256(bare)
	bareKey := "sha256:" + hex.EncodeToString(bareSum[:])
	l := newLedger(t, testPlan).approve(testPlan)
	structure := l.hashes(testPlan).Structure
	ack := func(structure, staleness string) []Override {
		return []Override{{Command: CommandAcknowledgeSpecDrift, Actor: "octocat", Reason: "spec typo only", RecordedAt: "2026-05-01T10:00:00Z", StructureHash: structure, SpecStaleness: staleness}}
	}
	cases := []struct {
		name      string
		file      []byte
		overrides []Override
		want      Outcome
		sev       Severity
		mention   string
		note      string // in the summary ("" = no Voided note)
	}{
		{"marker present", stale, nil, Failed, SeverityError, "c7211bf247e4", ""},
		{"marker unreadable", []byte("{not json"), nil, Failed, SeverityError, "also unreadable", ""},
		{"acknowledged by a human", stale, ack(structure, key), Passed, SeverityNotice, "spec typo only", ""},
		{"the same drift detected again", again, ack(structure, key), Passed, SeverityNotice, "spec typo only", ""},
		{"acknowledged for another plan structure", stale, ack("0000", key), Failed, SeverityError, "acknowledge-spec-drift", "was bound to structure hash 0000"},
		{"later, different drift", other, ack(structure, key), Failed, SeverityError, "acknowledge-spec-drift",
			"acknowledged other spec drift (spec hash c7211bf247e4 in the plan, 2848b6e561a1 in spec.md); the head now has spec hash c7211bf247e4 in the plan, 9999b6e561a1 in spec.md"},
		{"recorded by an older swarm-gate, without the drift", stale, ack(structure, ""), Failed, SeverityError, "acknowledge-spec-drift", "recorded without the drift it acknowledged"},
		{"marker without spec hashes, bound to its bytes", bare, ack(structure, bareKey), Passed, SeverityNotice, "spec typo only", ""},
		{"marker without spec hashes, other bytes", []byte(`{ }`), ack(structure, bareKey), Failed, SeverityError, "acknowledge-spec-drift", "acknowledged other spec drift (marker file sha256 "},
		{"marker unreadable, acknowledged", []byte("{not json"), ack(structure, bareKey), Failed, SeverityError, "also unreadable", "acknowledged other spec drift"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := l.fs(testPlan)
			fsys[".swarm/spec-staleness.json"] = &fstest.MapFile{Data: c.file}
			headFile := func(name string) ([]byte, bool) {
				f, ok := fsys[name]
				if !ok {
					return nil, false
				}
				return f.Data, true
			}
			r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(fsys), Overrides: c.overrides, HeadFile: headFile})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			ok := false
			for _, f := range r.Findings {
				if f.Rule == RuleSpecStale && f.Severity == c.sev && f.Path == ".swarm/spec-staleness.json" && strings.Contains(f.Message, c.mention) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("no %s finding (%s) mentioning %q:\n%s", RuleSpecStale, c.sev, c.mention, findingsText(r))
			}
			voided := strings.Contains(r.Summary, "**Voided override**: `/swarm acknowledge-spec-drift` by @octocat")
			if voided != (c.note != "") || !strings.Contains(r.Summary, c.note) {
				t.Errorf("summary, want a Voided note %q:\n%s", c.note, r.Summary)
			}
		})
	}
}

func TestPlanFreezeLockedProfile(t *testing.T) {
	locked := edit(t, testPlan, `"current_phase": 1,`, `"current_phase": 1, "execution_profile": {"parallelization_enabled": false, "max_concurrent_tasks": 1, "council_parallel": false, "locked": true},`)
	changed := edit(t, locked, `"max_concurrent_tasks": 1`, `"max_concurrent_tasks": 4`)
	t.Run("unchanged", func(t *testing.T) {
		l := newLedger(t, locked).approve(locked)
		r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(l.fs(locked))})
		if r.Outcome != Passed {
			t.Fatalf("outcome %s (%s)\n%s", r.Outcome, r.Title, findingsText(r))
		}
	})
	t.Run("changed after lock and re-approved", func(t *testing.T) {
		l := newLedger(t, locked).approve(locked).snapshot(changed).approve(changed)
		r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(l.fs(changed))})
		if r.Outcome != Failed || !hasRule(r, RuleProfileLocked) {
			t.Fatalf("outcome %s, rules %v", r.Outcome, rules(r))
		}
		if !strings.Contains(findingsText(r), `"max_concurrent_tasks":1`) {
			t.Errorf("findings do not show the locked profile:\n%s", findingsText(r))
		}
	})
	t.Run("changed after approval: the change names the key", func(t *testing.T) {
		l := newLedger(t, locked).approve(locked).snapshot(changed)
		r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(l.fs(changed))})
		if r.Outcome != Failed || !hasRule(r, RuleProfileLocked) || !hasRule(r, RulePlanChanged) {
			t.Fatalf("outcome %s, rules %v", r.Outcome, rules(r))
		}
		if !strings.Contains(r.Summary, "plan: execution\\_profile.max\\_concurrent\\_tasks changed: 1 → 4") {
			t.Errorf("summary does not name the changed profile key:\n%s", r.Summary)
		}
	})
}

// TestPlanFreezeHashRecomputed checks that the gate recomputes the
// structure hash instead of trusting payload_hash: an approval whose
// payload_hash names the head plan's structure while its embedded plan is
// another fails.
func TestPlanFreezeHashRecomputed(t *testing.T) {
	head := edit(t, testPlan, `"description": "Document it"`, `"description": "Document nothing"`)
	l := newLedger(t, testPlan).approve(testPlan).snapshot(head)
	// Forge: make the approval's payload_hash the head plan's structure hash.
	approved := l.hashes(testPlan).Structure
	l.lines[1] = strings.Replace(l.lines[1], `"payload_hash":"`+approved+`"`, `"payload_hash":"`+l.hashes(head).Structure+`"`, 1)
	r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(l.fs(head))})
	if r.Outcome != Failed || !hasRule(r, RulePlanChanged) || !hasRule(r, RuleLedgerHash) {
		t.Fatalf("outcome %s, rules %v", r.Outcome, rules(r))
	}
	if !strings.Contains(r.Summary, "matches neither hash") {
		t.Errorf("summary does not say payload_hash matches neither hash:\n%s", r.Summary)
	}
	_ = planhash.Short
}
