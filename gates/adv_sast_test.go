package gates

import "testing"

// TestAdvSASTHiddenLineTerminator: JavaScript ends a line comment at a
// lone CR, U+2028 and U+2029, and Python, Java, C, C# and PHP at a lone
// CR: the code after one runs. git and the scanner split lines on '\n'
// only, so the lexer must not take that code for the rest of the comment
// and dismiss its findings as "in a comment".
func TestAdvSASTHiddenLineTerminator(t *testing.T) {
	cases := []struct{ path, src, rule string }{
		{"a.js", "// hi\reval(req.query.code);\n", "sast/js-eval"},
		{"b.js", "function f(req) { // hi\u2028  eval(req.query.code);\n}\n", "sast/js-eval"},
		{"c.ts", "/* ok */ // hi\u2029eval(req.body.code);\n", "sast/js-eval"},
		{"d.py", "import os\n# hi\ros.system(input())\n", ""},
	}
	// JavaScript and C# read U+00A0 (and the other Zs spaces, U+FEFF) as
	// white space: eval after one is the builtin, no longer name.
	for _, sp := range []string{"\u00a0", "\u3000", "\ufeff", "\u2003"} {
		src := "function f(req) {" + sp + "eval(req.query.code); }\n"
		got, dismissed, _ := ScanSASTFile("s.js", []byte(src))
		if len(got) == 0 {
			t.Errorf("%q before eval: dismissed %v", sp, dismissed)
		}
	}
	for _, c := range cases {
		plain, _, _ := ScanSASTFile(c.path, []byte(replaceTerminators(c.src)))
		got, dismissed, skipped := ScanSASTFile(c.path, []byte(c.src))
		if skipped != "" {
			t.Fatalf("%s: skipped: %s", c.path, skipped)
		}
		if len(plain) == 0 {
			t.Fatalf("%s: the control (plain newlines) finds nothing", c.path)
		}
		if len(got) < len(plain) {
			t.Errorf("%s: %d findings with plain newlines, %d with the hidden line terminator (dismissed: %v)", c.path, len(plain), len(got), dismissed)
		}
	}
}

func replaceTerminators(s string) string {
	out := []rune{}
	for _, r := range s {
		switch r {
		case '\r', '\u2028', '\u2029':
			r = '\n'
		}
		out = append(out, r)
	}
	return string(out)
}

// TestAdvSASTLexerDisagrees: code the language runs that swarm/sast's
// lexer reads as a comment or a string, so that the finding is dismissed.
// Java turns \uXXXX escapes into characters before it lexes (a \u000a in
// a line comment ends it; \u002a\u002f closes a block comment), and
// Python 3.12 (PEP 701) lets an f-string's replacement field reuse the
// string's own quote. After "if (...)" a '/' opens a regular expression
// literal, not a division (node runs the eval below).
func TestAdvSASTLexerDisagrees(t *testing.T) {
	cases := []struct{ path, src string }{
		{"A.java", "class A { void f(String c) throws Exception { // \\u000a Runtime.getRuntime().exec(c);\n } }\n"},
		{"B.java", "class B { void f(String c) throws Exception {\n /* \\u002a\\u002f Runtime.getRuntime().exec(c); /* */\n } }\n"},
		{"c.py", "import os\nd = {}\ns = f'{d['k']}'; os.system(input())\n"},
		{"d.py", "import os\ns = f\"{'\"'}\" ; os.system(input())\n"},
		{"e.js", "if (a) /'/.test(b); eval(req.query.c); //'\n"},
	}
	for _, c := range cases {
		got, dismissed, _ := ScanSASTFile(c.path, []byte(c.src))
		if len(got) == 0 {
			t.Errorf("%s: no finding kept; dismissed %v", c.path, dismissed)
		}
	}
}
