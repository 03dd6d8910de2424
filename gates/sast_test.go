package gates

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// sastScan builds the SASTScan the pipeline would: the rules on head and
// merge-base contents of the given files.
func sastScan(t *testing.T, base, head map[string]string) *SASTScan {
	t.Helper()
	s := &SASTScan{Skipped: map[string]int{}}
	for p, c := range head {
		fs, skipped := sast.ScanFile(p, []byte(c))
		if skipped != "" {
			s.Skipped[skipped]++
			continue
		}
		s.Scanned++
		sast.FingerprintFile(fs, []byte(c))
		s.Head = append(s.Head, fs...)
		if old, ok := base[p]; ok {
			bf, _ := sast.ScanFile(p, []byte(old))
			sast.FingerprintFile(bf, []byte(old))
			s.MergeBase = append(s.MergeBase, bf...)
		}
	}
	return s
}

// diffOf returns a change set adding the lines of head that are not in base
// (by line number, enough for these cases).
func diffOf(base, head map[string]string) *changeset.ChangeSet {
	cs := &changeset.ChangeSet{}
	for p, c := range head {
		old := strings.Split(base[p], "\n")
		f := changeset.File{Status: changeset.Modified, OldPath: p, NewPath: p}
		if _, ok := base[p]; !ok {
			f.Status, f.OldPath = changeset.Added, ""
		}
		for i, l := range strings.Split(c, "\n") {
			if i >= len(old) || old[i] != l {
				f.Added = append(f.Added, changeset.AddedLine{Line: i + 1, Text: l})
			}
		}
		cs.Files = append(cs.Files, f)
	}
	return cs
}

const goBase = "package main\n\nimport \"os/exec\"\n\nfunc run() {\n\t_ = exec.Command(\"ls\")\n}\n"

func TestSAST(t *testing.T) {
	cases := []struct {
		name    string
		base    map[string]string
		head    map[string]string
		cfg     func(*SASTConfig)
		want    Outcome
		errors  int
		mention string
	}{
		{"a new exec.Command fails with one annotation",
			map[string]string{"app/main.go": "package main\n\nfunc main() {}\n"},
			map[string]string{"app/main.go": "package main\n\nimport \"os/exec\"\n\nfunc main() {\n\t_ = exec.Command(\"sh\", \"-c\", x)\n}\n"},
			nil, Failed, 1, "sast/go-shell-injection (critical, new)"},
		{"existing code moved down is not new",
			map[string]string{"app/run.go": goBase},
			map[string]string{"app/run.go": strings.Replace(goBase, "import \"os/exec\"\n", "import \"os/exec\"\n\n// docs\n// more docs\n", 1)},
			nil, Passed, 0, "**New**: 0"},
		{"a second identical finding is new",
			map[string]string{"app/run.go": goBase},
			map[string]string{"app/run.go": goBase + "\nfunc run2() {\n\t_ = exec.Command(\"ls\")\n}\n"},
			nil, Failed, 1, "sast/go-shell-injection"},
		{"below the threshold is a warning",
			map[string]string{"app/x.py": "x = 1\n"},
			map[string]string{"app/x.py": "x = 1\nassert x\n"},
			nil, Passed, 0, "below the medium threshold"},
		{"a high threshold lets a medium through",
			map[string]string{"app/tls.go": "package app\n"},
			map[string]string{"app/tls.go": "package app\n\nvar c = tls.Config{InsecureSkipVerify: true}\n"},
			func(c *SASTConfig) { c.Threshold = sast.High }, Passed, 0, "sast/go-weak-tls"},
		{"non-code files only",
			map[string]string{"README.md": "a\n"},
			map[string]string{"README.md": "a\nb\n"},
			nil, NotApplicable, 0, "no code files"},
		{"a secret is masked",
			map[string]string{"cfg/k.go": "package cfg\n"},
			map[string]string{"cfg/k.go": "package cfg\n\nvar authToken = \"" + fakeStripeKey + "\"\n"},
			nil, Failed, 1, "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if c.cfg != nil {
				c.cfg(&cfg.SAST)
			}
			in := &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: sastScan(t, c.base, c.head), Changes: diffOf(c.base, c.head), Config: cfg}
			r := eval(SAST{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if n := len(failingFindings(r.Findings)); n != c.errors {
				t.Errorf("%d failing findings, want %d:\n%s", n, c.errors, findingsText(r))
			}
			all := r.Title + "\n" + r.Summary + "\n" + findingsText(r)
			if !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
			if strings.Contains(all, fakeStripeKey) {
				t.Errorf("the secret leaks into the output:\n%s", all)
			}
		})
	}
}

// TestSASTBaselineFile: the merge base's baseline file is the baseline; a
// fingerprint the pull request adds to its own copy does not launder a
// finding, and needs a rationale.
func TestSASTBaselineFile(t *testing.T) {
	head := map[string]string{"app/main.go": "package main\n\nimport \"os/exec\"\n\nfunc main() {\n\t_ = exec.Command(\"sh\", \"-c\", x)\n}\n"}
	s := sastScan(t, nil, head)
	if len(s.Head) != 1 {
		t.Fatalf("%d findings", len(s.Head))
	}
	fp, rk := s.Head[0].Fingerprint, s.Head[0].ReflowKey
	baseline := func(fps, rks []string, triage string) *sast.Baseline {
		data := `{"schema_version":"1.1.0","phase":1,"created_at":"x","updated_at":"x","engine":"tier_a","files_indexed":["app/main.go"],"fingerprints":` + jsonList(fps) + `,"reflow_keys":` + jsonList(rks) + `,"findings_snapshot":[],"triage_log":[` + triage + `],"truncated":false}`
		b, err := sast.ParseBaseline(sast.BaselinePath(1), []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	empty := baseline(nil, nil, "")
	withFP := baseline([]string{fp}, []string{rk}, `{"fingerprint":"`+fp+`","rel_file":"app/main.go","rule_id":"sast/go-shell-injection","rationale":"needed for the build","actor":"ses_agent","absorbed_at":"x"}`)
	noWhy := baseline([]string{fp}, []string{rk}, "")
	cases := []struct {
		name         string
		base, headBL *sast.Baseline
		accept       bool
		want         Outcome
		mention      string
	}{
		{"in the merge base's baseline: pre-existing", withFP, withFP, false, Passed, "**Pre-existing**: 1"},
		{"added to the pull request's own baseline: still new", empty, withFP, false, Failed, `the pull request added it to its own baseline (triage by ses_agent: "needed for the build")`},
		{"added with a rationale, policy accepts agent triage", empty, withFP, true, Passed, "Accepted by agent triage"},
		{"added without a rationale", empty, noWhy, true, Failed, "without a triage rationale"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scan := sastScan(t, nil, head)
			scan.BaseBaseline, scan.HeadBaseline = c.base, c.headBL
			cfg := DefaultConfig()
			cfg.SAST.AcceptTriage = c.accept
			r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: diffOf(nil, head), Config: cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if all := r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

func jsonList(items []string) string {
	if len(items) == 0 {
		return "[]"
	}
	return `["` + strings.Join(items, `","`) + `"]`
}

// TestSASTSARIF: SARIF results are new on added lines, pre-existing
// elsewhere; an in-source suppression on an added line does not count.
func TestSASTSARIF(t *testing.T) {
	head := map[string]string{"cmd/a.go": "package main\n\nfunc f() {\n\tg()\n\th()\n}\n"}
	base := map[string]string{"cmd/a.go": "package main\n\nfunc f() {\n\tg()\n}\n"}
	scan := sastScan(t, base, head)
	scan.Head = append(scan.Head,
		sast.Finding{RuleID: "G104", Severity: sast.Medium, Message: "Errors unhandled", File: "cmd/a.go", Line: 4, Engine: "gosec"},
		sast.Finding{RuleID: "G104", Severity: sast.Medium, Message: "Errors unhandled", File: "cmd/a.go", Line: 5, Engine: "gosec", SuppressedInSource: true})
	scan.SARIFFiles, scan.SARIFKept = []string{"gosec.sarif"}, 2
	r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: diffOf(base, head)})
	if r.Outcome != Failed || len(r.Findings) != 1 || r.Findings[0].Line != 5 || !strings.Contains(r.Findings[0].Message, "in-source suppression") {
		t.Fatalf("outcome %s\n%s\n%s", r.Outcome, findingsText(r), r.Summary)
	}
}

func TestSASTFailsClosed(t *testing.T) {
	_, err := sast.ParseBaseline(sast.BaselinePath(1), []byte("{not json"))
	for _, c := range []struct {
		name string
		scan *SASTScan
		want string
	}{
		{"no scan", nil, "not computed"},
		{"unreadable base baseline", &SASTScan{Scanned: 1, BaseBaselineErr: err}, ".swarm/evidence/1/sast-baseline.json"},
		{"unreadable SARIF", &SASTScan{Scanned: 1, SARIFErr: err}, "drop the --sarif flag"},
		{"forced file mode without a file", &SASTScan{Scanned: 1}, "sast.baseline: file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.SAST.Baseline = SASTBaselineFile
			r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: c.scan, Config: cfg})
			if r.Outcome != Error || !strings.Contains(r.Title, c.want) {
				t.Errorf("outcome %s, title %q", r.Outcome, r.Title)
			}
		})
	}
}

// TestSASTFromABreakingPass has a row per problem a tester found.
func TestSASTFromABreakingPass(t *testing.T) {
	vuln := "package a\n\nimport \"os/exec\"\n\nfunc A() {\n\texec.Command(\"ls\").Run()\n}\n"
	other := map[string]string{"c.go": "package c\n"}
	indexOnlyC := func(t *testing.T) *sast.Baseline {
		b, err := sast.ParseBaseline(sast.BaselinePath(1), []byte(`{"schema_version":"1.1.0","phase":1,"created_at":"x","updated_at":"x","engine":"tier_a","files_indexed":["c.go"],"fingerprints":[],"reflow_keys":[],"findings_snapshot":[],"triage_log":[],"truncated":false}`))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Run("a file the baseline file does not index is compared with the merge base", func(t *testing.T) {
		base := map[string]string{"a.go": vuln, "c.go": other["c.go"]}
		head := map[string]string{"a.go": vuln + "\nfunc B() {}\n"}
		scan := sastScan(t, base, head)
		scan.BaseBaseline = indexOnlyC(t)
		r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: diffOf(base, head)})
		if r.Outcome != Passed || !strings.Contains(r.Summary, "compared with the merge base's version") {
			t.Fatalf("outcome %s\n%s\n%s", r.Outcome, findingsText(r), r.Summary)
		}
	})
	t.Run("a renamed file keeps its findings even with a baseline file", func(t *testing.T) {
		scan := sastScan(t, map[string]string{"b.go": vuln}, map[string]string{"b.go": vuln})
		scan.BaseBaseline = indexOnlyC(t)
		cs := &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Renamed, OldPath: "a.go", NewPath: "b.go", Similarity: 100}}}
		r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: cs})
		if r.Outcome != Passed {
			t.Fatalf("outcome %s\n%s", r.Outcome, findingsText(r))
		}
	})
	t.Run("only code files over the size limit: zero coverage fails", func(t *testing.T) {
		scan := &SASTScan{Skipped: map[string]int{sast.SkipTooLarge: 1}, TooLarge: []string{"big.go"}}
		r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: &changeset.ChangeSet{}})
		if r.Outcome != Failed || !hasRule(r, RuleSASTNotScanned) || !strings.Contains(r.Title, "zero files were scanned") {
			t.Fatalf("outcome %s %q\n%s", r.Outcome, r.Title, findingsText(r))
		}
	})
	t.Run("a SARIF region that ends on an added line is new; its secret is masked", func(t *testing.T) {
		base := map[string]string{"a.go": "package a\n\nfunc f() {\n}\n"}
		head := map[string]string{"a.go": "package a\n\nfunc f() {\n\tg()\n}\n"}
		scan := sastScan(t, base, head)
		scan.Head = append(scan.Head, sast.Finding{RuleID: "gitleaks", Severity: sast.High, Message: "Secret: " + fakeGitHubShort + " detected", File: "a.go", Line: 3, EndLine: 5, Engine: "gitleaks"})
		r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: diffOf(base, head)})
		if r.Outcome != Failed || len(r.Findings) != 1 || strings.Contains(findingsText(r), fakeGitHubShort) {
			t.Fatalf("outcome %s\n%s", r.Outcome, findingsText(r))
		}
	})
}
