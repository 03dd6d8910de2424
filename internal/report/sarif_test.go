package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// sarifSchema compiles the vendored OASIS SARIF 2.1.0 schema (see
// testdata/SARIF-SCHEMA-SOURCE.md), with format assertions on.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// sarifOut is the part of a SARIF log the tests look at.
type sarifOut struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID               string                `json:"id"`
					ShortDescription struct{ Text string } `json:"shortDescription"`
					FullDescription  struct{ Text string } `json:"fullDescription"`
					Help             struct {
						Text, Markdown string
					} `json:"help"`
					Properties struct {
						Tags             []string `json:"tags"`
						SecuritySeverity string   `json:"security-severity"`
						Gates            []string `json:"gates"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Invocations []struct {
			ExecutionSuccessful        bool `json:"executionSuccessful"`
			ToolExecutionNotifications []struct {
				Level   string
				Message struct{ Text string }
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
						EndLine     int `json:"endLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Suppressions        []struct {
				Kind, Status, Justification string
			} `json:"suppressions"`
			Properties map[string]any `json:"properties"`
		} `json:"results"`
		Properties map[string]any `json:"properties"`
	} `json:"runs"`
}

// writeSARIF writes r as SARIF, validates it against the schema and decodes
// it.
func writeSARIF(t *testing.T, sch *jsonschema.Schema, r *report.Report) ([]byte, sarifOut) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteSARIF(&b, r, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the SARIF log does not match the SARIF 2.1.0 schema: %v\n%s", err, b.String())
	}
	var out sarifOut
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Version != "2.1.0" || out.Schema != report.SARIFSchema || len(out.Runs) != 1 || out.Runs[0].Tool.Driver.Name != "swarm-gate" || out.Runs[0].Tool.Driver.Version != "1.2.3" ||
		out.Runs[0].Tool.Driver.InformationURI != report.ProjectURL || out.Runs[0].AutomationDetails.ID != report.SARIFCategory(r)+"/" {
		t.Fatalf("log header: %+v", out)
	}
	for _, rule := range out.Runs[0].Tool.Driver.Rules {
		// GitHub's ingestion requires these of every rule (GH2012).
		if rule.ShortDescription.Text == "" || rule.FullDescription.Text == "" || rule.Help.Text == "" || rule.Help.Markdown == "" || len(rule.Properties.Tags) == 0 {
			t.Errorf("rule %s lacks a description, help or tags: %+v", rule.ID, rule)
		}
	}
	return b.Bytes(), out
}

// handMadeReport has errors, warnings and notices; a finding without a
// path, one about a whole file, an awkward path; an overridden gate and one
// that could not be evaluated.
func handMadeReport() *report.Report {
	r := report.New([]gates.Result{
		{Name: "swarm/scope", Outcome: gates.Failed, Title: "2 changed files outside the scope of phase 1", Findings: []gates.Finding{
			{Path: "main.go", Rule: "scope/out-of-scope", Severity: gates.SeverityError, Message: "main.go (modified) is outside the scope of phase 1"},
			{Path: "docs/a b:c%.md", Rule: "scope/out-of-scope", Severity: gates.SeverityError, Message: "docs/a b:c%.md (added) is outside the scope of phase 1"},
			{Path: ".swarm/plan.json", Line: 25, EndLine: 25, Rule: "scope/untouched-completed", Severity: gates.SeverityWarning, Message: "task 1.3 is completed but none of its files changed"},
		}},
		{Name: "swarm/placeholders", Outcome: gates.Failed, Title: "2 placeholders on added lines", Findings: []gates.Finding{
			{Path: "internal/export/csv.go", Line: 12, EndLine: 12, Column: 6, Rule: "placeholder/comment-todo", Severity: gates.SeverityError, Message: "TODO comment on an added line: // TODO: quote"},
			{Path: "internal/export/csv.go", Line: 30, EndLine: 31, Column: 2, Rule: "placeholder/comment-todo", Severity: gates.SeverityError, Message: "TODO comment on an added line: // TODO: quote"},
			{Path: "src/日本.go", Line: 3, EndLine: 3, Rule: "", Severity: gates.SeverityNotice, Message: ""},
		}},
		{Name: "swarm/plan-freeze", Outcome: gates.Overridden, Title: "overridden by @alice: reviewed by hand", Findings: []gates.Finding{
			{Path: ".swarm/plan.json", Line: 1, EndLine: 1, Rule: "plan-freeze/bookkeeping-change", Severity: gates.SeverityWarning, Message: "files_touched of task 1.1 changed at line 14"},
		}},
		{Name: "swarm/evidence", Outcome: gates.Error, Title: "could not evaluate: .swarm/evidence/1.2.json: line 3: not valid JSON", Findings: []gates.Finding{
			{Path: ".swarm/evidence/1.2.json", Line: 3, EndLine: 3, Rule: gates.RuleUnreadable, Severity: gates.SeverityError, Message: "could not evaluate: not valid JSON"},
		}},
		{Name: "swarm/critic", Outcome: gates.NotApplicable, Title: "no plan in this pull request", Findings: []gates.Finding{
			{Rule: "critic/no-plan", Severity: gates.SeverityNotice, Message: "the pull request has no plan"},
		}},
	})
	r.Base, r.Head, r.MergeBase, r.Phase, r.PhaseSource = strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("a", 40), 1, gates.PhaseFromBranch
	return r
}

func TestWriteSARIFMatchesTheSchema(t *testing.T) {
	sch := sarifSchema(t)
	t.Run("hand-made report", func(t *testing.T) {
		first, out := writeSARIF(t, sch, handMadeReport())
		second, _ := writeSARIF(t, sch, handMadeReport())
		if !bytes.Equal(first, second) {
			t.Error("two writes of the same report differ")
		}
		if n := len(out.Runs[0].Results); n != 9 {
			t.Errorf("%d results, want 9 (every finding)", n)
		}
	})
	t.Run("demo report", func(t *testing.T) {
		dir := t.TempDir()
		if _, _, err := demo.Build(dir); err != nil {
			t.Fatal(err)
		}
		r, err := pipeline.Check(context.Background(), pipeline.Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch})
		if err != nil {
			t.Fatal(err)
		}
		_, out := writeSARIF(t, sch, r)
		run := out.Runs[0]
		var uris []string
		for _, res := range run.Results {
			uris = append(uris, res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
		for _, want := range []string{"main.go", "internal/export/csv.go", ".swarm/plan.json"} {
			if !strings.Contains(strings.Join(uris, " "), want) {
				t.Errorf("no result on %s (results on %v)", want, uris)
			}
		}
		if run.Properties["outcome"] != "failed" || !run.Invocations[0].ExecutionSuccessful {
			t.Errorf("run properties %v, invocation %+v", run.Properties, run.Invocations)
		}
	})
	t.Run("check that could not start", func(t *testing.T) {
		_, out := writeSARIF(t, sch, report.Failure(errors.New("not a git repository")))
		inv := out.Runs[0].Invocations[0]
		if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || !strings.Contains(inv.ToolExecutionNotifications[0].Message.Text, "not a git repository") || len(out.Runs[0].Results) != 0 {
			t.Errorf("invocation %+v", inv)
		}
	})
}

func TestSARIFSchemaCatchesABrokenLog(t *testing.T) {
	// The validator is only worth its name if it refuses what GitHub would:
	// a result without a message, and a region line of 0.
	sch := sarifSchema(t)
	for _, log := range []string{
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r"}]}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":0}}}]}]}]}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(log))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("the schema accepts %s", log)
		}
	}
}

func TestWriteSARIFResults(t *testing.T) {
	_, out := writeSARIF(t, sarifSchema(t), handMadeReport())
	run := out.Runs[0]
	var ids []string
	for _, rule := range run.Tool.Driver.Rules {
		ids = append(ids, rule.ID+"="+strings.Join(rule.Properties.Gates, ","))
	}
	wantRules := "critic/no-plan=swarm/critic placeholder/comment-todo=swarm/placeholders plan-freeze/bookkeeping-change=swarm/plan-freeze " +
		"scope/out-of-scope=swarm/scope scope/untouched-completed=swarm/scope swarm-gate/unreadable-artifact=swarm/evidence swarm/placeholders=swarm/placeholders"
	if strings.Join(ids, " ") != wantRules {
		t.Errorf("rules\n got %s\nwant %s", strings.Join(ids, " "), wantRules)
	}
	type loc struct {
		uri                        string
		line, col, end             int
		level, rule, gate, outcome string
	}
	want := []loc{
		{"main.go", 1, 0, 0, "error", "scope/out-of-scope", "swarm/scope", "failed"},
		{"docs/a%20b%3Ac%25.md", 1, 0, 0, "error", "scope/out-of-scope", "swarm/scope", "failed"},
		{".swarm/plan.json", 25, 0, 25, "warning", "scope/untouched-completed", "swarm/scope", "failed"},
		{"internal/export/csv.go", 12, 6, 12, "error", "placeholder/comment-todo", "swarm/placeholders", "failed"},
		{"internal/export/csv.go", 30, 2, 31, "error", "placeholder/comment-todo", "swarm/placeholders", "failed"},
		{"src/%E6%97%A5%E6%9C%AC.go", 3, 0, 3, "note", "swarm/placeholders", "swarm/placeholders", "failed"},
		{".swarm/plan.json", 1, 0, 1, "warning", "plan-freeze/bookkeeping-change", "swarm/plan-freeze", "overridden"},
		{".swarm/evidence/1.2.json", 3, 0, 3, "error", "swarm-gate/unreadable-artifact", "swarm/evidence", "error"},
		{report.SARIFNoPathFile, 1, 0, 0, "note", "critic/no-plan", "swarm/critic", "not_applicable"},
	}
	for i, res := range run.Results {
		p := res.Locations[0].PhysicalLocation
		got := loc{p.ArtifactLocation.URI, p.Region.StartLine, p.Region.StartColumn, p.Region.EndLine, res.Level, res.RuleID, res.Properties["gate"].(string), res.Properties["gateOutcome"].(string)}
		if got != want[i] {
			t.Errorf("result %d:\n got %+v\nwant %+v", i, got, want[i])
		}
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || p.ArtifactLocation.URIBaseID != "%SRCROOT%" || res.Message.Text == "" {
			t.Errorf("result %d: ruleIndex %d, uriBaseId %q, message %q", i, res.RuleIndex, p.ArtifactLocation.URIBaseID, res.Message.Text)
		}
	}
	if run.Results[0].Properties["wholeFile"] != true || run.Results[8].Properties["noPath"] != true {
		t.Errorf("wholeFile/noPath properties: %v, %v", run.Results[0].Properties, run.Results[8].Properties)
	}
	if s := run.Results[6].Suppressions; len(s) != 1 || s[0].Kind != "external" || s[0].Status != "accepted" || !strings.Contains(s[0].Justification, "@alice") {
		t.Errorf("overridden gate's finding: suppressions %+v", s)
	}
	if len(run.Results[0].Suppressions) != 0 {
		t.Error("a failed gate's finding is suppressed")
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || !strings.HasPrefix(inv.ToolExecutionNotifications[0].Message.Text, "swarm/evidence: could not evaluate") {
		t.Errorf("invocation %+v", inv)
	}
	if run.Properties["outcome"] != "error" || run.Properties["phase"] != float64(1) || len(run.Properties["gates"].([]any)) != 5 {
		t.Errorf("run properties %v", run.Properties)
	}
}

func TestSARIFFingerprintsSurviveLineMoves(t *testing.T) {
	sch := sarifSchema(t)
	fingerprints := func(fs ...gates.Finding) []string {
		_, out := writeSARIF(t, sch, report.New([]gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Failed, Findings: fs}}))
		var fps []string
		for _, res := range out.Runs[0].Results {
			fps = append(fps, res.PartialFingerprints[report.SARIFFingerprintKey])
		}
		return fps
	}
	f := func(line int, msg string) gates.Finding {
		return gates.Finding{Path: ".swarm/plan-ledger.jsonl", Line: line, EndLine: line, Rule: "plan-freeze/ledger-rewritten", Severity: gates.SeverityError, Message: msg}
	}
	before := fingerprints(f(12, "event at line 12 (seq 4) differs from the base; see .swarm/plan.json:7:3"), f(20, "same text"), f(21, "same text"))
	after := fingerprints(f(15, "event at line 15 (seq 4) differs from the base; see .swarm/plan.json:9:1"), f(30, "same text"), f(31, "same text"))
	if len(before[0]) != 64 || strings.Join(before, ",") != strings.Join(after, ",") {
		t.Errorf("fingerprints changed with the lines:\n%v\n%v", before, after)
	}
	if before[1] == before[2] {
		t.Error("two equal findings share a fingerprint")
	}
	if other := fingerprints(f(12, "event at line 12 (seq 5) differs from the base; see .swarm/plan.json:7:3")); other[0] == before[0] {
		t.Error("a different message has the same fingerprint")
	}
}

// TestSARIFFingerprintsFollowTheFindingKey: a finding with a key (what it
// is about, independent of its place) keeps its fingerprint when it moves
// down 10 lines, even when its message names the line in a form the
// message normalisation does not know; two equal findings in one file stay
// distinct, and another key is another fingerprint.
func TestSARIFFingerprintsFollowTheFindingKey(t *testing.T) {
	sch := sarifSchema(t)
	fingerprints := func(fs ...gates.Finding) []string {
		_, out := writeSARIF(t, sch, report.New([]gates.Result{{Name: "swarm/placeholders", Outcome: gates.Failed, Findings: fs}}))
		var fps []string
		for _, res := range out.Runs[0].Results {
			fps = append(fps, res.PartialFingerprints[report.SARIFFingerprintKey])
		}
		return fps
	}
	f := func(line int, key string) gates.Finding {
		return gates.Finding{Path: "main.go", Line: line, EndLine: line, Column: 4, Rule: gates.RuleCommentTodo, Severity: gates.SeverityError,
			Message: fmt.Sprintf("TODO comment (L%d): // TODO: wire it up", line), Key: key}
	}
	before := fingerprints(f(12, "todo|wire"), f(30, "todo|same"), f(31, "todo|same"))
	after := fingerprints(f(22, "todo|wire"), f(40, "todo|same"), f(41, "todo|same"))
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("finding %d: fingerprint changed when it moved down 10 lines: %s → %s", i, before[i], after[i])
		}
	}
	if before[1] == before[2] {
		t.Error("two equal findings in one file share a fingerprint")
	}
	if other := fingerprints(f(12, "todo|other")); other[0] == before[0] {
		t.Error("another key has the same fingerprint")
	}
}

// TestSARIFBaselineState: a finding the pull request introduces is "new",
// one the merge base already has is "unchanged", in SARIF's own terms.
func TestSARIFBaselineState(t *testing.T) {
	r := report.New([]gates.Result{{Name: "swarm/drift", Outcome: gates.Failed, Title: "t", Findings: []gates.Finding{
		{Path: ".swarm/spec.md", Line: 3, Rule: "drift/untraced-requirement", Severity: gates.SeverityError, Message: "FR-002", Delta: gates.DeltaIntroduced},
		{Path: ".swarm/spec.md", Line: 2, Rule: "drift/untraced-requirement", Severity: gates.SeverityWarning, Message: gates.PreExistingPrefix + "FR-001", Delta: gates.DeltaPreExisting},
		{Path: ".swarm/spec.md", Line: 4, Rule: "drift/untraced-task", Severity: gates.SeverityNotice, Message: "no delta"},
	}}})
	b, _ := writeSARIF(t, sarifSchema(t), r)
	var log struct {
		Runs []struct {
			Results []struct {
				BaselineState string `json:"baselineState"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, res := range log.Runs[0].Results {
		got = append(got, res.BaselineState)
	}
	if strings.Join(got, ",") != "new,unchanged," {
		t.Errorf("baselineState %q, want new, unchanged and none", got)
	}
}

// Issue 20, B10: a secret-looking value in a finding's path (here a
// placeholder finding, whose gate does not mask paths itself) is masked in
// the SARIF log, in the location, the message and the gate's title, and
// the report itself is left as it was.
func TestSARIFMasksSecretLookingPaths(t *testing.T) {
	key := "AKIA" + "QYLPMN5H" + "FIQR7XYA"
	p := "config/" + key + ".go"
	r := &report.Report{Outcome: gates.Failed, ExitCode: 1, Gates: []gates.Result{{Name: "swarm/placeholders", Outcome: gates.Failed, Title: "TODO in " + p,
		Findings: []gates.Finding{{Path: p, Line: 3, Rule: "placeholder/comment-todo", Severity: gates.SeverityError, Message: "TODO added in " + p}}}}}
	var b bytes.Buffer
	if err := report.WriteSARIF(&b, r, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), key) || strings.Contains(b.String(), strings.ReplaceAll(key, "A", "%41")) {
		t.Errorf("the key is in the SARIF log:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "AK…(20)") && !strings.Contains(b.String(), "AK%E2%80%A6%2820%29") {
		t.Errorf("the masked path is not in the SARIF log:\n%s", b.String())
	}
	if r.Gates[0].Findings[0].Path != p || r.Gates[0].Title != "TODO in "+p {
		t.Errorf("WriteSARIF changed the report: %+v", r.Gates[0])
	}
}
