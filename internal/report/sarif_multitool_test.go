package report_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/replay"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// sarifMultitool finds the SARIF Multitool scripts/sarif-multitool
// installs: $SWARM_GATE_SARIF_MULTITOOL (scripts/test sets it; then it must
// exist), else the installer's default cache. "" with a reason when absent.
func sarifMultitool(t *testing.T) (string, string) {
	t.Helper()
	if p := os.Getenv("SWARM_GATE_SARIF_MULTITOOL"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("SWARM_GATE_SARIF_MULTITOOL: %v", err)
		}
		return p, ""
	}
	tools := os.Getenv("SWARM_GATE_TOOLS")
	if tools == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", "no cache directory: " + err.Error()
		}
		tools = filepath.Join(cache, "swarm-gate", "tools")
	}
	// The version scripts/sarif-multitool pins.
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "sarif-multitool"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version=\$\{SARIF_MULTITOOL_VERSION:-([0-9.]+)\}$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/sarif-multitool pins no version=${SARIF_MULTITOOL_VERSION:-x.y.z}")
	}
	p := filepath.Join(tools, "sarif-multitool-"+string(m[1]), "node_modules", "@microsoft", "sarif-multitool-"+runtime.GOOS, "Sarif.Multitool")
	if _, err := os.Stat(p); err != nil {
		return "", "the SARIF Multitool is not installed (scripts/sarif-multitool path installs it with npm; scripts/test does): " + err.Error()
	}
	return p, ""
}

// reportOfVerdict rebuilds a report from a replay golden verdict: each
// gate's outcome and title, and its failing findings by rule and path (the
// verdict keeps no lines or messages).
func reportOfVerdict(v *replay.Verdict) *report.Report {
	var rs []gates.Result
	for _, g := range v.Gates {
		r := gates.Result{Name: g.Name, Outcome: g.Outcome, Title: g.Title}
		for _, w := range g.Failing {
			for i := range w.Count {
				r.Findings = append(r.Findings, gates.Finding{Path: w.Path, Line: 1 + i, Rule: w.Rule, Severity: gates.SeverityError, Message: w.Rule + " on " + w.Path})
			}
		}
		rs = append(rs, r)
	}
	r := report.New(rs)
	r.Phase, r.PhaseSource, r.Base, r.Head = v.Phase, v.PhaseSource, v.Base, v.Head
	return r
}

// TestSARIFPassesGitHubIngestionRules runs the SARIF Multitool's validator
// with GitHub's ingestion rules (rule kind Ghas, the GH rules) and the SARIF
// rules over SARIF swarm-gate writes for the demo repository, for every
// replayed real pull request range (internal/replay's golden verdicts), and
// for a report with one finding of every rule in the catalogue; any result
// at level error fails. It skips when the tool is not installed.
func TestSARIFPassesGitHubIngestionRules(t *testing.T) {
	tool, why := sarifMultitool(t)
	if tool == "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	write := func(name string, r *report.Report) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := report.WriteSARIF(f, r, "1.2.3"); err != nil {
			t.Fatal(err)
		}
	}

	repo := t.TempDir()
	if _, _, err := demo.Build(repo); err != nil {
		t.Fatal(err)
	}
	r, err := pipeline.Check(context.Background(), pipeline.Options{RepoDir: repo, Base: demo.BaseBranch, Head: demo.HeadBranch})
	if err != nil {
		t.Fatal(err)
	}
	write("demo.sarif", r)

	golden, err := filepath.Glob(filepath.Join("..", "replay", "testdata", "golden", "*.json"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no replay golden verdicts: %v", err)
	}
	for _, name := range golden {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var v replay.Verdict
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		write("replay-"+strings.TrimSuffix(filepath.Base(name), ".json")+".sarif", reportOfVerdict(&v))
	}

	var all []gates.Finding
	for i, id := range gateRuleIDs(t) {
		all = append(all, gates.Finding{Path: "src/x.go", Line: i + 1, Rule: id, Severity: gates.SeverityError, Message: "finding of " + id})
	}
	write("catalogue.sarif", report.New([]gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Failed, Title: "t", Findings: all}}))

	out := filepath.Join(t.TempDir(), "validation.sarif") // not matched by the *.sarif below
	cmd := exec.Command(tool, "validate", "--rule-kind", "Sarif;Ghas", "--output", out, filepath.Join(dir, "*.sarif"))
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	console, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, console)
	}
	// "Done. 85 files scanned.": each file was read.
	if m := regexp.MustCompile(`Done\. (\d+) files? scanned`).FindSubmatch(console); m == nil || string(m[1]) != strconv.Itoa(len(golden)+2) {
		t.Errorf("the multitool did not scan the %d files:\n%s", len(golden)+2, console)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the multitool wrote no validation log: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("validation log: %v\n%s", err, b)
	}
	errs, warnings := 0, 0
	for _, res := range log.Runs[0].Results {
		where := ""
		if len(res.Locations) > 0 {
			where = filepath.Base(res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
		if res.Level != "error" { // absent: SARIF's default, warning
			warnings++
			continue
		}
		errs++
		t.Errorf("%s: %s %s %v", where, res.RuleID, res.Message.Text, res.Message.Arguments)
	}
	t.Logf("%d SARIF files validated with GitHub's ingestion rules: %d errors, %d warnings or notes", len(golden)+2, errs, warnings)
}
