package sast

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The plugin's rules are line regexes, and on real pull requests they
// raise false alarms that a reader sees at a glance: PyTorch's model.eval()
// as the eval builtin, "eval (" in a docstring, os.system("literal") as
// shell injection, td.innerHTML = '&nbsp;' as XSS, a table name in a PRAGMA
// as SQL injection. Refine runs after ScanFile and Fingerprints (so that
// fingerprints and occurrence indices stay the plugin's) and, per rule,
// dismisses a finding that is not what the rule means, or lowers its
// severity when its input can only be constant. Rule ids never change.

// Pos is a byte offset in a line (1-based) of a file, split as ScanFile
// splits it.
type Pos struct{ Line, Off int }

// Lexer tells code from comments, string literals and regular expression
// literals: for each position, whether it is code. lines are the file's
// lines as ScanFile splits them (a trailing '\r' removed). The package
// has no lexer of its own; swarm/placeholders' is passed in.
type Lexer func(path string, lines []string, at []Pos) []bool

// Notes of dismissed findings.
const (
	NoteNotCode     = "in a comment or string literal, not code"
	NoteMethod      = "a method of that name on another object (PyTorch's model.eval(), app.exec()), not the builtin"
	NoteDefinition  = "a definition of a function or method of that name, not a call"
	NoteLongerName  = "part of a longer name, not the function the rule means"
	NoteNotChildExe = "a method named exec (RegExp's, a database's), and the file does not use child_process, shelljs or @actions/exec"
	NoteConstHTML   = "a string literal without interpolation or concatenation: no input reaches the HTML"
	NoteComparison  = "a comparison (==), not an assignment"
)

// Notes of findings whose severity Refine lowers to low.
const (
	NoteConstCommand = "refined to low: the command is built only from literals and UPPER_CASE constants, so no input reaches it (bandit B605's reasoning)"
	NoteSQLIdent     = "refined to low: only identifiers (a table or column name) are interpolated, which SQL cannot bind as parameters; check they are allow-listed"
	NoteConstSQL     = "refined to low: the query interpolates only literals and UPPER_CASE constants"
)

// Refine returns the findings of one file that stand, some with a lower
// severity and a Note, and the ones it dismissed, each with its Note. path
// and content are the file's (content as ScanFile read it); lex may be nil,
// and then nothing is dismissed for being in a comment or string. Findings
// of other engines (SARIF) are kept as they are.
func Refine(path string, findings []Finding, content []byte, lex Lexer) (kept, dismissed []Finding) {
	if len(findings) == 0 {
		return findings, nil
	}
	lang, _ := LanguageOf(path)
	if lang == TypeScript {
		lang = JavaScript
	}
	var text string
	file := func() string {
		if text == "" {
			text = jsText(content)
		}
		return text
	}
	inCode := make([]bool, len(findings))
	var at []Pos
	var which []int
	for i, f := range findings {
		inCode[i] = true
		if lex != nil && f.Engine == EngineTierA && codeOnly(f) {
			at = append(at, Pos{f.Line, offsetOf(f.Excerpt, f.Column)})
			which = append(which, i)
		}
	}
	if len(at) > 0 {
		lines := strings.Split(file(), "\n")
		for i := range lines {
			lines[i] = strings.TrimSuffix(lines[i], "\r")
		}
		javaEscapes := lang == Java && javaUnicodeEscape.MatchString(file())
		for k, code := range lex(path, lines, at) {
			if !code && lexerUntrusted(lang, javaEscapes, lines, at[k]) {
				code = true
			}
			inCode[which[k]] = code
		}
	}
	for i, f := range findings {
		if f.Engine != EngineTierA {
			kept = append(kept, f)
			continue
		}
		if !inCode[i] {
			f.Note = NoteNotCode
			dismissed = append(dismissed, f)
			continue
		}
		if r := refiners[f.RuleID]; r != nil && len(f.Excerpt) <= maxRefineLine {
			s := &site{lang: lang, line: f.Excerpt, at: offsetOf(f.Excerpt, f.Column), file: file}
			switch v := r(s); {
			case v.dismiss:
				f.Note = v.note
				dismissed = append(dismissed, f)
				continue
			case v.note != "":
				f.Severity, f.Note = Low, v.note
			}
		}
		kept = append(kept, f)
	}
	return kept, dismissed
}

// javaUnicodeEscape is a Java \uXXXX escape (any number of u's), which
// javac turns into its character before it lexes: "// \u000a code" runs
// the code, "\u002a\u002f" closes a block comment.
var javaUnicodeEscape = regexp.MustCompile(`\\u+[0-9a-fA-F]{4}`)

// pyFString is an f-string's opening quote; jsRegexAfterParen a '/' right
// after a ')', which opens a regular expression literal after
// "if (...)", "while (...)" and "for (...)" (a division elsewhere).
var (
	pyFString         = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])(?:f|rf|fr)['"]`)
	jsRegexAfterParen = regexp.MustCompile(`\)\s*/[^/*]`)
)

// lexerUntrusted reports whether the lexer's "not code" at p may be wrong
// because the file uses a construct it does not model, in which case the
// finding stands: Java's unicode escapes (javaEscapes: the file has one),
// a Python 3.12 f-string on the line before the match (PEP 701 lets its
// replacement fields reuse the string's quote: f"{'"'}"), or a JavaScript
// '/' after a ')' before the match (a regular expression after if (...),
// which the lexer reads as a division, so that a quote in it opens a
// string that hides the rest of the line). A finding kept this way costs a
// false alarm; one dismissed wrongly hides code that runs.
func lexerUntrusted(lang Language, javaEscapes bool, lines []string, p Pos) bool {
	if javaEscapes {
		return true
	}
	if p.Line < 1 || p.Line > len(lines) {
		return false
	}
	line := lines[p.Line-1]
	before := line[:max(0, min(p.Off-1, len(line)))]
	switch lang {
	case Python:
		return pyFString.MatchString(before)
	case JavaScript:
		return jsRegexAfterParen.MatchString(before)
	}
	return false
}

// maxRefineLine is the longest line the per-rule checks read: each reads
// its line from the match on, so a minified line holding thousands of
// matches would cost quadratic time. Longer lines keep the rule's verdict.
const maxRefineLine = 4096

// codeOnly reports whether a rule's match means something only in code.
// The secret rules do not (a credential in a comment is still committed),
// nor go-pprof (its match is an import path, a string).
func codeOnly(f Finding) bool {
	return !f.Secret && f.RuleID != "sast/go-pprof"
}

// offsetOf is the byte offset of 1-based UTF-16 column col in line.
func offsetOf(line string, col int) int {
	units := 0
	for i, r := range line {
		if units >= col-1 {
			return i
		}
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return len(line)
}

// site is one finding being refined.
type site struct {
	lang Language
	line string
	at   int // byte offset of the match in line
	file func() string
}

// verdict is a refiner's decision: dismiss the finding, or lower it to
// low (note set), or neither (the zero value).
type verdict struct {
	dismiss bool
	note    string
}

var keep verdict

func dismiss(note string) verdict { return verdict{dismiss: true, note: note} }
func lower(note string) verdict   { return verdict{note: note} }

// refiners are the per-rule checks; a rule without one is kept as the
// plugin reports it.
var refiners = map[string]func(*site) verdict{
	"sast/py-eval":  builtinCall("builtins", "__builtins__"),
	"sast/py-exec":  builtinCall("builtins", "__builtins__"),
	"sast/js-eval":  builtinCall("window", "globalThis", "self", "global", "top", "parent", "frames"),
	"sast/php-eval": builtinCall(),

	"sast/py-os-system":           osSystem,
	"sast/py-shell-injection":     shellTrue,
	"sast/js-command-injection":   jsExec,
	"sast/java-command-injection": constCommand,
	"sast/cs-command-injection":   constCall,
	"sast/go-shell-injection":     goCommand,

	"sast/py-sql-injection": pySQL,

	"sast/js-innerhtml":      innerHTML,
	"sast/js-document-write": documentWrite,
}

// prevWord returns the non-blank byte before s.at and, when it is a '.',
// '>' ("->") or ':' ("::"), the identifier before that; when it is an
// identifier byte, that identifier.
func (s *site) prevWord() (prev byte, word string) {
	i := s.at - 1
	for i >= 0 && (s.line[i] == ' ' || s.line[i] == '\t') {
		i--
	}
	if i < 0 {
		return 0, ""
	}
	prev = s.line[i]
	end := i + 1
	if prev == '.' || prev == '>' || prev == ':' {
		end = i
		for end > 0 && (s.line[end-1] == ' ' || s.line[end-1] == '\t' || s.line[end-1] == '-' && prev == '>' || s.line[end-1] == ':' && prev == ':') {
			end--
		}
	}
	j := end
	for j > 0 && isIdentByte(s.lang, s.line[j-1]) {
		j--
	}
	return prev, s.line[j:end]
}

// identBefore reports whether the match at byte at of line continues an
// identifier: the character before it is an identifier character. A
// non-ASCII character counts unless it is white space or a line end to
// JavaScript or C# (U+00A0, U+2000 to U+200A, U+3000, U+FEFF, U+2028,
// U+2029, U+0085, ...): "\u00a0eval(x)" calls eval, and so does
// "// x\u2028eval(x)".
func identBefore(lang Language, line string, at int) bool {
	if at <= 0 {
		return false
	}
	if line[at-1] < utf8.RuneSelf {
		return isIdentByte(lang, line[at-1])
	}
	r, _ := utf8.DecodeLastRuneInString(line[:at])
	return !(unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || r == '\uFEFF' || r == '\u2028' || r == '\u2029')
}

// builtinCall is the check of the eval and exec rules: only a call of the
// builtin counts, not a method of that name (model.eval(), $obj->eval(),
// Foo::eval()), a longer name ($eval, évaluer), or a definition (def
// eval(self), eval(x) { ... } in a class). receivers are the objects
// through which the builtin itself is reached (window.eval).
func builtinCall(receivers ...string) func(*site) verdict {
	return func(s *site) verdict {
		if identBefore(s.lang, s.line, s.at) {
			return dismiss(NoteLongerName)
		}
		prev, word := s.prevWord()
		before := strings.TrimRight(s.line[:s.at], " \t")
		switch {
		// In PHP '.' concatenates: "a" . eval($x) is a call.
		case prev == '.' && s.lang != PHP, strings.HasSuffix(before, "->"), strings.HasSuffix(before, "::"):
			for _, r := range receivers {
				if word == r {
					return keep
				}
			}
			return dismiss(NoteMethod)
		case isIdentByte(s.lang, prev) && (word == "def" || word == "function"):
			return dismiss(NoteDefinition)
		}
		if s.lang == JavaScript {
			// A method definition in a class or object literal: eval(x) { ... }.
			toks, _ := tokenize(s.lang, s.line, s.at)
			if open := 1; nextText(toks, open) == "(" {
				if _, end, ok := callArgs(toks, open); ok && nextText(toks, end+1) == "{" {
					return dismiss(NoteDefinition)
				}
			}
		}
		return keep
	}
}

// callAfter returns the tokens from the match on and the index of the
// '(' of the first call that starts within its first few tokens
// (os.system(, exec.Command(, .exec(), or -1.
func (s *site) callAfter() (toks []token, open int) {
	toks, _ = tokenize(s.lang, s.line, s.at)
	for i := 1; i < len(toks) && i < 6; i++ {
		if toks[i].text == "(" && toks[i-1].kind == tokName {
			return toks, i
		}
	}
	return toks, -1
}

// callArgsAfter returns the arguments of that call, and its name; ok is
// false when it does not close on the line.
func (s *site) callArgsAfter() (args [][]token, name string, ok bool) {
	toks, open := s.callAfter()
	if open < 0 {
		return nil, "", false
	}
	args, _, ok = callArgs(toks, open)
	return args, toks[open-1].text, ok
}

// constCall lowers a call whose arguments are all constant
// (Process.Start(fileName, arguments): both are the command).
func constCall(s *site) verdict {
	args, _, ok := s.callArgsAfter()
	if ok && allConst(s.lang, args) {
		return lower(NoteConstCommand)
	}
	return keep
}

// constCommand lowers a call whose first argument, the command, is
// constant; the others are not given to a shell (exec(cmd, options,
// callback), Runtime.exec(cmd, envp)).
func constCommand(s *site) verdict {
	toks, open := s.callAfter()
	if arg, ok := firstArg(toks, open); ok && isConstExpr(s.lang, arg) {
		return lower(NoteConstCommand)
	}
	return keep
}

// osSystem: the rule has no word boundary, so chaos.system( is no call of
// os.system.
func osSystem(s *site) verdict {
	if identBefore(s.lang, s.line, s.at) {
		return dismiss(NoteLongerName)
	}
	return constCall(s)
}

// goCommand: exec.CommandContext's first argument is the context.
func goCommand(s *site) verdict {
	args, name, ok := s.callArgsAfter()
	skip := 0
	if name == "CommandContext" {
		skip = 1
	}
	if ok && (name == "Command" || name == "CommandContext") && len(args) > skip && allConst(s.lang, args[skip:]) {
		return lower(NoteConstCommand)
	}
	return keep
}

// shellTrue looks at the call shell=True is an argument of: a constant
// command (its first argument) is low, as bandit's B602 rates it.
func shellTrue(s *site) verdict {
	toks, ok := tokenize(s.lang, s.line, 0)
	if !ok {
		return keep
	}
	var open []int
	for i, t := range toks {
		if t.start == s.at {
			if len(open) == 0 || open[len(open)-1] == 0 || toks[open[len(open)-1]-1].kind != tokName {
				return keep
			}
			args, _, ok := callArgs(toks, open[len(open)-1])
			if ok && len(args) > 0 && !isKeywordArg(args[0]) && isConstExpr(s.lang, args[0]) {
				return lower(NoteConstCommand)
			}
			return keep
		}
		switch t.text {
		case "(", "[", "{":
			open = append(open, i)
		case ")", "]", "}":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	return keep
}

func isKeywordArg(arg []token) bool {
	return len(arg) >= 2 && arg[0].kind == tokName && arg[1].text == "=" && nextText(arg, 2) != "="
}

// jsExec: child_process's exec, not RegExp.prototype.exec or a database's
// db.exec("CREATE TABLE ..."); the rule has no word boundary either.
func jsExec(s *site) verdict {
	if identBefore(s.lang, s.line, s.at) {
		return dismiss(NoteLongerName)
	}
	if prev, _ := s.prevWord(); prev == '.' {
		if f := s.file(); !strings.Contains(f, "child_process") && !strings.Contains(f, "shelljs") && !strings.Contains(f, "@actions/exec") {
			return dismiss(NoteNotChildExe)
		}
	}
	return constCommand(s)
}

// innerHTML: assigning a literal without interpolation or concatenation
// is not XSS; "x.innerHTML == y" is a comparison.
func innerHTML(s *site) verdict {
	toks, _ := tokenize(s.lang, s.line, s.at)
	eq := -1
	for i, t := range toks {
		if t.text == "=" {
			eq = i
			break
		}
	}
	if eq < 0 {
		return keep
	}
	if nextText(toks, eq+1) == "=" {
		return dismiss(NoteComparison)
	}
	rhs := toks[eq+1:]
	if len(rhs) > 0 && rhs[len(rhs)-1].text == ";" {
		rhs = rhs[:len(rhs)-1]
	}
	if len(rhs) == 1 && rhs[0].kind == tokLit && len(rhs[0].interps) == 0 {
		// The tokenizer stops at a line comment, but must have read the
		// whole line otherwise (a string opened and not closed fails).
		if _, ok := tokenize(s.lang, s.line, s.at); ok {
			return dismiss(NoteConstHTML)
		}
	}
	return keep
}

// documentWrite: document.write("<p>fixed</p>") writes no input.
func documentWrite(s *site) verdict {
	args, _, ok := s.callArgsAfter()
	if ok && len(args) == 1 && len(args[0]) == 1 && args[0][0].kind == tokLit && len(args[0][0].interps) == 0 {
		return dismiss(NoteConstHTML)
	}
	return keep
}

// sqlIdentBefore matches SQL text that ends where an identifier goes: after
// FROM, JOIN, INTO, UPDATE, TABLE (CREATE, ALTER, DROP TABLE, with IF [NOT]
// EXISTS), COLUMN, or in PRAGMA name(...), possibly inside an opening
// identifier quote.
var sqlIdentBefore = regexp.MustCompile("(?i)(?:\\b(?:from|join|into|update|table|column)(?:\\s+if\\s+(?:not\\s+)?exists)?|\\bpragma\\s+\\w+\\s*\\()\\s*[\"`\\[]?$")

// sqlDot matches the text between a schema and a table (s.{schema}.{table}).
var sqlDot = regexp.MustCompile("^[\"`\\]]?\\.[\"`\\[]?$")

// pySQL looks at the f-string execute() runs: when every interpolation is
// an identifier (after FROM, INTO, PRAGMA table_info(, ...) or an
// UPPER_CASE constant, nothing can be bound as a parameter there, and the
// finding is low. A value position (WHERE id = {x}) keeps it critical.
func pySQL(s *site) verdict {
	args, _, ok := s.callArgsAfter()
	if !ok || len(args) == 0 {
		return keep
	}
	var pieces, interps []string
	for _, t := range args[0] {
		if t.kind != tokLit {
			return keep // concatenation, a call: not only literals
		}
		if len(pieces) > 0 {
			// Adjacent literals concatenate: the last piece joins the next.
			pieces[len(pieces)-1] += t.pieces[0]
			pieces = append(pieces, t.pieces[1:]...)
		} else {
			pieces = append(pieces, t.pieces...)
		}
		interps = append(interps, t.interps...)
	}
	var sql strings.Builder
	ident, prevIdent := false, false
	for i, e := range interps {
		sql.WriteString(pieces[i])
		switch {
		case isConstInterp(e):
			prevIdent = false
		case sqlIdentBefore.MatchString(sql.String()), prevIdent && i > 0 && sqlDot.MatchString(pieces[i]):
			ident, prevIdent = true, true
		default:
			return keep
		}
		sql.WriteString("x")
	}
	if ident {
		return lower(NoteSQLIdent)
	}
	return lower(NoteConstSQL)
}
