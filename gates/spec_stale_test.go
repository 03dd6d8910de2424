package gates

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// TestPlanFreezeSpecDrift recomputes staleness from the plan's specHash
// and spec.md, with and without the marker (issue 18 item 6).
func TestPlanFreezeSpecDrift(t *testing.T) {
	const spec = "# Spec\n\n## Requirements\n- FR-001: export MUST write rows\n- FR-002: the command MUST print rows\n"
	edited := spec + "- FR-003: the command SHOULD page\n"
	hash := swarm.SpecHash([]byte(spec))
	withHash := func(h string) string {
		return edit(t, testPlan, `"current_phase": 1,`, `"current_phase": 1, "specHash": `+h+`,`)
	}
	saved := withHash(`"` + hash + `"`)
	marker := []byte(`{"type":"spec_stale_detected","timestamp":"2026-04-30T17:22:16.012Z","phase":1,"specHash_plan":"` + hash + `","specHash_current":"` + swarm.SpecHash([]byte(edited)) + `","reason":"spec.md has been modified since plan was saved","planTitle":"x"}`)
	type side struct {
		plan   string
		spec   *string
		marker []byte
	}
	s := func(v string) *string { return &v }
	type tc struct {
		name       string
		base       *side // nil: no .swarm on the base
		head       side
		ack        bool
		want       Outcome
		sev        Severity // of the spec-stale finding; "" = none
		path       string
		mention    string
		preexists  bool   // the failing finding is already on the merge base
		title      string // a failing check's title starts with it ("" = not checked)
		notMention string // the finding must not say it
	}
	cases := []tc{
		{name: "hashes match, no marker", head: side{saved, s(spec), nil}, want: Passed},
		{name: "hashes match, marker left over (quest-forge)", head: side{saved, s(spec), marker}, want: Passed, sev: SeverityNotice, path: swarm.SpecStalenessPath, mention: "is out of date: the plan was re-saved against the current"},
		{name: "spec edited, no marker", base: &side{saved, s(spec), nil}, head: side{saved, s(edited), nil}, want: Failed, sev: SeverityError, path: swarm.SpecPath, mention: "changed after the plan was saved (specHash " + hash[:12],
			title: "the spec changed after the plan was saved", notMention: "not a lower-case hex"},
		{name: "spec edited, marker at head", base: &side{saved, s(spec), nil}, head: side{saved, s(edited), marker}, want: Failed, sev: SeverityError, path: swarm.SpecStalenessPath, mention: "while .swarm/spec-staleness.json exists",
			title: "the spec changed after the plan was saved (.swarm/spec-staleness.json)"},
		{name: "marker deleted while the drift stands", base: &side{saved, s(edited), marker}, head: side{saved, s(edited), nil}, want: Failed, sev: SeverityError, path: swarm.SpecPath, mention: "spec drift acknowledged by deleting the marker",
			title: "spec drift hidden: the pull request deletes .swarm/spec-staleness.json"},
		{name: "upper-case specHash", head: side{withHash(`"` + strings.ToUpper(hash) + `"`), s(spec), nil}, want: Failed, sev: SeverityError, path: swarm.SpecPath, mention: "is not a lower-case hex SHA-256",
			title: "the spec changed after the plan was saved", notMention: "spec.md changed"},
		{name: "marker deleted after re-saving the plan", base: &side{saved, s(edited), marker}, head: side{withHash(`"` + swarm.SpecHash([]byte(edited)) + `"`), s(edited), nil}, want: Passed},
		{name: "spec.md deleted", base: &side{saved, s(spec), nil}, head: side{saved, nil, nil}, want: Failed, sev: SeverityError, path: swarm.PlanPath, mention: "Next step: restore .swarm/spec.md",
			title: ".swarm/spec.md was deleted, but the plan was saved against it"},
		{name: "spec.md never committed", base: &side{saved, nil, nil}, head: side{saved, nil, nil}, want: Passed, sev: SeverityNotice, path: swarm.PlanPath, mention: "is not in the repository"},
		{name: "head plan drops specHash", base: &side{saved, s(spec), nil}, head: side{testPlan, s(edited), nil}, want: Failed, sev: SeverityError, path: swarm.SpecPath, mention: "dropped its specHash"},
		{name: "specHash is a number", head: side{withHash("42"), s(spec), nil}, want: Failed, sev: SeverityError, path: swarm.SpecPath, mention: "is a JSON number, not a hash"},
		{name: "falsy specHash is exempt", head: side{withHash(`""`), s(edited), nil}, want: Passed},
		{name: "drift acknowledged by a maintainer", base: &side{saved, s(spec), nil}, head: side{saved, s(edited), nil}, ack: true, want: Passed, sev: SeverityNotice, path: swarm.SpecPath, mention: "Acknowledged by @octocat"},
		{name: "drift already on the merge base", base: &side{saved, s(edited), nil}, head: side{saved, s(edited), nil}, want: Passed, sev: SeverityWarning, path: swarm.SpecPath, mention: "changed after the plan was saved", preexists: true},
		{name: "BOM and invalid UTF-8 hashed as Node reads them", head: side{withHash(`"` + swarm.SpecHash([]byte("\uFEFFa\xe2\x82b")) + `"`), s("\uFEFFa\xe2\x82b"), nil}, want: Passed},
	}
	build := func(sd side, base *side) fstest.MapFS {
		l := newLedger(t, sd.plan).approve(sd.plan)
		if base != nil && base.plan != sd.plan {
			// The head re-saved the base plan: its ledger extends the base's.
			l = newLedger(t, base.plan).approve(base.plan).snapshot(sd.plan).approve(sd.plan)
		}
		fsys := l.fs(sd.plan)
		if sd.spec != nil {
			fsys[swarm.SpecPath] = &fstest.MapFile{Data: []byte(*sd.spec)}
		}
		if sd.marker != nil {
			fsys[swarm.SpecStalenessPath] = &fstest.MapFile{Data: sd.marker}
		}
		return fsys
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := build(c.head, c.base)
			in := &Input{Phase: 1, Head: load(head)}
			if c.base != nil {
				in.Base = load(build(*c.base, nil))
			}
			if c.ack {
				d := SpecDriftOf(in.Head, in.Base)
				in.Overrides = []Override{{Command: CommandAcknowledgeSpecDrift, Actor: "octocat", Reason: "typo", RecordedAt: "2026-05-01T10:00:00Z",
					StructureHash: in.Head.Plan.Digests.Structure, SpecStaleness: SpecDriftKey(in.Head, in.Base, nil, false)}}
				if d.Key() == "" {
					t.Fatal("no drift key to acknowledge")
				}
			}
			r := eval(PlanFreeze{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			var got *Finding
			for i, f := range r.Findings {
				if f.Rule == RuleSpecStale {
					got = &r.Findings[i]
				}
			}
			switch {
			case c.sev == "" && got != nil:
				t.Fatalf("unexpected %s finding: %s", RuleSpecStale, got.Message)
			case c.sev == "":
				return
			case got == nil:
				t.Fatalf("no %s finding:\n%s", RuleSpecStale, findingsText(r))
			}
			if got.Severity != c.sev || got.Path != c.path || !strings.Contains(got.Message, c.mention) {
				t.Errorf("finding %s %s %q, want %s %s mentioning %q", got.Severity, got.Path, got.Message, c.sev, c.path, c.mention)
			}
			if c.notMention != "" && strings.Contains(got.Message, c.notMention) {
				t.Errorf("finding says %q: %s", c.notMention, got.Message)
			}
			if c.title != "" && !strings.HasPrefix(r.Title, c.title) {
				t.Errorf("title %q, want it to start with %q", r.Title, c.title)
			}
			if c.title != "" && !strings.Contains(c.title, "spec-staleness") && strings.Contains(r.Title, "spec-staleness") {
				t.Errorf("title %q names the marker, which the head does not have", r.Title)
			}
			if c.preexists != (got.Delta == DeltaPreExisting) {
				t.Errorf("pre-existing %v, but delta %q:\n%s\n%s", c.preexists, got.Delta, r.Title, r.Summary)
			}
		})
	}
}

// TestSpecDriftUnreadableSpec: with a specHash in the plan, an unreadable
// spec.md means staleness is unknown, which fails closed.
func TestSpecDriftUnreadableSpec(t *testing.T) {
	plan := edit(t, testPlan, `"current_phase": 1,`, `"current_phase": 1, "specHash": "abc",`)
	fsys := newLedger(t, plan).approve(plan).fs(plan)
	fsys[swarm.SpecPath] = &fstest.MapFile{Data: []byte("x"), Mode: 0o644}
	a := load(fsys)
	a.SpecErr = &swarm.ArtifactError{Path: swarm.SpecPath, Err: errors.New("permission denied")}
	r := eval(PlanFreeze{}, &Input{Phase: 1, Head: a})
	if r.Outcome != Error || !strings.Contains(r.Title+r.Summary+findingsText(r), "is needed to tell whether the plan is stale") {
		t.Fatalf("outcome %s (%s), want error naming spec.md\n%s", r.Outcome, r.Title, findingsText(r))
	}
}

// FuzzSpecDrift: any specHash value, spec.md content and marker bytes give
// an answer without panicking, stale exactly when the recomputed hash
// differs, and a stale plan-freeze finding always blocks unless
// acknowledged.
func FuzzSpecDrift(f *testing.F) {
	f.Add(`"abc"`, []byte("# spec\n"), []byte(`{}`), true)
	f.Add(`42`, []byte("\xef\xbb\xbf\xe2\x82"), []byte(`{"specHash_plan":"a","specHash_current":"b"}`), false)
	f.Add(`null`, []byte{}, []byte("not json"), true)
	f.Add(`"`+swarm.SpecHash([]byte("x"))+`"`, []byte("x"), []byte(nil), true)
	f.Fuzz(func(t *testing.T, specHash string, spec, marker []byte, baseHasSpec bool) {
		plan := strings.Replace(testPlan, `"current_phase": 1,`, `"current_phase": 1, "specHash": `+specHash+`,`, 1)
		fsys := fstest.MapFS{swarm.PlanPath: {Data: []byte(plan)}, swarm.SpecPath: {Data: spec}}
		if marker != nil {
			fsys[swarm.SpecStalenessPath] = &fstest.MapFile{Data: marker}
		}
		head := load(fsys)
		baseFS := fstest.MapFS{swarm.PlanPath: {Data: []byte(plan)}}
		if baseHasSpec {
			baseFS[swarm.SpecPath] = &fstest.MapFile{Data: []byte("base spec")}
		}
		base := load(baseFS)
		d := SpecDriftOf(head, base)
		if head.Plan == nil {
			if d.Checked {
				t.Fatal("checked without a plan")
			}
			return
		}
		if d.Checked && d.Err == nil && d.Stale != (d.PlanHash != swarm.SpecHash(spec)) {
			t.Fatalf("stale %v for plan hash %q, spec hash %q", d.Stale, d.PlanHash, swarm.SpecHash(spec))
		}
		if d.Stale && d.Key() == "" {
			t.Fatal("stale drift without a key")
		}
		r := eval(PlanFreeze{}, &Input{Phase: 1, Head: head, Base: base})
		for _, fd := range r.Findings {
			if fd.Rule == RuleSpecStale && d.Stale && fd.Severity != SeverityError {
				t.Fatalf("stale drift shown as %s: %s", fd.Severity, fd.Message)
			}
		}
		if d.Stale && r.Outcome == Passed {
			t.Fatalf("stale drift passed: %s", r.Title)
		}
	})
}
