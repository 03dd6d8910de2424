package gates

import (
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// TestPlaceholderWholeBody: a constant return, raise NotImplementedError or
// throw new NotImplementedException() is a stub only as the whole body of
// a function (B08); panic, raise and throw are placeholders anywhere when
// their message says so (B10). Each file is new; the rows are the cards'
// inputs and the shapes of the replayed pull requests.
func TestPlaceholderWholeBody(t *testing.T) {
	cases := []struct {
		name  string
		path  string
		lines []string
		want  []string // rule@line:column
	}{
		{"B08: guards and a path comment, and one whole-body stub", "src/plugins.ts", []string{
			`import * as fs from "node:fs";`,
			"",
			"export function parseVersion(v: string): [number, number, number] | null {",
			`  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);`,
			"  if (!m) return null;",
			"  return [Number(m[1]), Number(m[2]), Number(m[3])];",
			"}",
			"",
			"export function listPlugins(dir: string): string[] {",
			"  // layout: plugins/xxx/index.js",
			"  if (!fs.existsSync(dir)) return [];",
			`  return fs.readdirSync(dir).filter((f) => f.endsWith(".js"));`,
			"}",
			"",
			"export function licenseFor(pkg: string): string {",
			`  return "";`,
			"}",
		}, []string{"code-stub-return@16:3"}},
		{"B10: Go panics and error returns", "store.go", []string{
			"func mustPort(s string) int {",
			"\tp, err := strconv.Atoi(s)",
			"\tif err != nil {",
			"\t\tpanic(fmt.Sprintf(\"invalid port %q: %v\", s, err))",
			"\t}",
			"\treturn p",
			"}",
			"",
			"func (s *Store) Compact() error {",
			"\tpanic(\"TODO\")",
			"}",
			"",
			"func (s *Store) Migrate(ctx context.Context) error {",
			"\treturn errors.New(\"not implemented\")",
			"}",
			"",
			"func (s *Store) step(st state) {",
			"\tswitch st {",
			"\tcase idle, running:",
			"\t\ts.advance()",
			"\tdefault:",
			"\t\tpanic(\"unreachable: unknown state \" + st.String())",
			"\t}",
			"}",
			"",
			"func openSparse(path string) error {",
			"\treturn fmt.Errorf(\"sparse files not supported on %s\", runtime.GOOS)",
			"}",
		}, []string{"code-stub-body@10:2", "text-placeholder@14:21"}},
		{"B10: pass # TODO, and an abstract method", "export.py", []string{
			"def export_csv(rows):",
			"    pass  # TODO",
			"",
			"class Exporter(ABC):",
			"    @abstractmethod",
			"    def export(self, rows):",
			"        raise NotImplementedError",
		}, []string{"code-stub-body@2:5", "comment-todo@2:13"}},
		{"B10: JavaScript throw saying Not implemented", "render.js", []string{
			`export function render() { throw new Error("Not implemented"); }`,
		}, []string{"code-stub-body@1:28"}},
		{"equals() guards (corpus: bomberz Unit.java)", "src/main/java/com/aegis/autochess/model/Unit.java", []string{
			"    @Override",
			"    public boolean equals(Object o) {",
			"        if (this == o) return true;",
			"        if (o == null || getClass() != o.getClass()) return false;",
			"        Unit unit = (Unit) o;",
			"        return id == unit.id;",
			"    }",
		}, nil},
		{"catch returns and guards (corpus: opencode-newsroom knowledge/manager.ts)", "src/knowledge/manager.ts", []string{
			"  async search(text: string): Promise<Entry[]> {",
			"    if (!text.trim()) return [];",
			"    try {",
			"      return await this.index.query(text);",
			"    } catch {",
			"      return [];",
			"    }",
			"  }",
		}, nil},
		{"a fall-through after real logic (corpus: full-auto-intercept.ts)", "src/hooks/full-auto-intercept.ts", []string{
			"function classify(text: string): string | null {",
			"  if (END_OF_SENTENCE_QUESTION_PATTERN.test(text)) {",
			"    if (!isMidSentenceQuestion(text)) {",
			"      return 'question';",
			"    }",
			"  }",
			"",
			"  return null;",
			"}",
		}, nil},
		{"a Python guard (corpus: msocr service/runtime.py)", "msocr/service/runtime.py", []string{
			"def _settings_path(settings):",
			"    if settings is None:",
			"        return None",
			"    return settings.path",
		}, nil},
		{"a Python def whose body is a docstring and return None", "a.py", []string{
			"def load(path):",
			`    """Load the config."""`,
			"    return None",
			"",
			"x = 1",
		}, []string{"code-stub-return@3:5"}},
		{"a Python signature over lines, then return None at the end of the file", "a.py", []string{
			"async def fetch(",
			"    client,",
			"    url: str,",
			") -> bytes | None:",
			"    # not yet",
			"    return None",
		}, []string{"code-stub-return@6:5"}},
		{"a constant predicate (corpus: pd_imu/experiments/access.py)", "pd_imu/experiments/access.py", []string{
			"    def allows_schema_probe(self) -> bool:",
			"        return False",
		}, nil},
		{"a marker function (corpus: run_t1_iter4_lockbox_loocv.py)", "run_t1_iter4_lockbox_loocv.py", []string{
			"def variant_full_stack_top2(d, seed=42):",
			`    """Marker function — actual logic is in loocv_run for memory efficiency."""`,
			`    raise NotImplementedError("full_stack_top2 must run via loocv_run; not 5-fold registered")`,
			"",
			"",
			"def loocv_run(name):",
			`    if name == "full":`,
			"        run_full()",
			"    else:",
			`        raise NotImplementedError(f"LOOCV not yet wired for variant {name}")`,
		}, []string{"code-stub-body@3:5"}},
		{"a mode not yet implemented (corpus: run_t1_wildcard_a_per_task_specialist.py)", "run_t1_wildcard_a_per_task_specialist.py", []string{
			"def main(args):",
			`    if args.mode == "loocv":`,
			"        run_loocv()",
			`    elif args.mode == "screen5":`,
			`        raise NotImplementedError("screen5 mode not yet implemented; use loocv")`,
		}, []string{"code-stub-body@5:9"}},
		{"raise NotImplementedError with another message in an elif (corpus: run_t1_iter28a_autogluon.py)", "run_t1_iter28a_autogluon.py", []string{
			"def main(args):",
			`    if args.mode == "screen":`,
			"        run_screen()",
			`    elif args.mode == "lockbox":`,
			`        raise NotImplementedError("Run lockbox only after screen passes.")`,
		}, nil},
		{"a message over lines saying stub (corpus: run_t3_iter26_hssayeni.py)", "run_t3_iter26_hssayeni.py", []string{
			"def download():",
			`    """Blocked on the data use agreement."""`,
			"    raise SystemExit(",
			`        "[download] BLOCKED ON DUA.\n"`,
			`        f"  Run --mode probe first on {SYNAPSE_PROJECT}.\n"`,
			`        "  This stub will be filled in when access is confirmed.\n"`,
			"    )",
		}, []string{"code-stub-body@6:9"}},
		{"Allman braces (C#) around NotImplementedException", "Service.cs", []string{
			"public void Run()",
			"{",
			"    throw new NotImplementedException();",
			"}",
		}, []string{"code-stub-body@3:5"}},
		{"a TypeScript signature over lines", "load.ts", []string{
			"export async function load(",
			"  id: string,",
			"): Promise<User | null> {",
			"  return null;",
			"}",
		}, []string{"code-stub-return@4:3"}},
		{"a Java method with a return type and throws", "Repo.java", []string{
			"  public List<String> names(int limit) throws IOException {",
			"    return null;",
			"  }",
		}, []string{"code-stub-return@2:5"}},
		{"an arrow function", "a.ts", []string{"const items = () => {", "  return [];", "};"}, []string{"code-stub-return@2:3"}},
		{"an if block is no function", "a.ts", []string{"if (!ready) {", "  return null;", "}"}, nil},
		{"more code after the return", "a.ts", []string{"function f() {", "  return null;", "  cleanup();", "}"}, nil},
		{"Rust todo! in a match arm", "src/lib.rs", []string{"match kind {", "    Kind::A => 1,", "    _ => todo!(),", "}"}, []string{"code-stub-body@3:10"}},
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

// TestPlaceholderWholeBodyAcrossLines: with the head content, a stub's
// function is known from the lines around the added ones, above and below;
// without it, a run of added lines that does not hold the function's braces
// has no stub.
func TestPlaceholderWholeBodyAcrossLines(t *testing.T) {
	src := "package a\n\nfunc (s *S) Name() *string {\n\treturn nil;\n}\n\nfunc (s *S) Size() int {\n\treturn 0;\n}\n"
	py := "class A:\n    def f(self):\n        return None\n\n    def g(self):\n        return None\n        print('after')\n"
	files := []changeset.File{modifiedAt("a.go", src, 4, 8), modifiedAt("a.py", py, 3, 6)}
	head := map[string]string{"a.go": src, "a.py": py}
	_, got := placeholdersHead(t, nil, headFS(t, head), files...)
	if want := []string{"code-stub-return@4:2", "code-stub-return@8:2", "code-stub-return@3:9"}; !slices.Equal(got, want) {
		t.Errorf("with the head: findings %v, want %v", got, want)
	}
	_, got = placeholdersHead(t, nil, nil, files...)
	if len(got) != 0 {
		t.Errorf("run by run: findings %v, want none", got)
	}
}

// TestPlaceholderMarkers: comment markers in upper case, or in any case
// before ':' or '(' (B08); words in other languages and prose are not.
func TestPlaceholderMarkers(t *testing.T) {
	for _, c := range []struct {
		name, path, line string
		want             []string // rule@column
	}{
		{"Spanish todo (corpus: ModuloMateriales.tsx)", "src/components/modulos/ModuloMateriales.tsx", "      // hace que la imagen ocupe todo el segmento", nil},
		{"Spanish todo in a docstring (corpus: _prueba_gui_batch.py)", "prueba_croquis/_prueba_gui_batch.py", `"""Valida todo el camino del modo --batch."""`, nil},
		{"Spanish todo in a span (corpus: pdf_hacia_html.html)", "pdf_hacia_html.html", `<span class="cc2">// Llenar todo de una vez</span> <!-- todo listo -->`, nil},
		{"mé-todo is one word", "a.ts", "// usa el método TODO_LIST", nil},
		{"a list-comprehension hack (corpus: run_t1_iter5_targets.py)", "run_t1_iter5_targets.py", "# Fix tremor (above used a list-comprehension hack that dropped rows)", nil},
		{"a CSS comment on a hack (corpus: CURRENT_PAPER.html)", "paper.css", "/* :where() is a hack that increases specificity */", nil},
		{"lower-case xxx in a path (B08)", "a.ts", "// layout: plugins/xxx/index.js", nil},
		{"lower-case xxx as sample values", "run.sh", "# curl 'https://api.test/?key=xxx, token=xxx'", nil},
		{"xxx in a pattern description (corpus: cache_clinical_extras.py)", "cache_clinical_extras.py", `    # matches "X (xxx) times daily"`, nil},
		{"TBD in upper case (corpus: run_t1_iter37_phaselocked_postk500.py)", "run_t1_iter37_phaselocked_postk500.py", "    # Would require running compose_t1_iter12_honest; for now flag as TBD", []string{"comment-other@71"}},
		{"todo( with an owner, any case", "a.go", "// todo(alice): drop after the migration", []string{"comment-todo@4"}},
		{"Todo: capitalised, with a colon", "a.py", "# Todo: wire the retry", []string{"comment-todo@3"}},
		{"Hack: with a colon", "a.go", "// Hack: the API returns 200 on errors", []string{"comment-other@4"}},
		{"TODO in a designer's header (corpus: DocumentCard.tsx)", "DocumentCard.tsx", "// Coder: implement TODO items, do not change component structure", []string{"comment-todo@21"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := placeholders(t, nil, added(c.path, c.line))
			var want []string
			for _, w := range c.want {
				rule, col, _ := strings.Cut(w, "@")
				want = append(want, rule+"@1:"+col)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q: findings %v, want %v", c.line, got, want)
			}
		})
	}
}

// TestPlaceholderStringValues: a string is a placeholder when it is one
// (the word alone, bracketed, or last after a separator) or says "not
// implemented"; not when it mentions the word, names an attribute or a
// CSS class, or is a URL.
func TestPlaceholderStringValues(t *testing.T) {
	for _, c := range []struct {
		name, path, line string
		want             []string // rule@column
	}{
		{"an HTML placeholder attribute in a Python string (corpus: landingpage server.py)", "server.py", `    '<input name="url" placeholder="https://github.com/owner/repo">'`, nil},
		{"a Tailwind placeholder: variant (corpus: RAGSettings.tsx)", "RAGSettings.tsx", `        className="placeholder:text-muted-foreground focus:ring-2"`, nil},
		{"a Tailwind placeholder- class", "a.tsx", `<input className="border placeholder-gray-400" />`, nil},
		{"CSS ::placeholder", "club.css", ".club-input::placeholder { color: #999; }", nil},
		{"a hyphenated class name (corpus: snake-game/index.html)", "snake-game/index.html", `        <div class="dpad-placeholder"></div>`, nil},
		{"getByPlaceholderText", "src/App.tsx", `const input = screen.getByPlaceholderText("Enter managed club name");`, nil},
		{"a URL", "a.ts", `const base = "https://placeholder.invalid/api";`, nil},
		{"a validator's message (corpus: pd_imu/experiments/access.py)", "access.py", `        return [f"{field} contains an unfilled placeholder"]`, nil},
		{"prose (corpus: audit_access_submission_tracker.py)", "audit.py", `    "Do not create placeholder versions of the packet.",`, nil},
		{"a count (corpus: show_access_request_fill_checklist.py)", "checklist.py", `    print(f"Placeholder count: {n}")`, nil},
		{"a UI guideline (corpus: ui-ux-pro-max)", "guide.ts", `const tip = "Use labels, not placeholders";`, nil},
		{"an f-string naming a variable placeholder (corpus: generate_paper_v4.py)", "generate_paper_v4.py", `            issues.append(f"Placeholder found: {placeholder}")`, nil},
		{"a list of marker words (corpus: generate_paper_v4.py)", "generate_paper_v4.py", `        for placeholder in ["TODO", "TBD", "XXX"]:`, nil},
		{"a key", "i18n/en.json", `  "placeholder": "Search documents",`, nil},
		{"an attribute name", "a.js", `input.setAttribute("placeholder", label);`, nil},
		{"a comparison", "a.py", `if mode == "stub":`, nil},
		{"a kanban status", "board.ts", `const column = { status: "todo" };`, nil},
		{"the whole value (corpus: msocr evaluation/harness.py)", "harness.py", `        "model": {"spec": "placeholder"},`, []string{"text-placeholder@28"}},
		{"last after a separator (corpus: run_t1_iter37_phaselocked_postk500.py)", "run.py", `boot = {"note": "Compute via run-time reproduction; placeholder"}`, []string{"text-placeholder@53"}},
		{"a bracketed value", "a.go", `title := "<placeholder>"`, []string{"text-placeholder@12"}},
		{"TODO as a value", "a.go", `desc := "TODO"`, []string{"text-placeholder@10"}},
		{"not implemented in a print (corpus: run_t1_ceiling_push_slotD.py)", "slotD.py", `        print("Lockbox is not implemented under SKIP decision.")`, []string{"text-placeholder@27"}},
		{"not yet implemented in single quotes", "a.py", `msg = 'screen mode not yet implemented'`, []string{"text-placeholder@20"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := placeholders(t, nil, added(c.path, c.line))
			var want []string
			for _, w := range c.want {
				rule, col, _ := strings.Cut(w, "@")
				want = append(want, rule+"@1:"+col)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q: findings %v, want %v", c.line, got, want)
			}
		})
	}
}
