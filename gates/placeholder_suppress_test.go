package gates

import (
	"slices"
	"strings"
	"testing"
)

// TestPlaceholderSuppressionsCounted: a suppression with a reason drops the
// line's findings, and the title, summary and Result.Suppressions say
// which, with the reason.
func TestPlaceholderSuppressionsCounted(t *testing.T) {
	r, got := placeholders(t, nil,
		added("a.go", "package a", "// TODO: retry on 503 swarm-gate:allow placeholder tracked in issue 12", "func f() {}"),
		added("b.py", "def stub():", "    raise NotImplementedError  # swarm-gate:allow placeholder abstract on purpose */"),
		added("c.go", "// TODO: really"),
	)
	if want := []string{"comment-todo@1:4"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	if !strings.HasSuffix(r.Title, "(2 lines suppressed with a reason)") {
		t.Errorf("title %q", r.Title)
	}
	want := []Suppression{{Path: "a.go", Line: 2, Rules: []string{RuleCommentTodo}, Reason: "tracked in issue 12"}, {Path: "b.py", Line: 2, Rules: []string{RuleCodeStubBody}, Reason: "abstract on purpose"}}
	if len(r.Suppressions) != 2 {
		t.Fatalf("suppressions %+v", r.Suppressions)
	}
	for i := range want {
		g := r.Suppressions[i]
		if g.Path != want[i].Path || g.Line != want[i].Line || !slices.Equal(g.Rules, want[i].Rules) || g.Reason != want[i].Reason {
			t.Errorf("suppression %d: %+v, want %+v", i, g, want[i])
		}
	}
	for _, s := range []string{"**Suppressed**", "`a.go:2`: `placeholder/comment-todo`: tracked in issue 12", "Next step: finish the work each finding marks"} {
		if !strings.Contains(r.Summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, r.Summary)
		}
	}
	// A marker on a line without a finding records nothing.
	r, _ = placeholders(t, nil, added("d.go", "x := 1 // swarm-gate:allow placeholder nothing here"))
	if len(r.Suppressions) != 0 || strings.Contains(r.Title, "suppressed") {
		t.Errorf("a marker on a clean line: %+v %q", r.Suppressions, r.Title)
	}
}

// TestPlaceholderProsePolicy: a TODO: starting a line of Markdown warns,
// and fails with placeholders.prose: fail.
func TestPlaceholderProsePolicy(t *testing.T) {
	doc := added("docs/setup.md", "# Setup", "", "TODO: document the proxy settings")
	r, _ := placeholders(t, nil, doc)
	if r.Outcome != Passed || len(r.Findings) != 1 || r.Findings[0].Severity != SeverityWarning {
		t.Fatalf("default: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	cfg := DefaultConfig()
	cfg.Placeholders.FailProse = true
	r, _ = placeholders(t, cfg, doc)
	if r.Outcome != Failed || len(r.Findings) != 1 || r.Findings[0].Severity != SeverityError || !strings.Contains(r.Summary, "placeholders.prose: fail") {
		t.Fatalf("prose: fail: %s %q\n%s\n%s", r.Outcome, r.Title, findingsText(r), r.Summary)
	}
}

// TestPlaceholderSentinelShown: a sentinel drops a line's findings as in
// the plugin, and the drop is listed as a suppression (new-user pass: an
// agent's "// TODO: later SC-PLACEHOLDER" passed unseen).
func TestPlaceholderSentinelShown(t *testing.T) {
	cfg := &Config{Placeholders: PlaceholdersConfig{Sentinels: []string{"ALLOW-STUB"}}}
	r, got := placeholders(t, cfg,
		added("a.go", "package a", "// TODO: later SC-PLACEHOLDER", "// FIXME: x allow-stub"),
		added("b.go", "x := 1 // SC-PLACEHOLDER nothing to drop"),
	)
	if len(got) != 0 {
		t.Fatalf("findings %v, want none", got)
	}
	want := []Suppression{
		{Path: "a.go", Line: 2, Rules: []string{RuleCommentTodo}, Reason: "the line holds the plugin's sentinel SC-PLACEHOLDER"},
		{Path: "a.go", Line: 3, Rules: []string{RuleCommentFixme}, Reason: "the line holds the policy's sentinel ALLOW-STUB (placeholders.sentinels)"},
	}
	if len(r.Suppressions) != len(want) {
		t.Fatalf("suppressions %+v, want %+v", r.Suppressions, want)
	}
	for i := range want {
		if g := r.Suppressions[i]; g.Path != want[i].Path || g.Line != want[i].Line || !slices.Equal(g.Rules, want[i].Rules) || g.Reason != want[i].Reason {
			t.Errorf("suppression %d: %+v, want %+v", i, g, want[i])
		}
	}
	if !strings.HasSuffix(r.Title, "(2 lines suppressed with a reason)") || !strings.Contains(r.Summary, "`a.go:2`: `placeholder/comment-todo`: the line holds the plugin's sentinel SC-PLACEHOLDER") {
		t.Errorf("title %q, summary:\n%s", r.Title, r.Summary)
	}
}
