package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Credentials are put together at run time so that no scanner of this
// repository sees one in its source.
var (
	testAWS   = "AKIA" + "QYLPMN5H" + "FIQR7XYA"
	testAWS2  = "AKIA" + "ZT3KQW6R" + "MV2LNX4B"
	testGHPAT = "ghp_" + "Kx82hQz0LmN4pR7s" + "T1vW3yB5dF9gJ2kA6cE8"
)

// TestCheckSecrets runs swarm/sast's secret scan end to end: a key added
// to a README fails at high severity; one under a test path is low (not
// failing) with the reason; one whose value the merge base's file already
// has is pre-existing; a secret on a line the pull request does not add is
// not reported; a gitleaks:allow comment does not hide a finding.
func TestCheckSecrets(t *testing.T) {
	base := map[string]string{
		".swarm/plan.json": miniPlan,
		"config/app.env":   "REGION=eu\nAWS_ACCESS_KEY_ID=" + testAWS2 + "\n",
		"notes.txt":        "old line with " + testAWS2 + "\n",
	}
	cases := []struct {
		name    string
		head    map[string]string
		want    gates.Outcome
		errors  []string // path:line of failing findings
		mention string
	}{
		{"a key added to a README", map[string]string{"README.md": "# App\n\nLog in with `" + testAWS + "`.\n"},
			gates.Failed, []string{"README.md:3"}, "secret/aws-access-token (high, new)"},
		{"a key in a test file is low", map[string]string{"tests/test_login.py": "KEY = \"" + testAWS + "\"\n"},
			gates.Passed, nil, "low severity: under tests/, a test path"},
		{"a key in a *_test.go file is low", map[string]string{"app/login_test.go": "package app\n\nconst key = \"" + testAWS + "\"\n"},
			gates.Passed, nil, "a test file (*_test.*)"},
		{"a value already on the merge base is pre-existing", map[string]string{"config/app.env": "REGION=us\nAWS_ACCESS_KEY_ID=" + testAWS2 + "\n# rotated: " + testAWS2 + "\n"},
			gates.Passed, nil, "**Pre-existing**: 1"},
		{"a secret on a line the pull request does not add", map[string]string{"notes.txt": "old line with " + testAWS2 + "\nnew line\n"},
			gates.Passed, nil, "**New**: 0."},
		{"gitleaks:allow does not hide a finding", map[string]string{"deploy.sh": "export GH_TOKEN=" + testGHPAT + " # gitleaks:allow\n"},
			gates.Failed, []string{"deploy.sh:1"}, "secret/github-pat"},
		// A file named after a credential: its path is masked wherever a
		// finding or the unscanned list prints it (issue 20).
		{"a key in a file named after a key", map[string]string{"config/" + testAWS + ".txt": "AWS_ACCESS_KEY_ID=" + testAWS2 + "\n"},
			gates.Failed, []string{"config/AK…(20).txt:1"}, "secret/aws-access-token (high, new)"},
		{"a code file named after a token, too large to scan", map[string]string{"src/" + testGHPAT + ".js": strings.Repeat("var a = 1;\n", 60_000), "src/ok.js": "var b = 2;\n"},
			gates.Failed, []string{"src/gh…(40).js:0"}, "src/gh…(40).js is over the scanner's 512 KiB limit"},
		{"a key in a .env that a NUL byte makes binary", map[string]string{"config/prod.env": "REGION=eu\x00\nAWS_ACCESS_KEY_ID=" + testAWS + "\n"},
			gates.Failed, []string{"config/prod.env:2"}, "secret/aws-access-token (high, new)"},
		{"a NUL-text file's value already on the merge base is pre-existing", map[string]string{"config/app.env": "REGION=us\x00\nAWS_ACCESS_KEY_ID=" + testAWS2 + "\n"},
			gates.Passed, nil, "**Pre-existing**: 1"},
		{"binary in earnest stays skipped", map[string]string{"data/blob.bin": "\x01\x02\x00\xff\xfeAWS_ACCESS_KEY_ID=" + testAWS + "\n"},
			gates.NotApplicable, nil, "no code files"},
		{"a PEM private key in a doc", map[string]string{"docs/setup.md": "Key:\n\n-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEAwJ0sQ0Yk0m0g2Bq3m0G2bq3GJk2yqW0t4o+ZC8Cq8tZ1Vb2X\nq8tZ1Vb2Xq8tZ1Vb2XwJ0sQ0Yk0m0g2Bq3m0G2bq3GJk2yqW0t4o+ZC8Cq8tZ1Vb2X\n-----END RSA " + "PRIVATE KEY-----\n"},
			gates.Failed, []string{"docs/setup.md:3"}, "secret/private-key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.commit("", base)
			r.commit("swarm/phase-1", c.head)
			rep, logs := checkSAST(t, r)
			g := rep.Gates[0]
			if g.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%+v\n%s", g.Outcome, g.Title, c.want, g.Findings, g.Summary)
			}
			var errs []string
			for _, f := range g.Findings {
				if f.Severity == gates.SeverityError {
					errs = append(errs, fmt.Sprintf("%s:%d", f.Path, f.Line))
				}
			}
			if strings.Join(errs, " ") != strings.Join(c.errors, " ") {
				t.Errorf("failing findings at %v, want %v\n%+v", errs, c.errors, g.Findings)
			}
			all := g.Title + "\n" + g.Summary
			for _, f := range g.Findings {
				all += "\n" + f.Message
			}
			if !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
			assertMasked(t, rep, logs)
		})
	}
}

func checkSAST(t *testing.T, r *repo) (*report.Report, string) {
	t.Helper()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-1", Phase: 1,
		Gates: []gates.Gate{gates.SAST{}}, DiffEngine: "go-git", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	return rep, logs.String()
}

// assertMasked: no output format shows a credential: the JSON report,
// SARIF, the Markdown summary, the text report, the check run's output
// and annotations, workflow-command annotations, and the debug log.
func assertMasked(t *testing.T, rep *report.Report, logs string) {
	t.Helper()
	outputs := map[string]string{"log": logs}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	outputs["json"] = b.String()
	b.Reset()
	if err := report.WriteSARIF(&b, rep, "test"); err != nil {
		t.Fatal(err)
	}
	outputs["sarif"] = b.String()
	b.Reset()
	if err := report.WriteMarkdown(&b, rep, 100); err != nil {
		t.Fatal(err)
	}
	outputs["markdown"] = b.String()
	b.Reset()
	if err := report.WriteText(&b, rep, 100); err != nil {
		t.Fatal(err)
	}
	outputs["text"] = b.String()
	out := ghapi.Output(rep.Gates[0], outputs["markdown"])
	j, _ := json.Marshal(out)
	outputs["check run output and annotations"] = string(j)
	b.Reset()
	l := actions.NewLog(&b)
	for _, f := range rep.Gates[0].Findings {
		if err := l.Annotate(actions.Annotation{Level: actions.LevelError, Title: "swarm/sast: " + f.Rule, File: f.Path, Line: f.Line, Message: f.Message}); err != nil {
			t.Fatal(err)
		}
	}
	outputs["workflow annotations"] = b.String()
	for name, text := range outputs {
		for _, secret := range []string{testAWS, testAWS2, testGHPAT, "MIIEowIBAAKCAQEAwJ0sQ0Yk0m0g2Bq3m0G2bq3GJk2yqW0t4o"} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s output shows a secret:\n%s", name, text)
			}
		}
	}
}
