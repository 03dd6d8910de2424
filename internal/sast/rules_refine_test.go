package sast

import (
	"strings"
	"testing"
)

// refineCases are lines from real pull requests (and the shapes around
// them) with what Refine must make of the rule's findings on them: "" for
// dismissed, else the severity that stands. Whether a match is in a
// comment or string needs a lexer, which this package does not have: those
// rows are in gates (TestSASTRefinedRules).
var refineCases = []struct {
	name, rule, path, line string
	want                   []Severity // one per finding of the rule on the line
}{
	// PyTorch's nn.Module.eval() is no builtin (IMU-Parkinson).
	{"model.eval()", "py-eval", "cache_harnet_embeddings.py", "    model.eval()", []Severity{""}},
	{".to(device).eval()", "py-eval", "cache_item9_event_moment.py", "    model = model.to(device).eval()", []Severity{""}},
	{"trunk.eval(); main_head.eval()", "py-eval", "run_t3_iter54_dann_tier2.py", "        trunk.eval(); main_head.eval()", []Severity{"", ""}},
	{"model.feature_extractor.eval()", "py-eval", "run_t1_iter37_harnet_finetune.py", "    model.feature_extractor.eval()", []Severity{""}},
	{"a method definition", "py-eval", "m.py", "    def eval(self, x):", []Severity{""}},
	{"the builtin", "py-eval", "a.py", "x = eval(expr)", []Severity{High}},
	{"the builtin through builtins", "py-eval", "a.py", "x = builtins.eval(expr)", []Severity{High}},
	{"the builtin after a lambda's colon", "py-eval", "a.py", "f = lambda s: eval(s)", []Severity{High}},
	{"PyQt's app.exec()", "py-exec", "gui.py", "    sys.exit(app.exec())", []Severity{""}},
	{"the exec builtin", "py-exec", "a.py", "exec(code, namespace)", []Severity{High}},
	{"window.eval is the builtin", "js-eval", "a.js", "const r = window.eval(src);", []Severity{High}},
	{"AngularJS $scope.$eval", "js-eval", "a.js", "const v = $scope.$eval(attrs.expr);", []Severity{""}},
	{"a class method named eval", "js-eval", "a.ts", "  eval(input: string) {", []Severity{""}},
	{"an object method named eval", "js-eval", "a.js", "  eval(input) {", []Severity{""}},
	{"the js builtin", "js-eval", "a.js", "const r = eval(input);", []Severity{High}},
	{"the js builtin inside an if", "js-eval", "a.js", "if (eval(cond)) {", []Severity{High}},
	{"a PHP method", "php-eval", "a.php", "$this->eval($expr);", []Severity{""}},
	{"a PHP static method", "php-eval", "a.php", "return Parser::eval($x);", []Severity{""}},
	{"PHP concatenation is a call", "php-eval", "a.php", "$r = 'a' . eval($code);", []Severity{Critical}},

	// A shell command built only from literals and constants
	// (synapse_download_pd_only.py), against one that interpolates a name.
	{"os.system(f\"du -sh {OUT_ROOT}\")", "py-os-system", "synapse_download_pd_only.py", `os.system(f"du -sh {OUT_ROOT}")`, []Severity{Low}},
	{"os.system(literal)", "py-os-system", "a.py", `    os.system("clear")`, []Severity{Low}},
	{"constants concatenated", "py-os-system", "a.py", `os.system("du -sh " + OUT_ROOT)`, []Severity{Low}},
	{"constants %-formatted", "py-os-system", "a.py", `os.system("cp %s %s" % (SRC_DIR, DST_DIR))`, []Severity{Low}},
	{"constants .format()ed", "py-os-system", "a.py", `os.system("tar czf {}.tgz".format(OUT_ROOT))`, []Severity{Low}},
	{"an f-string with a variable", "py-os-system", "a.py", `os.system(f"rm -rf {path}")`, []Severity{Critical}},
	{"a constant's attribute", "py-os-system", "a.py", `os.system(f"du -sh {OUT_ROOT.parent}")`, []Severity{Critical}},
	{"concatenated with a variable", "py-os-system", "a.py", `os.system("ls " + user_dir)`, []Severity{Critical}},
	{"a variable", "py-os-system", "a.py", "os.system(cmd)", []Severity{Critical}},
	{"a call", "py-os-system", "a.py", `os.system(BUILD_CMD(target))`, []Severity{Critical}},
	{"a call that goes on below", "py-os-system", "a.py", "os.system(", []Severity{Critical}},
	{"another module's system", "py-os-system", "a.py", `chaos.system("x")`, []Severity{""}},
	{"shell=True on a literal", "py-shell-injection", "a.py", `subprocess.run("ls -la /tmp", shell=True, check=True)`, []Severity{Low}},
	{"shell=True on a variable", "py-shell-injection", "a.py", "subprocess.run(cmd, shell=True)", []Severity{Critical}},
	{"shell=True on an f-string", "py-shell-injection", "a.py", `subprocess.run(f"git log {ref}", shell=True)`, []Severity{Critical}},
	{"shell=True on its own line", "py-shell-injection", "a.py", "    shell=True,", []Severity{Critical}},
	{"exec of a literal", "js-command-injection", "a.js", `exec("git status", (err, out) => done(out));`, []Severity{Low}},
	{"exec of a literal, the call going on below", "js-command-injection", ".omp/tools/file-count/index.js", `const { stdout } = await exec("find", [cwd, "-type", "f", "-name", pattern], {`, []Severity{Low}},
	{"exec of a variable, the call going on below", "js-command-injection", "start-app.cjs", "const vite = exec(`\"${cmd}\" ${args.join(' ')}`, {", []Severity{Critical}},
	{"exec of a template", "js-command-injection", "a.js", "exec(`rm -rf ${dir}`);", []Severity{Critical}},
	{"exec of a constant template", "js-command-injection", "a.js", "exec(`du -sh ${OUT_ROOT}`);", []Severity{Low}},
	{"RegExp exec", "js-command-injection", "a.js", `const m = /v(\d+)/.exec("v12");`, []Severity{""}},
	{"bun:sqlite db.exec", "js-command-injection", "db.ts", `db.exec("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT)");`, []Severity{""}},
	{"child_process through a namespace", "js-command-injection", "a.ts", "import * as cp from 'child_process';\ncp.exec(`ls ${dir}`);", []Severity{Critical}},
	{"exec.Command with literal arguments", "go-shell-injection", "a.go", `out, err := exec.Command("git", "status", "--porcelain").Output()`, []Severity{Low}},
	{"exec.CommandContext with literal arguments", "go-shell-injection", "a.go", `cmd := exec.CommandContext(ctx, "go", "vet", "./...")`, []Severity{Low}},
	{"exec.Command through a shell", "go-shell-injection", "a.go", `cmd := exec.Command("sh", "-c", script)`, []Severity{Critical}},
	{"exec.Command with a variadic", "go-shell-injection", "a.go", "cmd := exec.Command(name, args...)", []Severity{Critical}},
	{"Process.Start of a literal", "cs-command-injection", "A.cs", `Process.Start("notepad.exe");`, []Severity{Low}},
	{"Process.Start with arguments", "cs-command-injection", "A.cs", `Process.Start("cmd.exe", args);`, []Severity{Critical}},
	{"Runtime.exec of a literal", "java-command-injection", "A.java", `Process p = Runtime.getRuntime().exec("ls -l");`, []Severity{Low}},
	{"Runtime.exec of a literal, with an environment", "java-command-injection", "A.java", `Process p = Runtime.getRuntime().exec("make", env);`, []Severity{Low}},
	{"Runtime.exec of a variable", "java-command-injection", "A.java", "Process p = Runtime.getRuntime().exec(cmd);", []Severity{Critical}},

	// SQL: identifiers cannot be bound as parameters (ragapp's migration).
	{"PRAGMA table_info({table})", "py-sql-injection", "backend/app/models/database.py", `            cursor = conn.execute(f"PRAGMA table_info({table})")`, []Severity{Low}},
	{"FROM {table} with a bound value", "py-sql-injection", "a.py", `conn.execute(f"SELECT * FROM {table} WHERE id = ?", (row_id,))`, []Severity{Low}},
	{"ALTER TABLE {table} ADD COLUMN {column}", "py-sql-injection", "a.py", `conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")`, []Severity{Low}},
	{"DROP TABLE IF EXISTS {schema}.{table}", "py-sql-injection", "a.py", `cur.execute(f'DROP TABLE IF EXISTS "{schema}"."{table}"')`, []Severity{Low}},
	{"a constant LIMIT", "py-sql-injection", "a.py", `cur.execute(f"SELECT * FROM t LIMIT {MAX_ROWS}")`, []Severity{Low}},
	{"a value in WHERE", "py-sql-injection", "a.py", `conn.execute(f"SELECT * FROM users WHERE name = '{name}'")`, []Severity{Critical}},
	{"a value after an identifier", "py-sql-injection", "a.py", `cur.execute(f"DELETE FROM {table} WHERE id = {row_id}")`, []Severity{Critical}},
	{"VALUES", "py-sql-injection", "a.py", `cur.execute(f"INSERT INTO {TABLE} VALUES ({value})")`, []Severity{Critical}},
	{"a select list", "py-sql-injection", "a.py", `cur.execute(f"SELECT {cols} FROM t")`, []Severity{Critical}},
	{"concatenated", "py-sql-injection", "a.py", `cur.execute(f"SELECT * FROM {table}" + where)`, []Severity{Critical}},

	// innerHTML: a literal is no XSS (excel-to-image.ts); a variable is.
	{"td.innerHTML = '&nbsp;'", "js-innerhtml", "src/lib/excel-to-image.ts", "        td.innerHTML = '&nbsp;'", []Severity{""}},
	{"an empty literal and a comment", "js-innerhtml", "a.js", "el.innerHTML = ''; // clear", []Severity{""}},
	{"wrapper.innerHTML = html", "js-innerhtml", "src/lib/excel-to-image.ts", "    wrapper.innerHTML = html", []Severity{Medium}},
	{"a template with interpolation", "js-innerhtml", "a.js", "el.innerHTML = `<b>${name}</b>`;", []Severity{Medium}},
	{"a template without interpolation", "js-innerhtml", "a.js", "el.innerHTML = `<b>ok</b>`;", []Severity{""}},
	{"concatenation", "js-innerhtml", "a.js", "el.innerHTML = '<b>' + name + '</b>';", []Severity{Medium}},
	{"a literal then more", "js-innerhtml", "a.js", "el.innerHTML = '<b>' + ICON;", []Severity{Medium}},
	{"a comparison", "js-innerhtml", "a.js", "if (el.innerHTML === '') {", []Severity{""}},
	{"a template that goes on below", "js-innerhtml", "a.js", "el.innerHTML = `", []Severity{Medium}},
	{"document.write of a literal", "js-document-write", "a.js", `document.write("<p>Loading…</p>");`, []Severity{""}},
	{"document.write of a variable", "js-document-write", "a.js", "document.write(html);", []Severity{Medium}},
}

func TestRefine(t *testing.T) {
	for _, c := range refineCases {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			id := "sast/" + c.rule
			all, _ := ScanFile(c.path, []byte(c.line))
			var fs []Finding
			for _, f := range all {
				if f.RuleID == id {
					fs = append(fs, f)
				}
			}
			if len(fs) != len(c.want) {
				t.Fatalf("the rule gives %d findings, the case expects %d", len(fs), len(c.want))
			}
			FingerprintFile(fs, []byte(c.line))
			kept, dismissed := Refine(c.path, fs, []byte(c.line), nil)
			var want []Severity
			for _, s := range c.want {
				if s != "" {
					want = append(want, s)
				}
			}
			if len(kept) != len(want) || len(kept)+len(dismissed) != len(fs) {
				t.Fatalf("kept %+v, dismissed %+v; want %v", kept, dismissed, c.want)
			}
			for i, f := range kept {
				if f.Severity != want[i] {
					t.Errorf("severity %s, want %s (note %q)", f.Severity, want[i], f.Note)
				}
				if lowered := f.Severity != RuleByID(id).Severity; lowered != (f.Note != "") {
					t.Errorf("severity %s with note %q", f.Severity, f.Note)
				}
			}
			for _, f := range dismissed {
				if f.Note == "" || f.Severity != RuleByID(id).Severity {
					t.Errorf("dismissed without a note, or re-rated: %+v", f)
				}
			}
			for _, f := range append(kept, dismissed...) {
				if f.Fingerprint == "" || f.RuleID != id {
					t.Errorf("the fingerprint or rule id changed: %+v", f)
				}
			}
		})
	}
}

// TestRefineLexer: positions go to the lexer as (line, byte offset), the
// findings it says are not code are dismissed, and the secret rules and
// go-pprof are never asked about.
func TestRefineLexer(t *testing.T) {
	src := "x = 1\r\nétat = eval(a)  # eval(b)\nAPI_KEY = \"abcdefghijklmnopqrstuvwxyz\"\n"
	fs, _ := ScanFile("a.py", []byte(src))
	FingerprintFile(fs, []byte(src))
	var asked []Pos
	lex := func(path string, lines []string, at []Pos) []bool {
		if path != "a.py" || len(lines) != 4 || lines[0] != "x = 1" {
			t.Errorf("lexer got %q %q", path, lines)
		}
		asked = append(asked, at...)
		out := make([]bool, len(at))
		for i, p := range at {
			out[i] = p.Off < strings.Index(lines[p.Line-1], "#")
		}
		return out
	}
	kept, dismissed := Refine("a.py", fs, []byte(src), lex)
	if len(asked) != 2 || asked[0] != (Pos{2, 8}) || asked[1] != (Pos{2, 19}) {
		t.Errorf("asked %v", asked)
	}
	if len(dismissed) != 1 || dismissed[0].Note != NoteNotCode || dismissed[0].Column != 19 {
		t.Errorf("dismissed %+v", dismissed)
	}
	if len(kept) != 2 || kept[0].RuleID != "sast/py-eval" || kept[1].RuleID != "sast/py-hardcoded-secret" {
		t.Errorf("kept %+v", kept)
	}
}

func TestOffsetOf(t *testing.T) {
	for _, c := range []struct {
		line      string
		col, want int
	}{
		{"x = eval(s)", 5, 4},
		{"é = eval(s)", 5, 5},
		{"😀 = eval(s)", 6, 7},
		{"abc", 9, 3},
	} {
		if got := offsetOf(c.line, c.col); got != c.want {
			t.Errorf("offsetOf(%q, %d) = %d, want %d", c.line, c.col, got, c.want)
		}
	}
}

// FuzzRefine: Refine never panics on what the rules match, keeps or
// dismisses every finding once, and only ever lowers a severity.
func FuzzRefine(f *testing.F) {
	for _, c := range refineCases {
		f.Add(c.path, []byte(c.line))
	}
	f.Add("a.py", []byte(`os.system(f"{A!r:{w}}" % (B, "x" f'{C}'`))
	f.Add("a.cs", []byte(`Process.Start($@"x{{A}}""{B}", @$"`+"\n"))
	f.Fuzz(func(t *testing.T, path string, content []byte) {
		fs, skipped := ScanFile(path, content)
		if skipped != "" {
			return
		}
		FingerprintFile(fs, content)
		everyOther := func(_ string, _ []string, at []Pos) []bool {
			out := make([]bool, len(at))
			for i := range out {
				out[i] = i%2 == 0
			}
			return out
		}
		kept, dismissed := Refine(path, fs, content, everyOther)
		if len(kept)+len(dismissed) != len(fs) {
			t.Fatalf("%d findings became %d kept and %d dismissed", len(fs), len(kept), len(dismissed))
		}
		for _, k := range kept {
			if r := RuleByID(k.RuleID); k.Severity.Rank() > r.Severity.Rank() {
				t.Fatalf("severity raised: %+v", k)
			}
		}
	})
}

// TestRefineLongLine: the per-rule checks skip a line over maxRefineLine
// (each reads the line from its match on), keeping the rule's verdict.
func TestRefineLongLine(t *testing.T) {
	line := strings.Repeat("m.eval(); ", 1000)
	fs, _ := ScanFile("a.py", []byte(line))
	kept, dismissed := Refine("a.py", fs, []byte(line), nil)
	if len(fs) != 1000 || len(kept) != 1000 || len(dismissed) != 0 {
		t.Fatalf("%d findings: %d kept, %d dismissed", len(fs), len(kept), len(dismissed))
	}
}
