package gates

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// added is a new file: all its lines are added.
func added(path string, lines ...string) changeset.File {
	f := changeset.File{Status: changeset.Added, NewPath: path, Size: -1}
	for i, l := range lines {
		f.Added = append(f.Added, changeset.AddedLine{Line: i + 1, Text: l})
	}
	return f
}

// changedFile is a modified file whose added lines are given as line -> text.
func changedFile(path string, lines map[int]string) changeset.File {
	f := changeset.File{Status: changeset.Modified, OldPath: path, NewPath: path, Size: -1}
	for n, text := range lines {
		f.Added = append(f.Added, changeset.AddedLine{Line: n, Text: text})
	}
	slices.SortFunc(f.Added, func(a, b changeset.AddedLine) int { return a.Line - b.Line })
	return f
}

// placeholders runs the gate and returns the result and its findings as
// "rule@line:column", rule without its "placeholder/" prefix (and with a
// "!" after it for a warning).
func placeholders(t *testing.T, cfg *Config, files ...changeset.File) (Result, []string) {
	t.Helper()
	r := eval(Placeholders{}, &Input{Head: empty(), Config: cfg, Changes: &changeset.ChangeSet{Files: files}})
	return r, placeholderFindings(t, r)
}

// placeholderFindings checks the findings' shape and the outcome (failed
// when one is an error) and lists them as placeholders does.
func placeholderFindings(t *testing.T, r Result) []string {
	t.Helper()
	var got []string
	want := Passed
	for _, f := range r.Findings {
		warn := ""
		switch f.Severity {
		case SeverityError:
			want = Failed
		case SeverityWarning:
			warn = "!"
		default:
			t.Errorf("finding with severity %s: %+v", f.Severity, f)
		}
		got = append(got, fmt.Sprintf("%s%s@%d:%d", strings.TrimPrefix(f.Rule, "placeholder/"), warn, f.Line, f.Column))
		if f.Path == "" || f.Line < 1 || f.EndLine != f.Line || f.Message == "" || f.Key == "" {
			t.Errorf("malformed finding %+v", f)
		}
	}
	if r.Outcome != want {
		t.Errorf("outcome %s with %d findings, want %s (%s)", r.Outcome, len(r.Findings), want, r.Title)
	}
	return got
}

// TestPlaceholderRules has a row per rule: one added line of a new file,
// and the findings as "rule@column".
func TestPlaceholderRules(t *testing.T) {
	cases := []struct {
		name string
		path string
		line string
		want []string
	}{
		// Comment rules (plugin), markers as B08 reads them: upper case, or
		// any case before ':' or '('.
		{"go line comment TODO", "a.go", "\tx := 1 // TODO: remove", []string{"comment-todo@12"}},
		{"shell fixme with a colon, any case", "run.sh", "# fixme: later", []string{"comment-fixme@3"}},
		{"shell lower-case fixme without a colon is prose", "run.sh", "# fixme later", nil},
		{"html comment XXX", "a.html", "<p>hi</p> <!-- XXX check -->", []string{"comment-other@16"}},
		{"TBD in a Python comment", "a.py", "x = 1  # TBD", []string{"comment-other@10"}},
		{"HACK in a same-line block comment", "loop.c", "++i; /* HACK: bounds not checked */", []string{"comment-other@9"}},
		{"line and block comment with different rules", "a.c", "x(); /* HACK */ // TODO", []string{"comment-other@9", "comment-todo@20"}},
		{"one finding per rule and line", "a.c", "/* TODO */ // TODO", []string{"comment-todo@4"}},
		{"the plugin's rule order: TODO before FIXME", "a.go", "// FIXME TODO", []string{"comment-todo@10"}},
		{"identifiers are not markers", "a.go", "todoList := hackery // xxxHandler and TODOs, todo_list", nil},
		{"marker in a string is not a comment", "a.go", `msg := "see the TODO list"`, nil},
		{"sql comment", "db/migrate.sql", "-- TODO: add index on orders.created_at", []string{"comment-todo@4"}},
		{"dashes are a comment only in SQL", "a.lua", "-- TODO", nil},

		// The bug cases.
		{"TODO in a URL fragment", "a.lua", "see http://x/#TODO", nil},
		{"TODO in a URL in a YAML value", "ci.yml", "url: http://x/#TODO", nil},
		{"TODO in a URL in a Go string", "a.go", `u := "http://x/#TODO" // ok`, nil},
		{"TODO in a Go raw string", "a.go", "s := `// TODO # TODO`", nil},
		{"added ++i with a block comment", "src/loop.c", "++i; /* XXX: bounds not checked */", []string{"comment-other@9"}},
		{"CRLF leftover carriage return", "a.go", "x := 1 // TODO\r", []string{"comment-todo@11"}},

		// Sentinels (plugin).
		{"SC-PLACEHOLDER drops the finding", "a.go", "// TODO SC-PLACEHOLDER allowed", nil},
		{"sentinels ignore case", "a.go", `x := "stub" // sc-placeholder`, nil},

		// String rules: a placeholder value, or "not implemented".
		{"placeholder as the whole string", "a.go", `label := "placeholder"`, []string{"text-placeholder@11"}},
		{"a string that mentions placeholder", "a.go", `label := "placeholder text"`, nil},
		{"stub as the whole single-quoted string", "a.py", "x = 'stub'", []string{"text-placeholder@6"}},
		{"WIP as the whole string", "a.py", "state = 'WIP'", []string{"text-placeholder@10"}},
		{"wip in backticks", "a.ts", "const s = `wip`;", []string{"text-placeholder@12"}},
		{"placeholder in backticks", "a.ts", "const s = `placeholder`;", []string{"text-placeholder@12"}},
		{"not implemented in double quotes", "a.ts", `const e = "not implemented";`, []string{"text-placeholder@12"}},
		{"not implemented in single quotes", "a.ts", `const e = 'not implemented';`, []string{"text-placeholder@12"}},
		{"word boundaries in strings", "a.go", `s := "stubborn wipe placeholders"`, nil},
		{"html placeholder attribute name", "a.html", `<input placeholder="Your name">`, nil},
		{"html attribute value", "a.html", `<input value="placeholder">`, []string{"text-placeholder@15"}},
		{"apostrophes in code text are no strings", "a.lua", "don't use the stub here, it's fine", nil},
		{"string words inside a comment are not string rules", "a.go", `// the "stub" server`, nil},

		// Stub returns (plugin values): only as a function's whole body (B08).
		{"return null; alone is a guard or a fall-through", "a.ts", "  return null;", nil},
		{"function whose whole body is return null;", "a.ts", "function f() { return null; }", []string{"code-stub-return@16"}},
		{"return 0; as a whole body", "a.c", "int f(void) { return 0 ; }", []string{"code-stub-return@15"}},
		{"return false is never a stub", "a.ts", "function f() { RETURN FALSE; return false; }", nil},
		{"return true; (corpus: Unit.java equals)", "src/main/java/com/aegis/autochess/model/Unit.java", "        if (this == o) return true;", nil},
		{"return None (corpus: ollama_client.py)", "src/photochron/models/ollama_client.py", "                return None", nil},
		{"Go's return nil has no semicolon", "a.go", "func f() error { return nil }", nil},
		{"return nullish value", "a.ts", "function f() { return nullish; }", nil},
		{"return 0.5", "a.ts", "function f() { return 0.5; }", nil},
		{"return in a comment", "a.ts", "function f() { /* return null; */ }", nil},
		{"return in a string", "a.ts", `function f() { log("return null;") }`, nil},
		{"test-like line", "a.ts", `it("works", () => { return null; });`, nil},
		{"throw new Error TODO", "a.ts", `throw new Error("TODO: implement");`, []string{"code-throw-todo@1"}},
		{"throw new Error fixme: in single quotes", "a.js", `  throw new Error('fixme: later')`, []string{"code-throw-todo@3"}},
		{"throw new Error with Spanish método (corpus: excel-to-image.ts)", "excel-to-image.ts", "    throw new Error('No se pudo renderizar el Excel con ningún método');", nil},
		{"throw in a comment", "a.ts", `// throw new Error("TODO")`, []string{"comment-todo@21"}},

		// Stub bodies (extension, B10).
		{"go panic not implemented", "a.go", `	panic("not implemented")`, []string{"code-stub-body@2"}},
		{"go panic TODO", "a.go", `panic("TODO: later")`, []string{"code-stub-body@1"}},
		{"go panic with an error", "a.go", `panic(err)`, nil},
		{"go panic with another message", "a.go", `panic("unexpected state")`, nil},
		{"rust unimplemented! in a match arm", "src/lib.rs", "    _ => unimplemented!(),", nil},
		{"rust unimplemented! as a whole body", "src/lib.rs", "fn f() -> u8 { unimplemented!() }", []string{"code-stub-body@16"}},
		{"rust todo!", "src/lib.rs", `fn f() -> u8 { todo!("later") }`, []string{"code-stub-body@16"}},
		{"rust panic! not yet implemented", "src/lib.rs", `panic!("not yet implemented")`, []string{"code-stub-body@1"}},
		{"rust my_todo! is not todo!", "src/lib.rs", `my_todo!()`, nil},
		{"python raise NotImplementedError alone", "a.py", "    raise NotImplementedError", nil},
		{"python one-line def raising NotImplementedError", "a.py", "def f(x): raise NotImplementedError", []string{"code-stub-body@11"}},
		{"python raise another error", "a.py", `raise ValueError("bad")`, nil},
		{"python raise SystemExit saying stub", "a.py", `raise SystemExit("[run] STUB: not wired")`, []string{"code-stub-body@1"}},
		{"throw new Error not implemented", "a.ts", `throw new Error("not implemented");`, []string{"code-stub-body@1"}},
		{"java UnsupportedOperationException", "A.java", `throw new UnsupportedOperationException("Not implemented yet");`, []string{"code-stub-body@1"}},
		{"c# NotImplementedException alone", "A.cs", `throw new NotImplementedException();`, nil},
		{"c# NotImplementedException as a whole body", "A.cs", `void F() { throw new NotImplementedException(); }`, []string{"code-stub-body@12"}},
		{"java throw with another message", "A.java", `throw new IllegalStateException("closed");`, nil},
		{"python pass # TODO", "a.py", "    pass  # TODO", []string{"code-stub-body@5", "comment-todo@13"}},
		{"python pass without marker", "a.py", "    pass  # nothing to do", nil},

		// Suppression (extension).
		{"suppression with a reason", "a.go", "// TODO: later swarm-gate:allow placeholder tracked in #123", nil},
		{"suppression without a reason", "a.go", "// TODO swarm-gate:allow placeholder", []string{"suppression-without-reason@9", "comment-todo@4"}},
		{"suppression in a block comment without a reason", "a.c", "/* TODO swarm-gate:allow placeholder */", []string{"suppression-without-reason@9", "comment-todo@4"}},
		{"suppression without reason on a clean line", "a.go", "x := 1 // swarm-gate:allow placeholder -", []string{"suppression-without-reason@11"}},
		{"another gate's marker", "a.go", "// TODO swarm-gate:allow scope moved file", []string{"comment-todo@4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got := placeholders(t, nil, added(c.path, c.line))
			var want []string
			for _, w := range c.want {
				rule, col, _ := strings.Cut(w, "@")
				want = append(want, rule+"@1:"+col)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q in %s: findings %v, want %v", c.line, c.path, got, want)
			}
		})
	}
}

// TestPlaceholderPlanBrackets: .swarm/plan.md gets only the plugin's
// template-bracket rules.
func TestPlaceholderPlanBrackets(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"- [ ] 1.1: [task] [SMALL]", []string{"plan-bracket-task@1:12"}},
		{"- [ ] 1.1: [TASK]", []string{"plan-bracket-task@1:12"}},
		{"# [Project]", []string{"plan-bracket-project@1:3"}},
		{"# [project]", nil},
		{"Phase: 1 [date] [reason]", []string{"plan-bracket-date@1:10", "plan-bracket-reason@1:17"}},
		{"[DATE] [Reason]", nil},
		{"- [x] 1.2: [Description]", []string{"plan-bracket-description@1:12"}},
		{"# TODO: the plan's own TODO is not a code placeholder", nil},
	} {
		_, got := placeholders(t, nil, added(".swarm/plan.md", c.line))
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: findings %v, want %v", c.line, got, c.want)
		}
	}
}

// TestPlaceholderFamilies lexes multi-line added text per language family.
func TestPlaceholderFamilies(t *testing.T) {
	cases := []struct {
		name  string
		path  string
		lines []string
		want  []string // rule@line:column
	}{
		{"C-like multi-line block comment", "a.ts", []string{"/*", " * TODO: explain", " */", "let x = 1; // fine"}, []string{"comment-todo@2:4"}},
		{"JS template literal spanning lines", "a.ts", []string{"const s = `", "// TODO not a comment", "# nor this", "`; // FIXME"}, []string{"comment-fixme@4:7"}},
		{"JSDoc block (the @todo tag is a TODO in any case)", "a.js", []string{"/**", " * Does things.", " * @todo nothing", " * XXX: fragile", " */"}, []string{"comment-todo@3:5", "comment-other@4:4"}},
		{"Go raw string over lines", "a.go", []string{"var usage = `", "# TODO: not a comment", "// HACK neither", "`", "// FIXME real"}, []string{"comment-fixme@5:4"}},
		{"JSX text with an apostrophe", "a.tsx", []string{"<p>Don't stop</p> {/* TODO */}"}, []string{"comment-todo@1:23"}},
		{"C++ digit separators", "a.cpp", []string{"int n = 1'000; // TODO"}, []string{"comment-todo@1:19"}},
		{"Go rune and string escapes", "a.go", []string{`q := '"' // TODO`, `s := "\" // HACK"`}, []string{"comment-todo@1:13"}},
		{"Rust nested block comment", "a.rs", []string{"/* outer /* inner */ still TODO */ let x = 1;", "// done"}, []string{"comment-todo@1:28"}},
		{"Rust lifetimes are not chars", "a.rs", []string{"fn f<'a>(x: &'a str) -> &'a str { x } // TODO"}, []string{"comment-todo@1:42"}},
		{"Rust raw string", "a.rs", []string{`let s = r#"// TODO "quoted""#; // FIXME`}, []string{"comment-fixme@1:35"}},
		{"Rust char literal quote", "a.rs", []string{`let q = '"'; // TODO`}, []string{"comment-todo@1:17"}},
		{"Python docstring over lines", "a.py", []string{"def f():", `    """Summary.`, "", "    TODO: finish this.", `    """`, "    return 1"}, []string{"comment-todo@4:5"}},
		{"Python docstring mentioning a stub is prose (corpus: run_baselines.py)", "run_baselines.py",
			[]string{"def run():", `    """Run null-gate validation for B7 baseline.`, "", "    Uses a stub model for now.", `    """`}, nil},
		{"Python string assigned is no docstring", "a.py", []string{`x = """TODO"""`, `y = "# TODO"`}, []string{"text-placeholder@1:8"}},
		{"Python hash in a string", "a.py", []string{`s = "a # TODO"  # FIXME`}, []string{"comment-fixme@1:19"}},
		{"shell", "run.sh", []string{`echo "# TODO"`, "echo $# items", "ls -la # HACK"}, []string{"comment-other@3:10"}},
		{"shell apostrophe in a word", "run.sh", []string{"echo Don't forget # TODO"}, []string{"comment-todo@1:21"}},
		{"YAML", "ci.yml", []string{`key: "a # TODO"`, "url: https://x.test/#TODO", "name: app # TBD"}, []string{"comment-other@3:13"}},
		{"SQL", "q.sql", []string{"SELECT '-- TODO' FROM t; -- FIXME", "/* multi", "   XXX */ SELECT 1;"}, []string{"comment-fixme@1:29", "comment-other@3:4"}},
		{"SQL backslash in a string", "q.sql", []string{`SELECT 'C:\'; -- TODO`}, []string{"comment-todo@1:18"}},
		{"HTML multi-line comment", "a.html", []string{"<!--", "TODO: nav", "-->", "<p>TODO in text</p>"}, []string{"comment-todo@2:1"}},
		{"unknown text: same-line block comment only", "init.lua", []string{"src/* TODO", "a /* HACK */ b"}, []string{"comment-other@2:6"}},
		{"Dockerfile by name", "Dockerfile", []string{"RUN make # TODO pin"}, []string{"comment-todo@1:12"}},
		{"HCL", "main.tf", []string{`name = "x" # TODO`, "// FIXME"}, []string{"comment-todo@1:14", "comment-fixme@2:4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got := placeholders(t, nil, added(c.path, c.lines...))
			if !slices.Equal(got, c.want) {
				t.Errorf("findings %v, want %v", got, c.want)
			}
		})
	}
}

// TestPlaceholderRuns: each run of consecutive added lines is lexed from
// the code state.
func TestPlaceholderRuns(t *testing.T) {
	f := changedFile("a.go", map[int]string{
		3:  "/* a comment the pull request opens",
		4:  "   and never closes in this run",
		10: "x := TODO() // the run starts in code again",
		20: " * TODO: added to a doc comment opened above",
		21: " */",
		22: "y := 1",
	})
	sql := changedFile("q.sql", map[int]string{5: "  *", 6: "FROM t; -- TODO"})
	_, got := placeholders(t, nil, f, sql)
	want := []string{"comment-todo@20:4", "comment-todo@6:12"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestPlaceholderReturnUndefinedExemption: the plugin exempts a
// return undefined; right under a JSDoc with @returns.
func TestPlaceholderReturnUndefinedExemption(t *testing.T) {
	_, got := placeholders(t, nil,
		added("a.ts", "function check(x) {", "  /**", "   * @returns undefined when valid", "   */", "  return undefined;", "}"),
		added("b.ts", "function check(x) {", "  return undefined;", "}"),
	)
	want := []string{"code-stub-return@2:3"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestPlaceholderAbstractMethod: raise NotImplementedError is the body of
// an abstract method, not a stub.
func TestPlaceholderAbstractMethod(t *testing.T) {
	_, got := placeholders(t, nil, added("a.py",
		"class Base(ABC):",
		"    @abstractmethod",
		"    def run(self):",
		"        raise NotImplementedError",
		"",
		"    def stop(self):",
		`        """Stop."""`,
		"        raise NotImplementedError",
	))
	want := []string{"code-stub-body@8:9"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestPlaceholdersOnlyAddedLinesAndSkips covers what is and is not scanned.
func TestPlaceholdersOnlyAddedLinesAndSkips(t *testing.T) {
	big := added("gen/big.go", strings.Repeat("// generated line without markers\n", 64000), "// TODO in a 2 MiB file")
	big.Size = 2 << 20
	bigUnknown := added("gen/big2.go", strings.Repeat("x", 2<<20), "// TODO")
	files := []changeset.File{
		changedFile("app/handler.go", map[int]string{13: "\t// TODO: wire the retry policy"}),
		added("src/app.test.ts", "// TODO in a test file"),
		added("src/__tests__/x.ts", "// TODO in a test folder"),
		added("templates/tests/gen.ts", "// TODO scaffold is still scanned"),
		added("tests/gen-fixture.ts", "// TODO scaffold name is still scanned"),
		added(".swarm/evidence/1.1.json", `{"note": "TODO"}`, "# TODO swarm files are not code"),
		added(`.swarm/..\evil.py`, "x = 1  # TODO not exempt: not a clean .swarm path"),
		{Status: changeset.Added, NewPath: "logo.png", Binary: true, Size: 100},
		{Status: changeset.Deleted, OldPath: "old.go", Size: -1},
		added("nul.txt", "// TODO\x00"),
		big, bigUnknown,
		added("src/empty.go"),
	}
	r, got := placeholders(t, nil, files...)
	var paths []string
	for _, f := range r.Findings {
		paths = append(paths, fmt.Sprintf("%s:%d", f.Path, f.Line))
	}
	want := []string{"app/handler.go:13", "templates/tests/gen.ts:1", "tests/gen-fixture.ts:1", `.swarm/..\evil.py:1`, "gen/big.go:1", "gen/big2.go:1"}
	if !slices.Equal(paths, want) {
		t.Errorf("findings %v (%v), want %v", paths, got, want)
	}
	for _, s := range []string{"2 test files", "2 files over 1 MiB (`gen/big.go`, `gen/big2.go`)", "2 binary files", "1 file under `.swarm/`", "(a moved or re-added line) is pre-existing"} {
		if !strings.Contains(r.Summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, r.Summary)
		}
	}
}

// TestPlaceholdersPreexistingTODO: a TODO on an unchanged line never
// fails; without merge-base contents a moved line counts as introduced,
// and the delta says why.
func TestPlaceholdersPreexistingTODO(t *testing.T) {
	r, got := placeholders(t, nil, changedFile("a.go", map[int]string{5: "x := 1"}))
	if len(got) != 0 || !strings.Contains(r.Title, "no placeholders in 1 added line") || r.Delta != nil {
		t.Errorf("%s: %v %+v", r.Title, got, r.Delta)
	}
	r, got = placeholders(t, nil, changedFile("b.go", map[int]string{40: "// TODO: moved here from line 2"}))
	if !slices.Equal(got, []string{"comment-todo@40:4"}) || r.Findings[0].Delta != DeltaIntroduced {
		t.Errorf("moved line: %v %+v", got, r.Findings)
	}
	if r.Delta == nil || r.Delta.Introduced != 1 || !strings.Contains(r.Delta.BaseError, "not available") || !strings.Contains(r.Summary, "every finding counts as introduced") {
		t.Errorf("delta %+v, summary:\n%s", r.Delta, r.Summary)
	}
}

// TestPlaceholdersFromDiff runs the gate on change sets parsed from diff
// text: the deleted "-- TODO" line shows as "--- TODO" and the added
// "++i" as "+++i"; only the added line may count.
func TestPlaceholdersFromDiff(t *testing.T) {
	diff := "diff --git a/db/migrate.sql b/db/migrate.sql\nindex 2e778cc..1e968b5 100644\n--- a/db/migrate.sql\n+++ b/db/migrate.sql\n" +
		"@@ -1,3 +1,3 @@\n SELECT 1;\n--- TODO: old note about indexes\n+SELECT 2;\n SELECT 3;\n" +
		"diff --git a/src/loop.c b/src/loop.c\nindex 1e92d19..6d01acb 100644\n--- a/src/loop.c\n+++ b/src/loop.c\n" +
		"@@ -1,3 +1,4 @@\n void walk(int n) {\n   int i = 0;\n+++i; /* XXX: bounds not checked */\n }\n" +
		"diff --git a/win.go b/win.go\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/win.go\n" +
		"@@ -0,0 +1,2 @@\n+package win\r\n+// FIXME: crlf\r\n" +
		"diff --git a/last.py b/last.py\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/last.py\n" +
		"@@ -0,0 +1 @@\n+x = 1  # HACK no final newline\n\\ No newline at end of file\n"
	cs, err := changeset.Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	r := eval(Placeholders{}, &Input{Head: empty(), Changes: cs})
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", f.Path, f.Line, f.Column, f.Rule))
	}
	want := []string{"last.py:1:10 " + RuleCommentOther, "src/loop.c:3:9 " + RuleCommentOther, "win.go:2:4 " + RuleCommentFixme}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestPlaceholdersPolicy covers the placeholders section of the policy.
func TestPlaceholdersPolicy(t *testing.T) {
	files := []changeset.File{
		added("README.md", "# TODO: list", "text"),
		added("lib/x.go", "// TODO in a library"),
		added("src/fixtures.snap", "// TODO snapshot"),
		added("src/a.ts", "function f() { return null; } // NOCHECK later", "// FIXME real"),
		added("src/b.ts", "function g() { return null; }"),
	}
	cfg := DefaultConfig()
	_, got := placeholders(t, cfg, files...)
	if want := []string{"comment-todo!@1:3", "comment-todo@1:4", "comment-todo@1:4", "code-stub-return@1:16", "comment-fixme@2:4", "code-stub-return@1:16"}; !slices.Equal(got, want) {
		t.Fatalf("defaults: %v, want %v", got, want)
	}
	cfg.Placeholders = PlaceholdersConfig{
		Allow:                  []string{"lib", "*.snap"},
		Sentinels:              []string{"nocheck"},
		IgnoreMarkdownHeadings: true,
		Disable:                []string{RuleCodeStubReturn, RuleSuppressionNoReason},
	}
	r, got := placeholders(t, cfg, files...)
	if want := []string{"comment-fixme@2:4"}; !slices.Equal(got, want) {
		t.Errorf("policy: findings %v, want %v", got, want)
	}
	for _, s := range []string{"2 files allowed by the policy (`lib/x.go`, `src/fixtures.snap`)", "Rules turned off by the policy: `placeholder/code-stub-return`.", "`nocheck`"} {
		if !strings.Contains(r.Summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, r.Summary)
		}
	}
	// The suppression rule cannot be turned off.
	_, got = placeholders(t, cfg, added("c.go", "// swarm-gate:allow placeholder"))
	if !slices.Equal(got, []string{"suppression-without-reason@1:4"}) {
		t.Errorf("suppression: %v", got)
	}
}

func TestPlaceholderFindingMessage(t *testing.T) {
	long := "\t\t// TODO: " + strings.Repeat("é", 120)
	r, _ := placeholders(t, nil, added("a.go", long))
	if len(r.Findings) != 1 {
		t.Fatal(r.Findings)
	}
	msg := r.Findings[0].Message
	want := "TODO comment on an added line: // TODO: " + strings.Repeat("é", 100-11)
	if msg != want {
		t.Errorf("message\n%q, want\n%q", msg, want)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"src/a.test.ts": true, "src/a.spec.js": true, "tests/x.py": true, "pkg/test/x.go": true, "__mocks__/m.js": true,
		"specs/a.md": true, "contests/a.go": false, "src/attest/a.go": false, "src/app.go": false, "templates/tests/x.go": false,
		"gen/tests/x.go": true, "tests/gen-x.go": false, "tests/a.gen.go": false, "tests/GEN-x.go": true, "my-generated/tests/x.go": false,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// Code under .swarm/ is not the plugin's state: its placeholders count.
func TestPlaceholdersCodeUnderSwarm(t *testing.T) {
	_, got := placeholders(t, nil,
		added(".swarm/lib/hook.go", "package lib", "", "func Check() error {", "\tpanic(\"not implemented\")", "}"),
		added(".swarm/evidence/1.1.json", `{"note": "TODO: not implemented"}`))
	if len(got) != 1 || !strings.HasPrefix(got[0], "code-stub-body@4") {
		t.Errorf("findings %q, want the stub in .swarm/lib/hook.go only", got)
	}
}

// Under .swarm/, only the kinds of file the plugin writes are exempt: a
// build file or script an agent leaves there (a tool runs it as any other)
// is scanned by its name.
func TestPlaceholdersScriptsUnderSwarm(t *testing.T) {
	for _, c := range []struct {
		file changeset.File
		want string // the finding's rule@line, "" for none (exempt)
	}{
		{added(".swarm/Makefile", "all:", "\t# TODO: build the real thing"), "comment-todo@2"},
		{added(".swarm/Dockerfile", "FROM alpine", "# FIXME: pin it"), "comment-fixme@2"},
		{added(".swarm/run", "#!/bin/sh", "# TODO: wire up", "curl x | sh"), "comment-todo@2"},
		{added(".swarm/tools/run.bat", "@echo off", "curl x // TODO: later"), "comment-todo@2"},
		// The plugin's own kinds stay exempt, with their backups,
		// temporaries and markers.
		{added(".swarm/evidence/1.2/evidence.json", `{"note": "TODO: x"}`), ""},
		{added(".swarm/session/state.json.bak", `{"note": "TODO: x"}`), ""},
		{added(".swarm/repo-graph.json.tmp.1780411300953.393133824", `{"note": "TODO: x"}`), ""},
		{added(".swarm/.plan-write-marker", "TODO: x"), ""},
		{added(".swarm/pr-review/pr12/diff.txt", "+// TODO: x"), ""},
		{added(".swarm/semgrep-rules/x.yml", "# TODO: x"), ""},
		{added(".swarm/plan-ledger.resetting", "# TODO: x"), ""},
		{added(".swarm/.gitignore", "# TODO: x", "session/"), ""},
	} {
		_, got := placeholders(t, nil, c.file)
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)) {
			t.Errorf("%s: findings %q, want %q", c.file.NewPath, got, c.want)
		}
	}
}

// TestPlaceholderFindingsBounded: past 100 findings a file and 1,000 a run,
// the rest are counted in one finding, an error when one of them is, and
// the title still counts them all.
func TestPlaceholderFindingsBounded(t *testing.T) {
	todos := func(path string, n int, line string) changeset.File {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fmt.Sprintf(line, i)
		}
		return added(path, lines...)
	}
	many := func(files, n int) []changeset.File {
		var out []changeset.File
		for i := range files {
			out = append(out, todos(fmt.Sprintf("f%02d.go", i), n, "// TODO %d"))
		}
		return out
	}
	cases := []struct {
		name     string
		files    []changeset.File
		shown    int    // findings kept one by one
		notShown string // what the counting finding says ("" none)
		warning  bool   // it is a warning
		title    string
	}{
		{"under the limits", many(2, 100), 200, "", false, "200 placeholders on added lines"},
		{"one file past its limit", many(1, 150), 100, "50 placeholder findings more not shown (50 of them failing)", false, "150 placeholders on added lines"},
		{"past the run's limit", many(12, 100), 1000, "200 placeholder findings more not shown (200 of them failing)", false, "1200 placeholders on added lines"},
		{"document notes only warn", []changeset.File{todos("notes.md", 120, "TODO: item %d")}, 100, "20 placeholder findings more not shown (0 of them failing)", true, "no placeholders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, got := placeholders(t, nil, c.files...)
			more := ""
			shown := 0
			for _, f := range r.Findings {
				if f.Rule != RulePlaceholderNotShown {
					shown++
					continue
				}
				more = f.Message
				if (f.Severity == SeverityWarning) != c.warning {
					t.Errorf("the counting finding is a %s", f.Severity)
				}
			}
			if shown != c.shown {
				t.Errorf("%d findings shown, want %d", shown, c.shown)
			}
			if c.notShown == "" && more != "" || !strings.Contains(more, c.notShown) {
				t.Errorf("counting finding %q, want %q (%d findings)", more, c.notShown, len(got))
			}
			if !strings.HasPrefix(r.Title, c.title) {
				t.Errorf("title %q, want it to start %q", r.Title, c.title)
			}
		})
	}
}
