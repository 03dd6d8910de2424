package sast

import (
	"slices"
	"strings"
	"testing"
)

// ruleCase is one line (or file) checked against one rule: col is the
// expected column of its only finding, 0 for none.
type ruleCase struct {
	rule    string
	path    string
	content string
	col     int
}

// ruleCases has, for every rule, at least one line it flags and one it does
// not (for validators: a file the validator drops).
var ruleCases = []ruleCase{
	// Go
	{"go-hardcoded-secret", "a.go", "\tAPIToken: \"abcdefghij1234\",", 5},
	{"go-hardcoded-secret", "a.go", `password = "abcdefghijkl"`, 1},
	{"go-hardcoded-secret", "a.go", `token := "abcdefghijklmnop"`, 0}, // ':' then '=' is not a single separator
	{"go-hardcoded-secret", "a.go", `password = "short"`, 0},
	{"go-hardcoded-secret", "a.go", "paſsword = \"abcdefghijkl\"", 0}, // the i flag folds ASCII only
	{"go-weak-tls", "a.go", "tls.Config{InsecureSkipVerify: true}", 12},
	{"go-weak-tls", "a.go", "tls.Config{InsecureSkipVerify: false}", 0},
	{"go-shell-injection", "a.go", `cmd := exec.Command("ls")`, 8},
	{"go-shell-injection", "a.go", `p, _ := exec.LookPath("ls")`, 0},
	{"go-template-injection", "a.go", "return template.HTML(s)", 8},
	{"go-template-injection", "a.go", "return template.HTMLEscapeString(s)", 0},
	{"go-pprof", "a.go", `import _ "net/http/pprof"`, 11},
	{"go-pprof", "a.go", `import "net/http"`, 0},

	// Python
	{"py-pickle", "a.py", "data = pickle.loads(raw)", 8},
	{"py-pickle", "a.py", "import pickle", 0},
	{"py-shell-injection", "a.py", "subprocess.run(cmd, shell=True)", 21},
	{"py-shell-injection", "a.py", "subprocess.run(cmd, shell=False)", 0},
	{"py-yaml-unsafe", "a.py", "data = yaml.load(f)", 8},
	{"py-yaml-unsafe", "a.py", "data = yaml.load(f, Loader=yaml.SafeLoader)", 0},
	{"py-yaml-unsafe", "a.py", "import yaml\ncfg = yaml.safe_load(a)\ndata = yaml.load(b)", 0},
	{"py-eval", "a.py", "x = eval(s)", 5},
	{"py-eval", "a.py", "x = literal_eval(s)", 0},
	{"py-exec", "a.py", "exec(code)", 1},
	{"py-exec", "a.py", "executor(code)", 0},
	{"py-os-system", "a.py", "os.system(cmd)", 1},
	{"py-os-system", "a.py", "subprocess.run([cmd])", 0},
	{"py-assert", "a.py", "    assert x > 0", 1},
	{"py-assert", "a.py", "x = 1\rassert y", 7}, // "^" also matches after a CR
	{"py-assert", "a.py", "self.assertEqual(a, b)", 0},
	{"py-sql-injection", "a.py", `cur.execute(f"SELECT {x}")`, 5},
	{"py-sql-injection", "a.py", `cur.execute("SELECT ?", (x,))`, 0},
	{"py-hardcoded-secret", "a.py", `API_KEY = "abcdefghijklmnopqrstuvwxyz"`, 1},
	{"py-hardcoded-secret", "a.py", `API_KEY = os.environ["API_KEY"]`, 0},
	{"py-marshal", "a.py", "marshal.loads(b)", 1},
	{"py-marshal", "a.py", "import marshal", 0},

	// JavaScript and TypeScript
	{"js-eval", "a.js", "const r = eval(input);", 11},
	{"js-eval", "a.js", "const r = evaluate(input);", 0},
	{"js-dangerous-function", "a.ts", `const f = new Function("return 1");`, 11},
	{"js-dangerous-function", "a.ts", "function f() {}", 0},
	{"js-command-injection", "a.js", "exec(`rm -rf ${dir}`);", 1},
	{"js-command-injection", "a.js", "exec(cmd);", 0},
	{"js-set-timeout-string", "a.jsx", `setTimeout("tick()", 100);`, 1},
	{"js-set-timeout-string", "a.jsx", "setTimeout(() => tick(), 100);", 0},
	{"js-innerhtml", "a.tsx", "el.innerHTML = html;", 3},
	{"js-innerhtml", "a.tsx", "const h = el.innerHTML;", 0},
	{"js-document-write", "a.mjs", "document.write(x)", 1},
	{"js-document-write", "a.mjs", "document.writeln(x)", 0},
	{"js-postmessage", "a.cjs", "window.addEventListener('message', onMsg)", 8},
	{"js-postmessage", "a.cjs", "window.addEventListener('click', onClick)", 0},
	{"js-hardcoded-secret", "a.js", `const API_KEY = "` + fakeStripeKey + `";`, 7},
	{"js-hardcoded-secret", "a.js", "const API_KEY = process.env.API_KEY;", 0},

	// Rust
	{"rust-hardcoded-secret", "a.rs", `const API_TOKEN: &str = "abcdefghijkl";`, 11},
	{"rust-hardcoded-secret", "a.rs", `let token = env::var("TOKEN")?;`, 0},
	{"rust-command-injection", "a.rs", `Command::new("sh").arg("-c")`, 1},
	{"rust-command-injection", "a.rs", `Command::new("ls")`, 0},
	{"rust-unsafe-block", "a.rs", "unsafe { ptr::read(p) }", 1},
	{"rust-unsafe-block", "a.rs", "unsafe fn f() -> u8", 0},

	// Java
	{"java-command-injection", "A.java", "Runtime.getRuntime().exec(cmd);", 21},
	{"java-command-injection", "A.java", "executor.execute(r);", 0},
	{"java-deserialization", "A.java", "Object o = in.readObject();", 15},
	{"java-deserialization", "A.java", "Object o = in.readObject(cls);", 0},
	{"java-xss", "A.java", "response.getWriter().write(name);", 10},
	{"java-xss", "A.java", "response.getWriter().flush();", 0},
	{"java-hardcoded-secret", "A.java", `String password = "hunter2";`, 8},
	{"java-hardcoded-secret", "A.java", "String password = args[0];", 0},
	{"java-xxe", "A.java", "DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();", 28},
	{"java-xxe", "A.java", "SAXParserFactory f = SAXParserFactory.newInstance();", 0},
	{"java-path-traversal", "A.java", `File f = new File(request.getParameter("p"));`, 10},
	{"java-path-traversal", "A.java", `File f = new File("/etc/app.conf");`, 0},
	{"java-sqli", "A.java", `ResultSet rs = conn.createStatement().executeQuery("SELECT " + id);`, 21},
	{"java-sqli", "A.java", `conn.prepareStatement("SELECT ?");`, 0},
	{"java-weak-crypto", "A.java", `MessageDigest.getInstance("MD5")`, 1},
	{"java-weak-crypto", "A.java", `messagedigest.getinstance("sha1")`, 1},
	{"java-weak-crypto", "A.java", `MessageDigest.getInstance("SHA-256")`, 0},
	{"java-trust-manager", "A.java", "new X509TrustManager { public void checkClientTrusted(", 9},
	{"java-trust-manager", "A.java", "public void checkClientTrusted(X509Certificate[] c, String a) {}", 0},

	// PHP
	{"php-unserialize", "a.php", "$o = unserialize($_COOKIE['o']);", 6},
	{"php-unserialize", "a.php", "$o = unserialize($data);", 0},
	{"php-command-injection", "a.php", "system($_GET['cmd']);", 1},
	{"php-command-injection", "a.php", "system('ls');", 0},
	{"php-eval", "a.php", "eval($code);", 1},
	{"php-eval", "a.php", "$evaluated = 1;", 0},
	{"php-include", "a.phtml", "include($_GET['page']);", 1},
	{"php-include", "a.phtml", "include('header.php');", 0},
	{"php-xss", "a.php", "echo $_GET['name'];", 1},
	{"php-xss", "a.php", "echo htmlspecialchars($_GET['name']);", 0},
	{"php-sqli", "a.php", `mysql_query("SELECT * FROM t WHERE id=" . $_GET['id']);`, 1},
	{"php-sqli", "a.php", "MYSQL_QUERY($_POST['q']);", 1},
	{"php-sqli", "a.php", "mysql_query($sql);", 0},
	{"php-file-read", "a.php", "readfile($_GET['f']);", 1},
	{"php-file-read", "a.php", "readfile('/tmp/x');", 0},
	{"php-assert", "a.php", "assert($_POST['x']);", 1},
	{"php-assert", "a.php", "assert($x > 0);", 0},
	{"php-create-function", "a.php", "$f = create_function('$a', 'return $a;');", 6},
	{"php-create-function", "a.php", "$f = function ($a) { return $a; };", 0},
	// As in the plugin, the pattern must follow "(" directly: a quoted
	// pattern, the only form PHP accepts, is never flagged.
	{"php-preg-replace", "a.php", "preg_replace( /.*/e, $r, $s);", 1},
	{"php-preg-replace", "a.php", "preg_replace('/.*/e', $r, $s);", 0},
	{"php-preg-replace", "a.php", "preg_replace(/.*/i, $r, $s);", 0},
	{"php-laravel-sql-injection", "a.blade.php", `DB::raw("id = " . $id)`, 1},
	{"php-laravel-sql-injection", "a.php", "$q->whereRaw($sql);", 3},
	{"php-laravel-sql-injection", "a.php", "$q->whereRaw('id = ?', [$id]);", 0},
	{"php-laravel-mass-assignment", "a.php", "protected $guarded = [];", 1},
	{"php-laravel-mass-assignment", "a.php", "protected $guarded = ['id'];", 0},
	{"php-laravel-destructive-migration", "a.php", "Schema::dropIfExists('users');", 1},
	{"php-laravel-destructive-migration", "a.php", "Schema::dropIfExists('users');\npublic function down()\n{\n}", 0},

	// C and C++
	{"c-buffer-overflow", "a.c", "strcpy(buf, src);", 1},
	{"c-buffer-overflow", "a.c", "strncpy(buf, src, n);", 0},
	{"c-gets", "a.h", "gets(line);", 1},
	{"c-gets", "a.h", "fgets(line, n, stdin);", 0},
	{"c-scanf", "a.cpp", `scanf("%s", name);`, 1},
	{"c-scanf", "a.cpp", `scanf("%99s", name);`, 0},
	{"c-strlen", "a.cc", "for (i = 0; i < strlen(s); i++)", 1},
	{"c-strlen", "a.cc", "n = strlen(s);", 0},
	{"c-sprintf", "a.c", `sprintf(buf, "%d", n);`, 1},
	{"c-sprintf", "a.c", `snprintf(buf, sizeof buf, "%d", n);`, 0},
	{"c-strdup", "a.hpp", "char *c = strdup(s);", 11},
	{"c-strdup", "a.hpp", "char *c = strndup(s, n);", 0},
	{"c-atoi", "a.c", "int n = atoi(argv[1]);", 9},
	{"c-atoi", "a.c", "long n = strtol(argv[1], NULL, 10);", 0},
	{"c-format-string", "a.c", "printf($_GET);", 1},
	{"c-format-string", "a.c", `printf("%s", s);`, 0},
	{"c-weak-random", "a.c", "int r = rand();", 9},
	{"c-weak-random", "a.c", "int r = rand_r(&seed);", 0},

	// C#
	{"cs-command-injection", "A.cs", `Process.Start("cmd.exe", args);`, 1},
	{"cs-command-injection", "A.cs", "var psi = new ProcessStartInfo(f) { USESHELLEXECUTE = false };\nProcess.Start(psi);", 0},
	{"cs-sqli", "A.cs", `cmd.ExecuteReader("SELECT " + id);`, 4},
	{"cs-sqli", "A.cs", "cmd.ExecuteReader();", 0},
	{"cs-xss", "A.cs", `Response.Write(Request["name"]);`, 1},
	{"cs-xss", "A.cs", "Response.Write(HttpUtility.HtmlEncode(x));", 0},
	{"cs-deserialization", "A.cs", "var bf = new BinaryFormatter();", 14},
	{"cs-deserialization", "A.cs", "var js = new JsonSerializer();", 0},
	{"cs-hardcoded-secret", "A.csx", `string password = "SuperSecret123";`, 8},
	{"cs-hardcoded-secret", "A.csx", `string password = config["pw"];`, 0},
	{"cs-path-traversal", "A.cs", `File.Open(Request["f"], FileMode.Open)`, 1},
	{"cs-path-traversal", "A.cs", `File.ReadAllText(Request["f"])`, 0}, // only Read(, Write(, Open(, AllLines(
	{"cs-xml-xxe", "A.cs", "var r = XmlReader.Create(stream);", 9},
	{"cs-xml-xxe", "A.cs", "var d = new XmlDocument();", 0},
	{"cs-weak-random", "A.cs", "var rnd = new Random();", 11},
	{"cs-weak-random", "A.cs", "var rng = RandomNumberGenerator.Create();", 0},
	{"cs-hardcoded-connection-string", "A.cs", `ConnectionString = "Server=x;User Id=sa;Password=p"`, 1},
	{"cs-hardcoded-connection-string", "A.cs", `ConnectionString = Configuration["Db"]`, 0},
	{"cs-weak-encryption", "A.cs", "var des = new DESCryptoServiceProvider();", 15},
	{"cs-weak-encryption", "A.cs", "var aes = Aes.Create();", 0},
	{"cs-ssl-validation-bypass", "A.cs", "ServicePointManager.ServerCertificateValidationCallback = AcceptAll;", 21},
	{"cs-ssl-validation-bypass", "A.cs", "ServicePointManager.ServerCertificateValidationCallback = ValidateCert;", 0},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		id := "sast/" + tc.rule
		name := tc.rule + "/" + map[bool]string{true: "flags", false: "passes"}[tc.col > 0] + "/" + tc.content
		t.Run(name, func(t *testing.T) {
			if RuleByID(id) == nil {
				t.Fatalf("no rule %s", id)
			}
			all, skipped := ScanFile(tc.path, []byte(tc.content))
			if skipped != "" {
				t.Fatalf("skipped: %s", skipped)
			}
			var got []Finding
			for _, f := range all {
				if f.RuleID == id {
					got = append(got, f)
				}
			}
			switch {
			case tc.col == 0 && len(got) > 0:
				t.Fatalf("flagged at %d:%d, want no finding", got[0].Line, got[0].Column)
			case tc.col > 0 && len(got) != 1:
				t.Fatalf("got %d findings, want 1", len(got))
			case tc.col > 0 && got[0].Column != tc.col:
				t.Fatalf("column %d, want %d", got[0].Column, tc.col)
			}
			if tc.col > 0 {
				r := RuleByID(id)
				if f := got[0]; f.Severity != r.Severity || f.Message != r.Message || f.Secret != r.Secret || f.Engine != EngineTierA {
					t.Errorf("finding %+v does not carry the rule's fields", f)
				}
			}
		})
	}
}

// TestRulesCovered checks that every rule has a flagged and a passing case,
// and the rule set's shape: ids, counts per language, severities.
func TestRulesCovered(t *testing.T) {
	flagged, passed := map[string]bool{}, map[string]bool{}
	for _, tc := range ruleCases {
		if tc.col > 0 {
			flagged["sast/"+tc.rule] = true
		} else {
			passed["sast/"+tc.rule] = true
		}
	}
	seen := map[string]bool{}
	for _, r := range AllRules() {
		if seen[r.ID] {
			t.Errorf("duplicate rule id %s", r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.ID, "sast/") || r.Message == "" || r.Remediation == "" || r.Severity.Rank() == 0 {
			t.Errorf("rule %s: malformed %+v", r.ID, r)
		}
		if !flagged[r.ID] || !passed[r.ID] {
			t.Errorf("rule %s needs a flagged and a passing case", r.ID)
		}
		if r.Secret != strings.Contains(r.ID, "hardcoded") {
			t.Errorf("rule %s: Secret = %v", r.ID, r.Secret)
		}
	}
	want := map[Language]int{Go: 5, Python: 10, JavaScript: 8, TypeScript: 8, Rust: 3, Java: 9, PHP: 13, CPP: 9, CSharp: 11}
	for l, n := range want {
		if got := len(Rules(l)); got != n {
			t.Errorf("%s: %d rules, want %d", l, got, n)
		}
	}
	if n := len(AllRules()); n != 68 {
		t.Errorf("%d rules, want 68", n)
	}
}

func TestLanguageOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		lang Language
		ok   bool
	}{
		{"main.go", Go, true},
		{"a/b/App.TSX", TypeScript, true},
		{"x.pyw", Python, true},
		{"views/home.blade.php", PHP, true},
		{"src/x.hh", CPP, true},
		{"s.csx", CSharp, true},
		{"build.gradle.kts", "kotlin", true},
		{"deploy.sh", "bash", true},
		{"README.md", "", false},
		{"Makefile", "", false},
		{".bashrc", "", false},
		{"dir.go/file", "", false},
		{"a.", "", false},
	} {
		l, ok := LanguageOf(tc.path)
		if l != tc.lang || ok != tc.ok {
			t.Errorf("LanguageOf(%q) = %q, %v; want %q, %v", tc.path, l, ok, tc.lang, tc.ok)
		}
	}
	if got := Rules("kotlin"); got != nil {
		t.Errorf("kotlin has rules: %v", got)
	}
}

// TestRuleLiterals checks the prefilter's premise on every flagged case:
// the matched text contains one of the rule's literals, and starts with one
// when the rule is anchored.
func TestRuleLiterals(t *testing.T) {
	for _, tc := range ruleCases {
		if tc.col == 0 {
			continue
		}
		r := RuleByID("sast/" + tc.rule)
		for _, line := range strings.Split(tc.content, "\n") {
			for _, m := range r.re.FindAllString(line, -1) {
				if r.Fold {
					m = strings.ToLower(m)
				}
				if !slices.ContainsFunc(r.literals, func(l string) bool { return strings.Contains(m, l) }) {
					t.Errorf("%s: match %q contains none of %q", r.ID, m, r.literals)
				}
				if r.anchored != nil && !slices.ContainsFunc(r.literals, func(l string) bool { return strings.HasPrefix(m, l) }) {
					t.Errorf("%s: anchored, but match %q starts with none of %q", r.ID, m, r.literals)
				}
			}
		}
	}
}

func TestCompileJS(t *testing.T) {
	for _, tc := range []struct {
		src, in string
		fold    bool
		want    string // the match, "" for none
	}{
		{`a\sb`, "a\u00a0b", false, "a\u00a0b"},
		{`a\sb`, "a\ufeffb", false, "a\ufeffb"},
		{`a\sb`, "a\u0085b", false, ""},
		{`a\sb`, "a\vb", false, "a\vb"},
		{`a\Sb`, "a b", false, ""},
		{`a.b`, "a\rb", false, ""},
		{`a.b`, "a\u2028b", false, ""},
		{`a.b`, "aéb", false, "aéb"},
		{`key`, "KEY", true, "KEY"},
		{`key`, "\u212aey", true, ""},
		{`s`, "\u017f", true, ""},
		{`(?<secret>ab)`, "AB", true, "AB"},
		{`[a-z]+`, "ABC", true, ""}, // classes are not folded
		{`\x41`, "A", true, "A"},
		{`\x{41}`, "A", true, "A"},
	} {
		re, err := compileJS(tc.src, tc.fold)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if got := re.FindString(tc.in); got != tc.want {
			t.Errorf("%q on %q: got %q, want %q", tc.src, tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`a\`, `[a`, `[]`, `[^]`, `[\S]`, `(?<x`, `\x{41`} {
		if _, err := compileJS(bad, false); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
