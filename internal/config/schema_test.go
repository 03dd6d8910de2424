package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/gates"
)

var update = flag.Bool("update", false, "rewrite docs/swarm-gate.schema.json from the policy file's Go description")

// schemaPath is the JSON Schema editors read (yaml-language-server:
// # yaml-language-server: $schema=...).
const schemaPath = "../../docs/swarm-gate.schema.json"

// policyFile describes .github/swarm-gate.yml as it is written, for the
// JSON Schema only: Parse reads the YAML nodes itself (to name lines and
// columns). TestSchemaMatchesParser keeps the two in step.
type policyFile struct {
	Version      int               `json:"version,omitempty" jsonschema:"enum=1" jsonschema_description:"The policy format; only 1 exists."`
	PhaseBranch  string            `json:"phase_branch,omitempty" jsonschema:"pattern=\\{N\\},default=swarm/phase-{N}" jsonschema_description:"The head branch that names the phase: {N} (exactly once) is the number, * any text."`
	PlanFreeze   *planFreezeFile   `json:"plan_freeze,omitempty"`
	Scope        *scopeFile        `json:"scope,omitempty"`
	SAST         *sastFile         `json:"sast,omitempty"`
	Placeholders *placeholdersFile `json:"placeholders,omitempty"`
	QAGates      *qaGatesFile      `json:"qa_gates,omitempty" jsonschema_description:"The plugin's QA gate profile; keys left out keep the plugin's defaults."`
	Drift        *driftFile        `json:"drift,omitempty"`
	PlanLint     string            `json:"plan_lint,omitempty" jsonschema:"enum=advisory,enum=fail,default=advisory" jsonschema_description:"advisory: plan-lint findings are warnings and the check is neutral; fail: they fail it."`
	PhaseWrap    *phaseWrapFile    `json:"phase_wrap,omitempty"`
	Commands     *commandsFile     `json:"commands,omitempty"`
	Limits       *limitsFile       `json:"limits,omitempty"`
	Comment      string            `json:"comment,omitempty" jsonschema:"enum=on,enum=off,enum=on-failure,default=on-failure" jsonschema_description:"When the Action and the App post the pull request summary comment: on (always), off (never), on-failure (when a check does not pass; an existing comment is still updated)."`
}

type limitsFile struct {
	MaxFileBytes    int64  `json:"max_file_bytes,omitempty" jsonschema:"minimum=1048576,maximum=1073741824,default=16777216" jsonschema_description:"A changed file whose head blob is bigger is not read: too large to scan."`
	MaxChangedFiles int    `json:"max_changed_files,omitempty" jsonschema:"minimum=100,maximum=1000000,default=30000" jsonschema_description:"More changed paths (a rename counts two) and the gates that read the change set could not evaluate."`
	Unscanned       string `json:"unscanned,omitempty" jsonschema:"enum=fail,enum=warn,default=fail" jsonschema_description:"A changed file not scanned (too large, over a gate's size limit) fails its gate closed, or only warns."`
	NewGenerated    string `json:"new_generated,omitempty" jsonschema:"enum=skip,enum=scan,default=skip" jsonschema_description:"A file the pull request adds that only its own header or path calls generated: skip (listed in the notice) or scan (only the base branch's .gitattributes exempt it)."`
}

type planFreezeFile struct {
	Approval         string `json:"approval,omitempty" jsonschema:"enum=any,enum=base-anchored,enum=human,default=any" jsonschema_description:"Which plan-critic approval counts: any (the plugin's), base-anchored (only one already on the base branch, or a human override), human (only a human override)."`
	LegacyPlans      string `json:"legacy_plans,omitempty" jsonschema:"enum=fail,enum=allow,default=fail" jsonschema_description:"allow: accept a plan without plan-critic approval when every ledger event is schema_version 1.0.0."`
	UnhashedChanges  string `json:"unhashed_changes,omitempty" jsonschema:"enum=fail,enum=warn,default=fail" jsonschema_description:"fr_refs / phase type changes since the approval."`
	AgentOverrides   string `json:"agent_overrides,omitempty" jsonschema:"enum=default,enum=allow,enum=fail,enum=warn,default=default" jsonschema_description:"A manual override no critic gave and no maintainer's comment backs."`
	StatusRegression string `json:"status_regression,omitempty" jsonschema:"enum=default,enum=fail,enum=warn,default=default" jsonschema_description:"A task completed on the base branch that the pull request resets or removes."`
}

type scopeFile struct {
	Extras               []string `json:"extras,omitempty" jsonschema:"minLength=1" jsonschema_description:"Doublestar globs any phase may change, relative to the repository root."`
	Lockfiles            *bool    `json:"lockfiles,omitempty" jsonschema:"default=true" jsonschema_description:"A lockfile may change when its manifest beside it is in scope."`
	UntouchedCompleted   string   `json:"untouched_completed,omitempty" jsonschema:"enum=warn,enum=fail,default=warn"`
	WidenedByPR          string   `json:"widened_by_pr,omitempty" jsonschema:"enum=warn,enum=fail,default=warn"`
	SelfApprovedWidening string   `json:"self_approved_widening,omitempty" jsonschema:"enum=fail,enum=warn,default=fail"`
	NotDeclared          string   `json:"not_declared,omitempty" jsonschema:"enum=fail,enum=warn,default=fail"`
}

type sastFile struct {
	SeverityThreshold string `json:"severity_threshold,omitempty" jsonschema:"enum=low,enum=medium,enum=high,enum=critical,default=medium" jsonschema_description:"The lowest severity of a new finding that fails."`
	Baseline          string `json:"baseline,omitempty" jsonschema:"enum=auto,enum=file,enum=merge-base,default=auto"`
	AcceptTriage      *bool  `json:"accept_triage,omitempty" jsonschema:"default=false" jsonschema_description:"Fingerprints the pull request adds to its own baseline with a rationale clear their findings."`
}

type placeholdersFile struct {
	Allow            []string `json:"allow,omitempty" jsonschema:"minLength=1" jsonschema_description:"Doublestar globs of files not scanned."`
	Sentinels        []string `json:"sentinels,omitempty" jsonschema:"minLength=1,maxLength=100,pattern=\\S" jsonschema_description:"Strings (any case) that drop a finding when its line's first 100 characters hold one."`
	MarkdownHeadings string   `json:"markdown_headings,omitempty" jsonschema:"enum=flag,enum=ignore,default=flag"`
	Prose            string   `json:"prose,omitempty" jsonschema:"enum=warn,enum=fail,default=warn"`
	Disable          []string `json:"disable,omitempty" jsonschema_description:"Placeholder rule ids not applied."`
}

type qaGatesFile struct {
	Reviewer             *bool `json:"reviewer,omitempty" jsonschema:"default=true"`
	TestEngineer         *bool `json:"test_engineer,omitempty" jsonschema:"default=true"`
	SMEEnabled           *bool `json:"sme_enabled,omitempty" jsonschema:"default=true"`
	CriticPrePlan        *bool `json:"critic_pre_plan,omitempty" jsonschema:"default=true"`
	SASTEnabled          *bool `json:"sast_enabled,omitempty" jsonschema:"default=true"`
	CouncilMode          *bool `json:"council_mode,omitempty" jsonschema:"default=false"`
	HallucinationGuard   *bool `json:"hallucination_guard,omitempty" jsonschema:"default=false"`
	MutationTest         *bool `json:"mutation_test,omitempty" jsonschema:"default=false"`
	CouncilGeneralReview *bool `json:"council_general_review,omitempty" jsonschema:"default=false"`
	DriftCheck           *bool `json:"drift_check,omitempty" jsonschema:"default=true"`
	FinalCouncil         *bool `json:"final_council,omitempty" jsonschema:"default=false"`
	PhaseCouncil         *bool `json:"phase_council,omitempty" jsonschema:"default=false"`
}

type driftFile struct {
	MinorDrift   string `json:"minor_drift,omitempty" jsonschema:"enum=warn,enum=fail,default=warn"`
	Traceability string `json:"traceability,omitempty" jsonschema:"enum=fail,enum=warn,default=fail"`
}

type phaseWrapFile struct {
	FinalCouncilConcerns string   `json:"final_council_concerns,omitempty" jsonschema:"enum=block,enum=allow,default=block"`
	PhaseCouncilConcerns string   `json:"phase_council_concerns,omitempty" jsonschema:"enum=allow,enum=block,default=allow"`
	RequireDocs          *bool    `json:"require_docs,omitempty" jsonschema:"default=true"`
	RequiredAgents       []string `json:"required_agents,omitempty" jsonschema:"pattern=^[a-z][a-z0-9_]*$"`
}

type commandsFile struct {
	MinPermission     string   `json:"min_permission,omitempty" jsonschema:"enum=write,enum=maintain,enum=admin,default=write"`
	AllowSelfApproval *bool    `json:"allow_self_approval,omitempty" jsonschema:"default=false"`
	Teams             []string `json:"teams,omitempty" jsonschema:"minItems=1,uniqueItems=true,pattern=^[A-Za-z0-9][A-Za-z0-9-]{0\\,38}/[a-z0-9][a-z0-9_.-]{0\\,99}$"`
}

// generateSchema reflects policyFile into the schema's JSON text.
func generateSchema(t *testing.T) []byte {
	t.Helper()
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	s := r.Reflect(&policyFile{})
	s.ID = "https://raw.githubusercontent.com/swarm-gate/swarm-gate/main/docs/swarm-gate.schema.json"
	s.Title = "swarm-gate policy (.github/swarm-gate.yml)"
	s.Description = "Read from the pull request's base branch. Generated from internal/config/schema_test.go (go test ./internal/config -run TestSchemaFile -update)."
	// Rule ids come from the rule engine, not from a tag.
	rules := slices.DeleteFunc(gates.PlaceholderRules(), func(id string) bool { return id == gates.RuleSuppressionNoReason })
	ph, _ := s.Properties.Get("placeholders")
	disable, _ := ph.Properties.Get("disable")
	for _, id := range rules {
		disable.Items.Enum = append(disable.Items.Enum, id)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// TestSchemaFile: docs/swarm-gate.schema.json is what the Go description
// generates (run with -update after changing it).
func TestSchemaFile(t *testing.T) {
	want := generateSchema(t)
	if *update {
		if err := os.MkdirAll(filepath.Dir(schemaPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(schemaPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatalf("%v (generate it: go test ./internal/config -run TestSchemaFile -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what policyFile generates: go test ./internal/config -run TestSchemaFile -update", schemaPath)
	}
}

func compileSchema(t *testing.T) *sjs.Schema {
	t.Helper()
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(generateSchema(t)))
	if err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	if err := c.AddResource("policy.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("policy.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlToJSON decodes YAML into the generic value the schema validator reads.
func yamlToJSON(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("%v in\n%s", err, src)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var knownKeysRE = regexp.MustCompile(`known keys: ([^)]*)\)`)

// TestSchemaMatchesParser: each mapping of the schema has exactly the keys
// the parser accepts there (read from the parser's own "known keys" list),
// and each enum lists exactly the values it accepts.
func TestSchemaMatchesParser(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(generateSchema(t), &schema); err != nil {
		t.Fatal(err)
	}
	var walk func(path []string, node map[string]any)
	walk = func(path []string, node map[string]any) {
		props, _ := node["properties"].(map[string]any)
		if props == nil {
			return
		}
		if node["additionalProperties"] != false {
			t.Errorf("%s: the schema allows unknown keys; the parser does not", strings.Join(path, "."))
		}
		// The parser's key list for this mapping.
		probe := nest(path, "zz_not_a_key: 1")
		_, err := Parse("p.yml", []byte(probe))
		m := knownKeysRE.FindStringSubmatch(errString(err))
		if m == nil {
			t.Fatalf("%q: no known-keys list in %v", probe, err)
		}
		parserKeys := strings.Split(m[1], ", ")
		var schemaKeys []string
		for k := range props {
			schemaKeys = append(schemaKeys, k)
		}
		slices.Sort(schemaKeys)
		if !slices.Equal(parserKeys, schemaKeys) {
			t.Errorf("%s: parser keys %v, schema keys %v", strings.Join(append([]string{"(top)"}, path...), "."), parserKeys, schemaKeys)
		}
		for k, v := range props {
			child, _ := v.(map[string]any)
			sub := append(slices.Clone(path), k)
			if enum, ok := child["enum"].([]any); ok && child["type"] == "string" {
				for _, e := range enum {
					c, err := Parse("p.yml", []byte(nest(sub[:len(sub)-1], k+": "+e.(string))))
					if err != nil {
						t.Errorf("%s: the schema allows %q, the parser refuses it: %v", strings.Join(sub, "."), e, err)
						continue
					}
					// Compare (the pull request's policy change) sees
					// every setting.
					if changed := len(Compare(gates.DefaultConfig(), c)) > 0; changed != (e != child["default"]) {
						t.Errorf("%s: %q: Compare with the defaults reports a change: %v", strings.Join(sub, "."), e, changed)
					}
				}
				if _, err := Parse("p.yml", []byte(nest(sub[:len(sub)-1], k+": zz-not-a-value"))); err == nil {
					t.Errorf("%s: the parser accepts a value outside the schema's enum", strings.Join(sub, "."))
				}
			}
			walk(sub, child)
		}
	}
	walk(nil, schema)
}

// nest writes line under the mapping path (two spaces per level).
func nest(path []string, line string) string {
	var b strings.Builder
	for i, k := range path {
		b.WriteString(strings.Repeat("  ", i) + k + ":\n")
	}
	b.WriteString(strings.Repeat("  ", len(path)) + line + "\n")
	return b.String()
}

// detail spells out a validation error's causes (its Error() names only
// the root).
func detail(err error) string {
	var ve *sjs.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var b strings.Builder
	var walk func(e *sjs.ValidationError)
	walk = func(e *sjs.ValidationError) {
		if len(e.Causes) == 0 {
			fmt.Fprintf(&b, "/%s: %v; ", strings.Join(e.InstanceLocation, "/"), e.ErrorKind)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return b.String()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var yamlBlockRE = regexp.MustCompile("(?ms)^```ya?ml\n(.*?)^```")

// TestSchemaAgreesOnDocExamples: every policy example in the README and
// docs/ (a YAML block whose top-level keys are policy keys) parses, and the
// schema accepts it; mistakes the parser refuses, the schema refuses too.
func TestSchemaAgreesOnDocExamples(t *testing.T) {
	var readme []byte
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, p := range append([]string{"../../README.md"}, docs...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(append(readme, b...), '\n')
	}
	schema := compileSchema(t)
	topKeys := map[string]bool{}
	for _, k := range []string{"version", "phase_branch", "plan_freeze", "scope", "sast", "placeholders", "qa_gates", "drift", "plan_lint", "phase_wrap", "commands", "limits", "comment"} {
		topKeys[k] = true
	}
	examples := 0
	for _, m := range yamlBlockRE.FindAllStringSubmatch(string(readme), -1) {
		var top map[string]any
		if yaml.Unmarshal([]byte(m[1]), &top) != nil || len(top) == 0 {
			continue
		}
		policy := true
		for k := range top {
			policy = policy && topKeys[k]
		}
		if !policy {
			continue
		}
		examples++
		if _, err := Parse(Path, []byte(m[1])); err != nil {
			t.Errorf("README example does not parse: %v\n%s", err, m[1])
		}
		if err := schema.Validate(yamlToJSON(t, m[1])); err != nil {
			t.Errorf("README example fails the schema: %s\n%s", detail(err), m[1])
		}
	}
	if examples < 2 {
		t.Errorf("found %d policy examples in the README, want the reference and the strict preset at least", examples)
	}
	for _, bad := range []string{
		"version: 2\n",
		"plan_freeze:\n  approval: humans\n",
		"scope:\n  lockfiles: maybe\n",
		"sast:\n  severity_treshold: high\n",
		"phase_branch: swarm/phase\n",
		"commands:\n  teams: [core]\n",
		"commands:\n  teams: []\n",
		"placeholders:\n  disable: [placeholder/nope]\n",
		"placeholders:\n  sentinels: [\"  \"]\n",
		"phase_wrap:\n  required_agents: [Coder]\n",
		"qa_gates:\n  reviewer: \"yes\"\n",
		"limits:\n  max_file_bytes: 1024\n",
		"limits:\n  unscanned: ignore\n",
		"comment: always\n",
	} {
		_, perr := Parse(Path, []byte(bad))
		serr := schema.Validate(yamlToJSON(t, bad))
		if perr == nil || serr == nil {
			t.Errorf("%q: parser error %v, schema error %v: both must refuse it", bad, perr, serr)
		}
	}
}
