package report_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/secrets"
)

// gateRuleIDs reads the rule ids the gates package declares: every string
// constant named Rule... in its non-test files (RulePhaseWrapPrefix apart),
// and phase-wrap/<step> for every checklist step (const step = "..." and
// the step literal verifierCheck is called with). Read from the source, so
// a rule added to a gate without a catalogue entry fails the test.
func gateRuleIDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "gates", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no gates sources: %v", err)
	}
	verifierStep := regexp.MustCompile(`verifierCheck\(in, [^,]+, "([a-z-]+)"`)
	var ids []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Values) != len(vs.Names) {
				return true
			}
			for i, id := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				switch {
				case id.Name == "RulePhaseWrapPrefix":
				case strings.HasPrefix(id.Name, "Rule"):
					ids = append(ids, v)
				case id.Name == "step":
					ids = append(ids, gates.RulePhaseWrapPrefix+v)
				}
			}
			return true
		})
		for _, m := range verifierStep.FindAllStringSubmatch(string(src), -1) {
			ids = append(ids, gates.RulePhaseWrapPrefix+m[1])
		}
	}
	return ids
}

// TestEveryRuleHasACatalogueEntry: every rule id swarm-gate can emit (the
// gates' Rule constants and checklist steps, the placeholder rule table,
// every Tier A SAST rule, secret/<id> for every gitleaks default rule, and
// each gate's own name) has an entry with descriptions, help, tags, and a
// security-severity in GitHub's range where it is a security rule.
func TestEveryRuleHasACatalogueEntry(t *testing.T) {
	ids := gateRuleIDs(t)
	if len(ids) < 80 {
		t.Fatalf("found only %d gate rule ids in the gates sources", len(ids))
	}
	ids = append(ids, gates.PlaceholderRules()...)
	for _, r := range sast.AllRules() {
		ids = append(ids, r.ID)
	}
	cfg, err := secrets.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	for id := range cfg.Rules {
		ids = append(ids, "secret/"+id)
	}
	for _, g := range gates.Registry() {
		ids = append(ids, g.Name())
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		gate := ""
		if strings.HasPrefix(id, "swarm-gate/") {
			gate = "swarm/placeholders" // rules several checks share; the finding's gate names the check
		}
		d := report.LookupRule(gate, id)
		if !d.Known {
			t.Errorf("%s: no catalogue entry", id)
			continue
		}
		if d.Gate == "" || d.Short == "" || d.Full == "" || len(d.Full) > 1024 || !strings.Contains(d.HelpText, "How to fix: ") ||
			!strings.Contains(d.HelpMarkdown, "**Why it blocks:**") || len(d.Tags) == 0 {
			t.Errorf("%s: incomplete entry %+v", id, d)
		}
		security := strings.HasPrefix(id, "sast/") && sast.RuleByID(id) != nil || strings.HasPrefix(id, "secret/") && id != gates.RuleSecretsNotShown
		if security {
			score, err := strconv.ParseFloat(d.SecuritySeverity, 64)
			if err != nil || score < 0.1 || score > 10 || !slices.Contains(d.Tags, "security") {
				t.Errorf("%s: security-severity %q, tags %v", id, d.SecuritySeverity, d.Tags)
			}
		} else if d.SecuritySeverity != "" {
			t.Errorf("%s: security-severity %q on a rule that is not a security rule", id, d.SecuritySeverity)
		}
	}
	t.Logf("%d rule ids checked", len(ids))
}

func TestLookupRule(t *testing.T) {
	for _, tc := range []struct {
		gate, id, gateWant, short, sev, tag string
		known                               bool
	}{
		{"swarm/critic", gates.RuleCriticNoVerdict, "swarm/critic", "no recorded verdict", "", "swarm", true},
		{"", "sast/go-shell-injection", "swarm/sast", "exec.Command", "9.5", "external/cwe/cwe-78", true},
		{"", "sast/py-sql-injection", "swarm/sast", "SQL injection", "9.5", "external/cwe/cwe-89", true},
		{"", "secret/aws-access-token", "swarm/sast", "gitleaks rule aws-access-token", "9.0", "external/cwe/cwe-798", true},
		{"swarm/evidence", gates.RuleUnreadable, "swarm/evidence", "could not be read", "", "evidence", true},
		{"", "phase-wrap/retrospective", "swarm/phase-wrap", "retrospective", "", "phase", true},
		// Another scanner's rule: the check's help, not a catalogue entry.
		{"swarm/sast", "G204", "swarm/sast", "another scanner", "", "security", false},
	} {
		d := report.LookupRule(tc.gate, tc.id)
		if d.Gate != tc.gateWant || !strings.Contains(d.Short, tc.short) || d.SecuritySeverity != tc.sev || !slices.Contains(d.Tags, tc.tag) || d.Known != tc.known {
			t.Errorf("LookupRule(%q, %q) = %+v", tc.gate, tc.id, d)
		}
	}
	if d := report.LookupRule("swarm/critic", gates.RuleCriticNoVerdict); !strings.Contains(d.HelpMarkdown, "`/swarm approve-plan-critic <reason>`") || strings.Contains(d.HelpText, "`") {
		t.Errorf("help does not name the approval command, or text has Markdown: %q / %q", d.HelpText, d.HelpMarkdown)
	}
}
