package gates

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// sastScan builds the SASTScan the pipeline would: the refined rules on
// head and merge-base contents of the given files.
func sastScan(t *testing.T, base, head map[string]string) *SASTScan {
	t.Helper()
	s := &SASTScan{Skipped: map[string]int{}}
	for p, c := range head {
		fs, dismissed, skipped := ScanSASTFile(p, []byte(c))
		if skipped != "" {
			s.Skipped[skipped]++
			continue
		}
		s.Scanned++
		s.Head = append(s.Head, fs...)
		s.Dismissed = append(s.Dismissed, dismissed...)
		if old, ok := base[p]; ok {
			bf, _, _ := ScanSASTFile(p, []byte(old))
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

const goBase = "package main\n\nimport \"os/exec\"\n\nfunc run(dir string) {\n\t_ = exec.Command(\"ls\", dir)\n}\n"

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
			map[string]string{"app/run.go": goBase + "\nfunc run2(dir string) {\n\t_ = exec.Command(\"ls\", dir)\n}\n"},
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
		{"a changed file that cannot be read", &SASTScan{Scanned: 1, Unreadable: []SkippedFile{{Path: "src/a.ts", Reason: "reading blob 1234: object not found"}}}, "1 changed file could not be read for scanning: src/a.ts"},
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
	t.Run("a code file over 512 KiB beside one scanned fails closed, unless limits.unscanned: warn", func(t *testing.T) {
		head := map[string]string{"a.go": "package a\n"}
		warn := DefaultConfig()
		warn.Limits.WarnUnscanned = true
		for _, c := range []struct {
			cfg  *Config
			want Outcome
			sev  Severity
		}{{nil, Failed, SeverityError}, {warn, Passed, SeverityWarning}} {
			scan := sastScan(t, nil, head)
			scan.TooLarge = []string{"big.go"}
			r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: diffOf(nil, head), Config: c.cfg})
			if r.Outcome != c.want || len(r.Findings) != 1 || r.Findings[0].Severity != c.sev || !strings.Contains(r.Title, "1 file over 512 KiB") {
				t.Fatalf("outcome %s %q, want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
		}
	})
	t.Run("a code file too large to scan fails closed, unless limits.unscanned: warn", func(t *testing.T) {
		head := map[string]string{"a.go": "package a\n"}
		warn := DefaultConfig()
		warn.Limits.WarnUnscanned = true
		for _, c := range []struct {
			cfg  *Config
			want Outcome
			sev  Severity
		}{{nil, Failed, SeverityError}, {warn, Passed, SeverityWarning}} {
			scan := sastScan(t, nil, head)
			scan.TooLargeToScan = []string{"huge.go"}
			cs := diffOf(nil, head)
			cs.Files = append(cs.Files, changeset.File{Status: changeset.Added, NewPath: "huge.go", Size: 20 << 20, TooLarge: true})
			r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: cs, Config: c.cfg})
			if r.Outcome != c.want || len(r.Findings) != 1 || r.Findings[0].Rule != RuleTooLargeToScan || r.Findings[0].Severity != c.sev ||
				!strings.Contains(r.Findings[0].Message, "too large to scan: 20971520 bytes") || !strings.Contains(r.Title, "too large to scan") {
				t.Fatalf("outcome %s %q, want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
		}
	})
	t.Run("a too-large Markdown file is a changed file, not a code file, in the title", func(t *testing.T) {
		head := map[string]string{"a.go": "package a\n"}
		scan := sastScan(t, nil, head)
		scan.TooLargeToScan = []string{"keys.md"}
		cs := diffOf(nil, head)
		cs.Files = append(cs.Files, changeset.File{Status: changeset.Added, NewPath: "keys.md", Size: 20 << 20, TooLarge: true})
		r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: scan, Changes: cs})
		if r.Outcome != Failed || !strings.HasPrefix(r.Title, "1 changed file could not be scanned") {
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

// sastCase is one pull request for swarm/sast: base and head contents,
// the outcome, the number of failing findings, and what the output must
// mention.
type sastCase struct {
	name       string
	base, head map[string]string
	want       Outcome
	errors     int
	mention    string
}

func runSASTCases(t *testing.T, cases []sastCase, threshold sast.Severity) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if threshold != "" {
				cfg.SAST.Threshold = threshold
			}
			r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: sastScan(t, c.base, c.head), Changes: diffOf(c.base, c.head), Config: cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if n := len(failingFindings(r.Findings)); n != c.errors {
				t.Errorf("%d failing findings, want %d:\n%s", n, c.errors, findingsText(r))
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// TestSASTRefinedRules: the false alarms of real pull requests (the
// judged replay ranges) and the real findings next to them, through the
// lexer swarm/sast shares with swarm/placeholders.
func TestSASTRefinedRules(t *testing.T) {
	added := func(p, c string) (map[string]string, map[string]string) {
		return map[string]string{p: ""}, map[string]string{p: c}
	}
	row := func(name, p, content string, want Outcome, errors int, mention string) sastCase {
		base, head := added(p, content)
		return sastCase{name, base, head, want, errors, mention}
	}
	runSASTCases(t, []sastCase{
		// IMU-Parkinson generate_paper_v5.py:1710: prose in an HTML f-string.
		row(`"strict inductive eval (" in a triple-quoted f-string`, "generate_paper_v5.py",
			"def abstract(t1):\n    return f\"\"\"\n      <p>pipelines and report under strict inductive eval (subject-level LOOCV with a fold-local\n      imputation) CCC = {t1['ccc']:.3f}</p>\n\"\"\"\n",
			Passed, 0, "in a comment or string literal, not code"),
		// opencode-swarm src/lang/profiles.ts:991.
		row("eval() in a reviewer checklist string", "src/lang/profiles.ts",
			"export const php = {\n\treviewerChecklist: [\n\t\t'Confirm no eval(), exec(), or shell_exec() with user-controlled input',\n\t],\n};\n",
			Passed, 0, "**Dismissed**"),
		row("eval( in a comment", "a.py", "# never eval(user_input) here\nx = 1\n", Passed, 0, "**Dismissed**"),
		row("a real eval after a docstring that mentions eval(", "calc.py",
			"def calc(expr):\n    \"\"\"Evaluate expr; unlike eval( it is safe.\n    \"\"\"\n    return eval(expr)\n",
			Failed, 1, "(high, new): eval() allows arbitrary code execution: return eval(expr)"),
		row("eval inside a template literal's interpolation is code", "a.ts", "const s = `result: ${eval(userInput)}`;\n", Failed, 1, "sast/js-eval (high, new)"),
		row("model.eval() and .to(device).eval() (PyTorch)", "cache_item9_event_moment.py",
			"def embed(model, device):\n    model.eval()\n    model = model.to(device).eval()\n    trunk.eval(); main_head.eval()\n",
			Passed, 0, "**Dismissed** (the rule's match is not what it means; never gating): 4"),
		row("a hardcoded secret in a comment is still a finding", "settings.py",
			"# API_KEY = \"abcdefghijklmnopqrstuvwxyz\"\nAPI_KEY = os.environ[\"API_KEY\"]\n", Failed, 1, "sast/py-hardcoded-secret (critical, new)"),
		// synapse_download_pd_only.py:53.
		row(`os.system(f"du -sh {OUT_ROOT}")`, "synapse_download_pd_only.py",
			"OUT_ROOT = Path(\"/data/synapse\")\nos.system(f\"du -sh {OUT_ROOT}\")\n", Passed, 0, "sast/py-os-system (low, new)"),
		row(`os.system(f"rm -rf {path}")`, "clean.py", "def clean(path):\n    os.system(f\"rm -rf {path}\")\n", Failed, 1, "sast/py-os-system (critical, new)"),
		// Frontend_1er_modulo src/lib/excel-to-image.ts:685 and :633.
		row("td.innerHTML = '&nbsp;'", "src/lib/excel-to-image.ts",
			"if (td.textContent.trim() === '') {\n  td.innerHTML = '&nbsp;'\n}\n", Passed, 0, "a string literal without interpolation"),
		row("wrapper.innerHTML = html", "src/lib/excel-to-image.ts", "const html = XLSX.utils.sheet_to_html(ws)\nwrapper.innerHTML = html\n", Failed, 1, "sast/js-innerhtml (medium, new)"),
		// ragapp backend/app/models/database.py:234.
		row(`conn.execute(f"PRAGMA table_info({table})")`, "backend/app/models/database.py",
			"def _column_exists(table: str, column: str) -> bool:\n    cursor = conn.execute(f\"PRAGMA table_info({table})\")\n    return any(row[1] == column for row in cursor.fetchall())\n",
			Passed, 0, "check they are allow-listed"),
		row("a value interpolated into WHERE", "backend/app/models/database.py",
			"def get_file(file_id):\n    cursor = conn.execute(f\"SELECT * FROM files WHERE id = {file_id}\")\n",
			Failed, 1, "sast/py-sql-injection (critical, new)"),
	}, "")
}

// migration is ragapp's migrate_add_vaults helper (database.py at
// e12857d1), with its line numbers kept apart from the code around it.
const migration = "def migrate_add_vaults(sqlite_path: str) -> None:\n" +
	"    conn = sqlite3.connect(sqlite_path)\n" +
	"    try:\n" +
	"        def _column_exists(table: str, column: str) -> bool:\n" +
	"            cursor = conn.execute(f\"PRAGMA table_info({table})\")\n" +
	"            return any(row[1] == column for row in cursor.fetchall())\n" +
	"\n" +
	"        if not _column_exists(\"files\", \"vault_id\"):\n" +
	"            conn.execute(\"ALTER TABLE files ADD COLUMN vault_id INTEGER NOT NULL DEFAULT 1\")\n" +
	"    finally:\n" +
	"        conn.close()\n"

// TestSASTMovedAndCopied: cards B15 and the ragapp range 73. A finding
// whose line moved is not new; a copy of it that the pull request adds is,
// and says where the original is. The threshold is low so that any new
// finding fails.
func TestSASTMovedAndCopied(t *testing.T) {
	const db = "backend/app/models/database.py"
	pad := func(n int) string { return strings.Repeat("conn.execute(\"PRAGMA busy_timeout=30000;\")\n", n) }
	copied := strings.Replace(migration, "migrate_add_vaults", "migrate_add_email_columns", 1)
	yamlBase := "def load(path):\n    data = open(path).read()\n    return yaml.load(data)\n"
	yamlHead := "def load(path):\n    data = open(path, encoding=\"utf-8\").read()\n    return yaml.load(data)\n"
	runSASTCases(t, []sastCase{
		{"the helper moved 50 lines down unchanged", map[string]string{db: migration}, map[string]string{db: pad(50) + migration},
			Passed, 0, "**New**: 0"},
		{"range 73: the helper shifted and a copy in a new function", map[string]string{db: migration}, map[string]string{db: pad(10) + migration + "\n\n" + copied},
			Failed, 1, "the same line is at " + db + ":15, which was already there: this is a copy the pull request adds"},
		{"B15: an edit on the line above an old finding", map[string]string{"app/config.py": yamlBase}, map[string]string{"app/config.py": yamlHead},
			Passed, 0, "**Moved** (same code, other line; never gating): 1"},
		{"B15 control: a second yaml.load is new", map[string]string{"app/config.py": yamlBase}, map[string]string{"app/config.py": yamlHead + "\ndef load_extra(extra):\n    return yaml.load(extra)\n"},
			Failed, 1, "(high, new): yaml.load() without SafeLoader can execute arbitrary code: return yaml.load(extra)"},
	}, sast.Low)
}

// TestSASTGeneratedFiles: files the pipeline did not scan as generated,
// vendored or minified are listed once, and never make the result read as
// a clean pass.
func TestSASTGeneratedFiles(t *testing.T) {
	gen := func(n int) []SkippedFile {
		var out []SkippedFile
		for i := range n {
			out = append(out, SkippedFile{Path: fmt.Sprintf("dist/agents/a%02d.d.ts", i), Reason: "build output (dist/)"})
		}
		return out
	}
	head := map[string]string{"src/index.ts": "export const a = 1;\n"}
	for _, c := range []struct {
		name      string
		scan      *SASTScan
		want      Outcome
		title     string
		mentions  []string
		listedOne string // a path that must appear exactly once
	}{
		{"only generated code changed", &SASTScan{Skipped: map[string]int{}, Generated: gen(1)}, NotApplicable,
			"nothing scanned: the changed code is all generated, vendored or minified (1 file not scanned)",
			[]string{"`dist/agents/a00.d.ts`: build output (dist/)"}, "dist/agents/a00.d.ts"},
		{"scanned files and generated ones", withGenerated(sastScan(t, nil, head), gen(3)), Passed,
			"no new security findings at or above medium in 1 scanned file; 3 files generated, vendored or minified not scanned by the built-in rules",
			[]string{"**Not scanned by the built-in rules** (their added lines are still scanned for secrets): 3 changed files are generated", "3 generated, vendored or minified, listed below"}, "dist/agents/a02.d.ts"},
		{"twelve generated files: ten named", withGenerated(sastScan(t, nil, head), gen(12)), Passed, "12 files generated",
			[]string{"dist/agents/a09.d.ts", "- … and 2 more"}, "dist/agents/a00.d.ts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: c.scan, Changes: diffOf(nil, head)})
			if r.Outcome != c.want || !strings.Contains(r.Title, c.title) {
				t.Fatalf("outcome %s %q, want %s %q\n%s", r.Outcome, r.Title, c.want, c.title, r.Summary)
			}
			for _, m := range c.mentions {
				if !strings.Contains(r.Summary, m) {
					t.Errorf("summary does not mention %q:\n%s", m, r.Summary)
				}
			}
			if n := strings.Count(r.Summary, c.listedOne); n != 1 {
				t.Errorf("%s listed %d times:\n%s", c.listedOne, n, r.Summary)
			}
			if strings.Contains(r.Summary, "dist/agents/a10.d.ts") {
				t.Errorf("more than ten named:\n%s", r.Summary)
			}
		})
	}
}

func withGenerated(s *SASTScan, g []SkippedFile) *SASTScan {
	s.Generated = g
	return s
}
