package placeholder

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the placeholder scan's lexer: a small, line-at-a-time lexer
// per language family that tells comments and string literals from code,
// so that "TODO" inside a string or a URL is not a comment, and a
// multi-line /* ... */ or Python docstring is one. The plugin
// (src/tools/placeholder-scan.ts) gets the same from tree-sitter for 16
// extensions and from line regexes for everything else.
//
// A file is lexed from its first line at head down to its last added line
// whenever the head content is available (Scanner.Whole), so a comment or
// string opened on an unchanged line above an added one is known. Without
// it, each run of consecutive added lines is lexed on its own, from the
// code state (see Scanner.Line and lexer.guessBlock).

// segKind is what a segment of a line is.
type segKind uint8

const (
	segComment segKind = iota + 1 // a comment, or part of one
	segString                     // a string literal, or part of one
	segDoc                        // a Python docstring: a string that is also a comment
	segRegex                      // a JavaScript regular expression literal: neither comment, string nor code
)

// segment is a comment, string or regex piece of one line, as byte offsets
// [start, end). Code is whatever no segment covers.
type segment struct {
	kind       segKind
	quote      byte // the string's delimiter: '"', '\'' or '`'
	start, end int
}

// isCommentKind reports whether the comment rules apply to a segment.
func (sg segment) isCommentKind() bool { return sg.kind == segComment || sg.kind == segDoc }

// isStringKind reports whether the string rules apply to a segment. A
// docstring is prose: only the comment rules apply to it.
func (sg segment) isStringKind() bool { return sg.kind == segString }

// hashRule says where '#' opens a line comment.
type hashRule uint8

const (
	hashNone      hashRule = iota
	hashAnywhere           // Python, Ruby, PHP: anywhere outside a string
	hashWordStart          // shell, YAML, PowerShell, unknown text: at the start of a word (not x/#frag, not $#)
)

// family is the lexical syntax of a group of languages.
type family struct {
	name        string
	slash       bool     // "//" line comments
	urlGuard    bool     // ... except right after ':' (http://)
	urlParen    bool     // ... except inside url( ... ) (SCSS, Less)
	hash        hashRule // '#' line comments
	hashAttr    bool     // ... except "#[" (PHP 8 attributes)
	dash        bool     // "--" line comments (SQL)
	cBlock      bool     // /* ... */
	htmlBlock   bool     // <!-- ... -->
	psBlock     bool     // <# ... #> (PowerShell)
	nested      bool     // block comments nest (Rust)
	blockEOL    bool     // unknown text: /* */ only on one line (as the plugin), an unclosed <!-- ends with its line
	rubyDoc     bool     // =begin ... =end at the start of lines (Ruby)
	quotes      string   // bytes that open a string
	multi       string   // of those, the ones whose strings may span lines
	raw         string   // of those, the ones without escapes
	doubled     string   // of those, the ones where a doubled quote is an escaped quote (PowerShell)
	escape      byte     // the escape character in strings: '\\', or '`' in PowerShell
	tokenQuotes string   // quotes that open a string only at the start of a token (not in "don't")
	wordApos    bool     // a ' right after a letter or digit is no quote (JSX text "Don't", C++ 1'000)
	triple      bool     // Python: ''' and """ strings, docstrings
	textBlock   bool     // """ ... """ strings (Java text blocks, Kotlin, Scala, Swift, Groovy, Dart)
	cppRaw      bool     // C++ raw strings R"d( ... )d" (also u8R, uR, UR, LR)
	template    bool     // JavaScript: `...${ code }...` template literals, nested
	regex       bool     // JavaScript: /.../ regular expression literals
	csharp      bool     // C#: @"..." verbatim, $"...{ code }..." interpolated, """...""" raw strings
	heredoc     bool     // shell: <<EOF ... EOF bodies are data
	shellSubst  bool     // shell: $( ... ) and ${ ... } in "..." are code, which may hold quotes
	psHere      bool     // PowerShell: @" ... "@ and @' ... '@ here-strings
	rust        bool     // Rust: r"..", r#".."# raw strings; 'a' chars against 'a lifetimes
	markdown    bool     // a document (Markdown, plain text): prose, <!-- -->, fenced code that is never scanned
	mdx         bool     // MDX: Markdown whose import/export blocks are JavaScript (ESM)
	braces      bool     // a function body is what its { } hold (the whole-body rules)
	code        bool     // code rules apply to what is not comment or string
	// eolCR: a lone CR ends a line comment (the language reads it as a
	// line end: JavaScript, Java, C, C#, PHP, Python), though git and the
	// scanners split lines on LF only; eolLS: so do U+2028 and U+2029
	// (JavaScript; C# also U+0085). Code after one runs, so it must not be
	// lexed as the rest of the comment.
	eolCR, eolLS bool
	special      [256]bool
	quoteKind    [256]uint8 // per quote byte: qRaw, qDoubled, qMulti (from raw, doubled, multi)
}

// quoteKind bits.
const (
	qRaw uint8 = 1 << iota
	qDoubled
	qMulti
)

// The families. C-like covers C, C++, Objective-C, JSON and the like;
// Java-like the JVM languages, Swift and Dart, whose """ strings span lines.
var (
	famC    = &family{eolCR: true, name: "C-like", slash: true, cBlock: true, quotes: "\"'`", multi: "`", wordApos: true, cppRaw: true, braces: true, code: true}
	famJava = &family{eolCR: true, name: "Java-like", slash: true, cBlock: true, quotes: "\"'`", multi: "`", wordApos: true, textBlock: true, braces: true, code: true}
	// famJS adds regex literals and ${ } in template literals.
	famJS = &family{eolCR: true, eolLS: true, name: "JavaScript", slash: true, cBlock: true, quotes: "\"'`", multi: "`", wordApos: true, template: true, regex: true, braces: true, code: true}
	famCS = &family{eolCR: true, eolLS: true, name: "C#", slash: true, cBlock: true, quotes: "\"'", wordApos: true, csharp: true, braces: true, code: true}
	// famPHP: its strings may span lines, but lexing them so would let an
	// apostrophe in the HTML around <?php ... ?> hide the rest of a file.
	famPHP  = &family{eolCR: true, name: "PHP", slash: true, cBlock: true, hash: hashAnywhere, hashAttr: true, quotes: "\"'`", wordApos: true, braces: true, code: true}
	famCSS  = &family{name: "CSS", cBlock: true, quotes: "\"'", code: true}
	famSCSS = &family{name: "SCSS/Less", slash: true, urlGuard: true, urlParen: true, cBlock: true, quotes: "\"'", code: true}
	// famGo: raw `...` strings span lines and have no escapes.
	famGo     = &family{name: "Go", slash: true, cBlock: true, quotes: "\"'`", multi: "`", raw: "`", wordApos: true, braces: true, code: true}
	famRust   = &family{name: "Rust", slash: true, cBlock: true, nested: true, quotes: "\"'", multi: "\"", rust: true, braces: true, code: true}
	famPython = &family{eolCR: true, name: "Python", hash: hashAnywhere, quotes: "\"'", triple: true, code: true}
	famRuby   = &family{name: "Ruby", hash: hashAnywhere, rubyDoc: true, quotes: "\"'", code: true}
	famHash   = &family{name: "Perl/R/Elixir", hash: hashAnywhere, quotes: "\"'", code: true}
	famShell  = &family{name: "shell", hash: hashWordStart, quotes: "\"'", multi: "\"'", raw: "'", tokenQuotes: "'", heredoc: true, shellSubst: true, code: true}
	famPS     = &family{name: "PowerShell", hash: hashWordStart, psBlock: true, psHere: true, quotes: "\"'", multi: "\"'", raw: "'", doubled: "\"'",
		escape: '`', wordApos: true, code: true}
	famConfig = &family{name: "YAML/TOML/config", hash: hashWordStart, quotes: "\"'", tokenQuotes: "\"'", code: true}
	famHCL    = &family{name: "HCL", slash: true, cBlock: true, hash: hashAnywhere, quotes: "\"", code: true}
	famSQL    = &family{name: "SQL", dash: true, cBlock: true, quotes: "'\"", raw: "'\"", code: true}
	famHTML   = &family{name: "HTML/XML", htmlBlock: true, cBlock: true, slash: true, urlGuard: true, quotes: "\"'", tokenQuotes: "\"'", code: true}
	famMD     = &family{name: "Markdown", markdown: true}
	famMDX    = &family{name: "MDX", markdown: true, mdx: true}
	// famProse is for plain-text documents, read as Markdown is: prose.
	famProse = &family{name: "text document", markdown: true}
	// famText is for everything else: the plugin's markers (//, #, <!--,
	// same-line /* */), with the URL guards.
	famText = &family{name: "text", slash: true, urlGuard: true, hash: hashWordStart, cBlock: true, htmlBlock: true, blockEOL: true,
		quotes: "\"'`", tokenQuotes: "\"'`", code: true}
)

var allFamilies = []*family{famC, famJava, famJS, famCS, famPHP, famCSS, famSCSS, famGo, famRust, famPython, famRuby, famHash, famShell, famPS,
	famConfig, famHCL, famSQL, famHTML, famMD, famMDX, famProse, famText}

func init() {
	for _, f := range allFamilies {
		if f.escape == 0 {
			f.escape = '\\'
		}
		for _, c := range f.quotes {
			f.special[c] = true
		}
		for _, c := range []byte(f.raw) {
			f.quoteKind[c] |= qRaw
		}
		for _, c := range []byte(f.doubled) {
			f.quoteKind[c] |= qDoubled
		}
		for _, c := range []byte(f.multi) {
			f.quoteKind[c] |= qMulti
		}
		f.special['/'] = f.slash || f.cBlock || f.regex
		f.special['#'] = f.hash != hashNone
		f.special['-'] = f.dash
		f.special['<'] = f.htmlBlock || f.psBlock || f.heredoc
		f.special['{'] = f.template || f.csharp || f.shellSubst
		f.special['}'] = f.template || f.csharp || f.shellSubst
		f.special['('] = f.shellSubst
		f.special[')'] = f.shellSubst
		f.special['@'] = f.csharp || f.psHere
		f.special['$'] = f.csharp
		if f.rust {
			f.special['r'], f.special['b'] = true, true
		}
	}
}

// familyByName maps file extensions (without the dot) and Markdown fence
// info strings to families.
var familyByName = map[string]*family{}

func init() {
	add := func(f *family, names string) {
		for _, n := range strings.Fields(names) {
			familyByName[n] = f
		}
	}
	add(famC, "c h cc cpp cxx c++ hpp hh hxx ino m mm json jsonc json5 proto zig sol")
	add(famJava, "java kt kts kotlin scala sc swift dart groovy gradle")
	add(famJS, "js jsx mjs cjs javascript ts tsx mts cts typescript")
	add(famCS, "cs csharp")
	add(famPHP, "php phtml")
	add(famCSS, "css")
	add(famSCSS, "scss sass less")
	add(famGo, "go golang")
	add(famRust, "rs rust")
	add(famPython, "py pyi pyw python python3")
	add(famRuby, "rb ruby rake gemspec ru")
	add(famHash, "pl pm perl r ex exs elixir coffee cr jl")
	add(famShell, "sh bash zsh ksh fish shell console")
	add(famPS, "ps1 psm1 psd1 powershell pwsh")
	add(famConfig, "yml yaml toml ini cfg conf env properties mk make makefile cmake dockerfile containerfile "+
		"gitignore dockerignore gitattributes editorconfig")
	add(famHCL, "tf tfvars hcl")
	add(famSQL, "sql")
	add(famHTML, "html htm xhtml xml svg vue svelte xsl xslt")
	add(famMD, "md markdown")
	add(famMDX, "mdx")
	add(famProse, "txt text rst adoc asciidoc org")
}

// familyByBase maps file names without a telling extension.
var familyByBase = map[string]*family{
	"makefile": famConfig, "gnumakefile": famConfig, "dockerfile": famConfig, "containerfile": famConfig,
	"cmakelists.txt": famConfig, "gemfile": famRuby, "rakefile": famRuby, "vagrantfile": famRuby,
	"jenkinsfile": famJava, ".gitignore": famConfig, ".dockerignore": famConfig, ".gitattributes": famConfig,
	".editorconfig": famConfig, ".env": famConfig, "justfile": famConfig,
	"readme": famProse, "license": famProse, "licence": famProse, "changelog": famProse, "authors": famProse, "notice": famProse,
	"copying": famProse, "contributing": famProse,
}

// familyOf returns the family of a repository path.
func familyOf(p string) *family {
	base := strings.ToLower(path.Base(p))
	if f, ok := familyByBase[base]; ok {
		return f
	}
	if strings.HasPrefix(base, "dockerfile.") || strings.HasSuffix(base, ".dockerfile") {
		return famConfig
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		if f, ok := familyByName[base[i+1:]]; ok {
			return f
		}
	}
	return famText
}

type lexMode uint8

const (
	inCode lexMode = iota
	inBlock
	inString
)

// strState is how an open string ends.
type strState struct {
	quote  byte
	triple bool   // Python ''' """, Java """ text blocks
	hashes int    // Rust raw string: the number of '#'; -1 when not raw
	raw    bool   // no escapes
	dq     bool   // a doubled quote is an escaped quote (C# verbatim, PowerShell)
	multi  bool   // may span lines
	closer string // when set, the string ends at this text: C++ )delim", C# raw """..., PowerShell "@
	interp byte   // '$': ${ opens code (JavaScript); '{': { opens code, {{ does not (C#); 's': $( and ${ (shell)
}

// frame is an interpolation: code inside a string, which resumes after the
// code's closing bracket.
type frame struct {
	str         strState
	open, close byte // the brackets: '{' '}', or '(' ')' for the shell's $( )
	depth       int  // brackets opened in the code
}

// maxFrames bounds nested interpolations; deeper ${ are lexed as text.
const maxFrames = 32

// heredoc is a shell here-document whose body starts on the next line.
type heredoc struct {
	delim  string
	strip  bool // <<-: leading tabs are stripped before the delimiter is matched
	quoted bool // <<'EOF': no expansion in the body
}

// lexer lexes the lines of a file, or of one run of added lines. The zero
// value is unusable; see reset.
type lexer struct {
	fam    *family
	mode   lexMode
	depth  int    // open block comments (nesting families)
	closer string // the open block comment's closer
	str    strState
	doc    bool
	frames []frame
	segs   []segment

	heredocs []heredoc // shell: announced here-documents, in order
	hereBody bool      // the current line is in the body of heredocs[0]
	rubyDoc  bool      // inside =begin ... =end

	// Markdown
	headings  bool   // '#' headings may carry a prose marker
	fence     string // the open fence ("```", "~~~~", ...); "" when none
	mdComment bool   // inside <!-- -->
	prose     bool   // the last line lexed is prose: not in a fence, nor one's delimiter

	// MDX
	esm       bool // in an import/export block, lexed as JavaScript
	paraStart bool // the next line may start a block (the previous one is blank, a heading or a fence's end)
}

// reset starts lexing a new file, or run, of family f, from the code state.
func (lx *lexer) reset(f *family, headings bool) {
	segs, frames, docs := lx.segs[:0], lx.frames[:0], lx.heredocs[:0]
	*lx = lexer{fam: f, headings: headings, segs: segs, frames: frames, heredocs: docs, paraStart: true}
	lx.str.hashes = -1
}

// guessBlock is for a run of added lines lexed without the lines above it
// (the head content is not available, and the run does not start the
// file): in a family with // and /* */ comments (C-like, Go, Rust, HCL), a
// first line that looks like the middle of a block comment (" * text",
// " *", " */") is taken as inside one, so that a TODO added to an existing
// doc comment is still a comment. It is a guess: "  * b;" continuing a
// multiplication is taken as a comment too. Lexing the whole file makes it
// unnecessary.
func (lx *lexer) guessBlock(first string) {
	f := lx.fam
	if !f.cBlock || !f.slash || f.urlGuard || lx.mode != inCode {
		return
	}
	t := strings.TrimLeft(first, " \t")
	if t == "*" || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "*\t") || strings.HasPrefix(t, "*/") {
		lx.mode, lx.depth, lx.closer = inBlock, 1, "*/"
	}
}

// line lexes the next line. It returns the line's segments in order (valid
// until the next call) and whether code rules apply to it.
func (lx *lexer) line(s string) ([]segment, bool) {
	lx.segs = lx.segs[:0]
	f := lx.fam
	if f.mdx {
		return lx.mdxLine(s)
	}
	if f.markdown {
		return lx.markdownLine(s)
	}
	if lx.hereBody {
		lx.heredocLine(s)
		return lx.segs, f.code
	}
	if f.rubyDoc && lx.rubyDocLine(s) {
		return lx.segs, f.code
	}
	lx.scan(s, 0)
	if len(lx.frames) > 0 {
		lx.endFrames()
	}
	if len(lx.heredocs) > 0 && lx.mode == inCode {
		lx.hereBody = true
	}
	return lx.segs, f.code
}

// endFrames drops, at the end of a line, the interpolations of strings
// that cannot span lines (C#'s $"...{ ... }").
func (lx *lexer) endFrames() {
	for _, fr := range lx.frames {
		if !fr.str.multi {
			lx.frames = lx.frames[:0]
			if lx.mode == inString && !lx.str.multi {
				lx.mode = inCode
			}
			return
		}
	}
}

// scan lexes s from byte i, appending segments.
func (lx *lexer) scan(s string, i int) {
	f := lx.fam
	for i < len(s) {
		switch lx.mode {
		case inBlock:
			i = lx.blockFrom(s, i, i)
			continue
		case inString:
			i = lx.stringFrom(s, i, i)
			continue
		}
		for i < len(s) && !f.special[s[i]] {
			i++
		}
		if i >= len(s) {
			return
		}
		i = lx.open(s, i)
	}
}

// open handles the special byte at s[i] in code and returns where to go on.
func (lx *lexer) open(s string, i int) int {
	f := lx.fam
	c := s[i]
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	switch {
	case c == '/' && next == '*' && f.cBlock:
		if f.blockEOL && !strings.Contains(s[i+2:], "*/") {
			return i + 1 // unknown text: only a same-line /* */ is a comment ("src/*" is none)
		}
		lx.mode, lx.depth, lx.closer = inBlock, 1, "*/"
		return lx.blockFrom(s, i, i+2)
	case c == '/' && next == '/' && f.slash && !(f.urlGuard && i > 0 && s[i-1] == ':') && !(f.urlParen && inURLParen(s, i)):
		return lx.lineComment(s, i)
	case c == '/' && f.regex:
		return lx.regexLiteral(s, i)
	case c == '#' && f.hash == hashAnywhere && !(f.hashAttr && next == '['):
		return lx.lineComment(s, i)
	case c == '#' && f.hash == hashWordStart && (i == 0 || isWordSep(s[i-1])):
		return lx.lineComment(s, i)
	case c == '-' && next == '-' && f.dash:
		return lx.lineComment(s, i)
	case c == '<' && f.htmlBlock && strings.HasPrefix(s[i:], "<!--"):
		lx.mode, lx.depth, lx.closer = inBlock, 1, "-->"
		return lx.blockFrom(s, i, i+4)
	case c == '<' && f.psBlock && next == '#':
		lx.mode, lx.depth, lx.closer = inBlock, 1, "#>"
		return lx.blockFrom(s, i, i+2)
	case c == '<' && f.heredoc && next == '<':
		return lx.heredocOpen(s, i)
	case len(lx.frames) > 0 && (c == lx.frames[len(lx.frames)-1].open || c == lx.frames[len(lx.frames)-1].close):
		return lx.brace(s, i)
	case (c == '@' || c == '$') && f.csharp:
		return lx.csharpPrefix(s, i)
	case c == '@' && f.psHere && (next == '"' || next == '\'') && strings.TrimSpace(s[i+2:]) == "":
		lx.startString(next)
		lx.str.raw, lx.str.dq, lx.str.multi, lx.str.closer = true, false, true, string(next)+"@"
		return len(s) // the here-string's body starts on the next line
	case f.rust && (c == 'r' || c == 'b'):
		return lx.rustPrefix(s, i)
	case f.rust && c == '\'':
		return lx.rustQuote(s, i)
	case strings.IndexByte(f.quotes, c) >= 0:
		if (strings.IndexByte(f.tokenQuotes, c) >= 0 || c == '\'' && f.wordApos) && i > 0 && (isWordByte(s[i-1]) || s[i-1] == '\\') {
			return i + 1 // an apostrophe in a word, or an escaped quote
		}
		lx.startString(c)
		from := i + 1
		switch {
		case f.triple && strings.HasPrefix(s[i:], tripleOf(c)):
			lx.str.triple, lx.str.multi, from = true, true, i+3
			lx.doc = isDocstringStart(s[:i])
		case f.textBlock && c == '"' && strings.HasPrefix(s[i:], `"""`):
			lx.str.triple, lx.str.multi, from = true, true, i+3
		case f.cppRaw && c == '"' && i > 0 && s[i-1] == 'R':
			if d, ok := cppRawDelim(s, i); ok {
				lx.str.raw, lx.str.multi, lx.str.closer, from = true, true, ")"+d+`"`, i+1+len(d)+1
			}
		case f.template && c == '`':
			lx.str.interp = '$'
		case f.shellSubst && c == '"':
			lx.str.interp = 's'
		case f.csharp && c == '"':
			if n := countByte(s[i:], '"'); n >= 3 {
				lx.str.raw, lx.str.multi, lx.str.closer, from = true, true, s[i:i+n], i+n
			}
		}
		return lx.stringFrom(s, i, from)
	}
	return i + 1
}

// startString opens a string delimited by q with the family's defaults.
func (lx *lexer) startString(q byte) {
	k := lx.fam.quoteKind[q]
	lx.mode, lx.doc = inString, false
	lx.str = strState{quote: q, hashes: -1, raw: k&qRaw != 0, dq: k&qDoubled != 0, multi: k&qMulti != 0}
}

// lineComment appends a comment from i to the end of the line.
func (lx *lexer) lineComment(s string, i int) int {
	end, next := hiddenLineEnd(lx.fam, s, i)
	lx.segs = append(lx.segs, segment{kind: segComment, start: i, end: end})
	return next
}

// hiddenLineEnd is where a line comment that starts at byte i of s ends
// and where code resumes: len(s) for both, unless the family's language
// ends the comment earlier at a line terminator that is no LF (a lone CR,
// U+2028, U+2029, C#'s U+0085: family.eolCR, eolLS), or PHP's "?>", which
// closes PHP mode and with it the comment.
func hiddenLineEnd(f *family, s string, i int) (end, next int) {
	if !f.eolCR && !f.eolLS && f != famPHP {
		return len(s), len(s)
	}
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\r' && f.eolCR:
			return j, j + 1
		case c == 0xe2 && f.eolLS && j+2 < len(s) && s[j+1] == 0x80 && (s[j+2] == 0xa8 || s[j+2] == 0xa9):
			return j, j + 3
		case c == 0xc2 && f == famCS && j+1 < len(s) && s[j+1] == 0x85:
			return j, j + 2
		case c == '?' && f == famPHP && j+1 < len(s) && s[j+1] == '>':
			return j, j
		}
	}
	return len(s), len(s)
}

// blockFrom continues the open block comment, which began at start, from
// byte i; it returns where code resumes (len(s) when the comment goes on).
func (lx *lexer) blockFrom(s string, start, i int) int {
	end, closed := lx.blockEnd(s, i)
	lx.segs = append(lx.segs, segment{kind: segComment, start: start, end: end})
	if closed || lx.fam.blockEOL {
		lx.mode = inCode
	}
	return end
}

// blockEnd finds the end of the open block comment from byte i.
func (lx *lexer) blockEnd(s string, i int) (int, bool) {
	if !lx.fam.nested {
		if k := strings.Index(s[i:], lx.closer); k >= 0 {
			return i + k + len(lx.closer), true
		}
		return len(s), false
	}
	for i+1 < len(s) {
		switch {
		case s[i] == '/' && s[i+1] == '*':
			lx.depth++
			i += 2
		case s[i] == '*' && s[i+1] == '/':
			lx.depth--
			i += 2
			if lx.depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return len(s), false
}

// stringFrom continues the open string, which began at start, from byte i;
// it returns where code resumes.
func (lx *lexer) stringFrom(s string, start, i int) int {
	end, closed, open := lx.stringEnd(s, i)
	kind := segString
	if lx.doc {
		kind = segDoc
	}
	lx.segs = append(lx.segs, segment{kind: kind, quote: lx.str.quote, start: start, end: end})
	switch {
	case open != 0:
		fr := frame{str: lx.str, open: open, close: '}'}
		if open == '(' {
			fr.close = ')'
		}
		lx.frames = append(lx.frames, fr)
		lx.mode = inCode
	case closed || !lx.str.multi:
		lx.mode = inCode // an unterminated one-line string ends with its line
	}
	return end
}

// stringEnd finds the end of the open string from byte i; open is the
// bracket of an interpolation that opens code there instead ('{' or '(';
// end is after it), or 0.
func (lx *lexer) stringEnd(s string, i int) (end int, closed bool, open byte) {
	st := &lx.str
	if st.closer != "" {
		if k := strings.Index(s[i:], st.closer); k >= 0 {
			return i + k + len(st.closer), true, 0
		}
		return len(s), false, 0
	}
	q, esc := st.quote, lx.fam.escape
	for i < len(s) {
		c := s[i]
		if c == esc && !st.raw {
			i += 2
			continue
		}
		if st.interp != 0 && len(lx.frames) < maxFrames {
			switch {
			case st.interp == '$' && c == '$' && i+1 < len(s) && s[i+1] == '{':
				return i + 2, false, '{'
			case st.interp == 's' && c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
				return i + 2, false, s[i+1]
			case st.interp == '{' && c == '{':
				if i+1 < len(s) && s[i+1] == '{' {
					i += 2 // {{ is a brace
					continue
				}
				return i + 1, false, '{'
			}
		}
		if c != q {
			i++
			continue
		}
		switch {
		case st.triple:
			if i+2 < len(s) && s[i+1] == q && s[i+2] == q {
				return i + 3, true, 0
			}
		case st.hashes > 0:
			if h := i + 1 + st.hashes; h <= len(s) && strings.Count(s[i+1:h], "#") == st.hashes {
				return h, true, 0
			}
		case st.dq && i+1 < len(s) && s[i+1] == q:
			i++ // a doubled quote: an escaped quote
		default:
			return i + 1, true, 0
		}
		i++
	}
	return len(s), false, 0
}

// brace handles an opening or closing bracket of the innermost
// interpolation in its code: the closing bracket that ends it resumes the
// string.
func (lx *lexer) brace(s string, i int) int {
	fr := &lx.frames[len(lx.frames)-1]
	switch {
	case s[i] == fr.open:
		fr.depth++
		return i + 1
	case fr.depth > 0:
		fr.depth--
		return i + 1
	}
	lx.str, lx.doc = fr.str, false
	lx.frames = lx.frames[:len(lx.frames)-1]
	lx.mode = inString
	return lx.stringFrom(s, i, i+1)
}

// regexLiteral lexes a JavaScript regular expression literal at s[i] ==
// '/' when the token before it cannot end an operand (the usual heuristic:
// after ( , = : [ ! & | ? { } ; or a keyword like return, or at the start
// of the line); otherwise, or when no '/' closes it on the line, the '/' is
// a division. "/>" ends a JSX element (<A b={c} />), not a regex.
func (lx *lexer) regexLiteral(s string, i int) int {
	if i+1 < len(s) && s[i+1] == '>' || !regexCanStart(s, i) {
		return i + 1
	}
	class := false
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if class {
				continue
			}
			j++
			for j < len(s) && isWordByte(s[j]) {
				j++ // flags
			}
			lx.segs = append(lx.segs, segment{kind: segRegex, start: i, end: j})
			return j
		}
	}
	return i + 1
}

// regexKeywords are the JavaScript keywords after which '/' starts a regex.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "case": true, "do": true, "else": true, "in": true, "of": true, "instanceof": true,
	"new": true, "delete": true, "void": true, "throw": true, "yield": true, "await": true,
}

func regexCanStart(s string, i int) bool {
	k := i - 1
	for k >= 0 && (s[k] == ' ' || s[k] == '\t') {
		k--
	}
	if k < 0 {
		return true
	}
	switch c := s[k]; {
	case strings.IndexByte("(,=:[!&|?{};", c) >= 0:
		return true
	case c == '>':
		return k > 0 && s[k-1] == '=' // =>
	case isWordByte(c):
		e := k + 1
		for k >= 0 && isWordByte(s[k]) {
			k--
		}
		if k >= 0 && (s[k] == '.' || s[k] == '$') {
			return false // x.return / 2 is a property
		}
		return regexKeywords[s[k+1:e]]
	}
	return false
}

// csharpPrefix handles '@' or '$' in C# code: the prefix of a verbatim
// (@"..."), interpolated ($"...") or both ($@"...", @$"...") string, or
// of a raw string ($"""..."""); anything else (@class) is code.
func (lx *lexer) csharpPrefix(s string, i int) int {
	if i > 0 && isWordByte(s[i-1]) {
		return i + 1
	}
	j, at, dollars := i, false, 0
prefix:
	for ; j < len(s) && j-i < 8; j++ {
		switch s[j] {
		case '@':
			if at {
				return i + 1
			}
			at = true
		case '$':
			dollars++
		default:
			break prefix
		}
	}
	if j >= len(s) || s[j] != '"' || j == i {
		return i + 1
	}
	lx.startString('"')
	if n := countByte(s[j:], '"'); n >= 3 {
		lx.str.raw, lx.str.multi, lx.str.closer = true, true, s[j:j+n]
		return lx.stringFrom(s, i, j+n)
	}
	if at {
		lx.str.raw, lx.str.dq, lx.str.multi = true, true, true
	}
	if dollars > 0 {
		lx.str.interp = '{'
	}
	return lx.stringFrom(s, i, j+1)
}

// cppRawDelim returns the delimiter of a C++ raw string R"delim( at s[i]
// == '"' (s[i-1] == 'R', with an optional u8, u, U or L before it).
func cppRawDelim(s string, i int) (string, bool) {
	p := i - 1 // the R
	switch {
	case p >= 2 && s[p-2:p] == "u8":
		p -= 2
	case p >= 1 && (s[p-1] == 'u' || s[p-1] == 'U' || s[p-1] == 'L'):
		p--
	}
	if p > 0 && isWordByte(s[p-1]) {
		return "", false
	}
	for j := i + 1; j < len(s) && j-i <= 17; j++ {
		switch s[j] {
		case '(':
			return s[i+1 : j], true
		case ' ', ')', '\\', '\t', '"':
			return "", false
		}
	}
	return "", false
}

func countByte(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// inURLParen reports whether s[i] is inside an unquoted url( ... ) (SCSS).
func inURLParen(s string, i int) bool {
	k := strings.LastIndex(s[:i], "url(")
	if k < 0 {
		k = strings.LastIndex(s[:i], "URL(")
	}
	return k >= 0 && strings.IndexByte(s[k:i], ')') < 0
}

// heredocOpen handles "<<" in shell code: a here-document (<<EOF, <<-EOF,
// <<'EOF', <<"EOF", << EOF) whose body starts on the next line. "<<<" (a
// here-string) and "<<" in arithmetic ($(( 1 << n ))) are not.
func (lx *lexer) heredocOpen(s string, i int) int {
	j := i + 2
	if j < len(s) && s[j] == '<' {
		return j + 1
	}
	h := heredoc{}
	if j < len(s) && s[j] == '-' {
		h.strip = true
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	switch {
	case j < len(s) && (s[j] == '\'' || s[j] == '"'):
		k := strings.IndexByte(s[j+1:], s[j])
		if k <= 0 {
			return i + 2
		}
		h.delim, h.quoted = s[j+1:j+1+k], true
		j += k + 2
	default:
		if j < len(s) && s[j] == '\\' {
			h.quoted = true
			j++
		}
		k := j
		for k < len(s) && (isWordByte(s[k]) || s[k] == '-' || s[k] == '.') {
			k++
		}
		h.delim = s[j:k]
		j = k
	}
	if h.delim == "" || h.delim[0] >= '0' && h.delim[0] <= '9' || strings.Contains(s[:i], "((") {
		return i + 2
	}
	if len(lx.heredocs) < 8 {
		lx.heredocs = append(lx.heredocs, h)
	}
	return j
}

// heredocLine lexes a line of a here-document's body: data (a string), or
// the delimiter line that ends it.
func (lx *lexer) heredocLine(s string) {
	h := lx.heredocs[0]
	t := strings.TrimSuffix(s, "\r")
	if h.strip {
		t = strings.TrimLeft(t, "\t")
	}
	if t == h.delim {
		lx.heredocs = append(lx.heredocs[:0], lx.heredocs[1:]...)
		lx.hereBody = len(lx.heredocs) > 0
		return
	}
	q := byte('"')
	if h.quoted {
		q = '\''
	}
	lx.segs = append(lx.segs, segment{kind: segString, quote: q, start: 0, end: len(s)})
}

// rubyDocLine handles Ruby's =begin ... =end block comments, which start
// and end at the start of a line; it reports whether s was one of its lines.
func (lx *lexer) rubyDocLine(s string) bool {
	switch {
	case lx.rubyDoc:
		if lineKeyword(s, "=end") {
			lx.rubyDoc = false
		}
	case lx.mode == inCode && lineKeyword(s, "=begin"):
		lx.rubyDoc = true
	default:
		return false
	}
	lx.segs = append(lx.segs, segment{kind: segComment, start: 0, end: len(s)})
	return true
}

// lineKeyword reports whether s starts with kw followed by a blank or its end.
func lineKeyword(s, kw string) bool {
	return strings.HasPrefix(s, kw) && (len(s) == len(kw) || isSpace(s[len(kw)]))
}

// rustPrefix handles 'r' or 'b' in Rust code: the start of r"..", r#".."#,
// br"..", or an identifier.
func (lx *lexer) rustPrefix(s string, i int) int {
	if i > 0 && isWordByte(s[i-1]) {
		return i + 1
	}
	j := i
	if s[j] == 'b' {
		j++
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			return j // b"..." and b'x': the quote is lexed next
		}
	}
	if j >= len(s) || s[j] != 'r' {
		return i + 1
	}
	j++
	h := 0
	for j < len(s) && s[j] == '#' {
		h++
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return i + 1
	}
	lx.startString('"')
	lx.str.raw, lx.str.hashes = true, h
	return lx.stringFrom(s, i, j+1)
}

// rustQuote tells a char literal ('a', '\n', '\u{1F600}') from a lifetime
// or label ('a, 'static) at s[i] == '\”.
func (lx *lexer) rustQuote(s string, i int) int {
	end := -1
	switch {
	case i+1 < len(s) && s[i+1] == '\\':
		if k := strings.IndexByte(s[i+2:min(len(s), i+14)], '\''); k >= 0 {
			end = i + 2 + k + 1
		}
	case i+1 < len(s):
		_, n := utf8.DecodeRuneInString(s[i+1:])
		if i+1+n < len(s) && s[i+1+n] == '\'' {
			end = i + 2 + n
		}
	}
	if end < 0 {
		return i + 1 // a lifetime or label
	}
	lx.segs = append(lx.segs, segment{kind: segString, quote: '\'', start: i, end: end})
	return end
}

// markdownLine lexes a line of a document: fenced code is a sample and is
// never scanned (lx.prose is false there), <!-- --> is a comment (where a
// suppression marker counts), and the rest is prose.
func (lx *lexer) markdownLine(s string) ([]segment, bool) {
	lx.prose = false
	if lx.fence != "" {
		if isFenceClose(s, lx.fence) {
			lx.fence = ""
		}
		return lx.segs, false
	}
	i := 0
	if lx.mdComment {
		end, closed := strings.Index(s, "-->"), true
		if end < 0 {
			end, closed = len(s), false
		} else {
			end += 3
		}
		lx.segs = append(lx.segs, segment{kind: segComment, start: 0, end: end})
		lx.prose = true
		if !closed {
			return lx.segs, false
		}
		lx.mdComment, i = false, end
	}
	if i == 0 {
		indent := len(s) - len(strings.TrimLeft(s, " "))
		if fence, ok := fenceOpen(s[indent:]); ok && indent <= 3 {
			lx.fence = fence
			return lx.segs, false
		}
	}
	lx.prose = true
	for i < len(s) {
		k := strings.Index(s[i:], "<!--")
		if k < 0 {
			break
		}
		start := i + k
		end := strings.Index(s[start+4:], "-->")
		if end < 0 {
			lx.segs = append(lx.segs, segment{kind: segComment, start: start, end: len(s)})
			lx.mdComment = true
			break
		}
		i = start + 4 + end + 3
		lx.segs = append(lx.segs, segment{kind: segComment, start: start, end: i})
	}
	return lx.segs, false
}

// mdxLine lexes a line of MDX: an ESM block (a paragraph, outside fences
// and comments, whose first line starts with import or export, up to a
// blank line outside a string or comment) is JavaScript the page runs,
// with code rules; the rest is Markdown.
func (lx *lexer) mdxLine(s string) ([]segment, bool) {
	blank := strings.TrimSpace(s) == ""
	if lx.esm && blank && lx.mode == inCode && len(lx.frames) == 0 {
		lx.esm = false
	}
	if !lx.esm && lx.paraStart && lx.fence == "" && !lx.mdComment && (strings.HasPrefix(s, "import ") || strings.HasPrefix(s, "export ")) {
		lx.esm, lx.mode = true, inCode
	}
	if lx.esm {
		lx.prose, lx.paraStart = false, false
		lx.fam = famJS
		segs, _ := lx.line(s)
		lx.fam = famMDX
		return segs, true
	}
	inFence := lx.fence != ""
	segs, code := lx.markdownLine(s)
	lx.paraStart = blank || strings.HasPrefix(s, "#") || inFence && lx.fence == ""
	return segs, code
}

// fenceOpen reports whether s (without its indent) opens a fenced code
// block, and returns the fence.
func fenceOpen(s string) (string, bool) {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return "", false
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || s[0] == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return "", false // an inline code span, not a fence
	}
	return s[:n], true
}

// isFenceClose reports whether s closes a fence opened with fence.
func isFenceClose(s, fence string) bool {
	t := strings.TrimLeft(s, " ")
	if len(s)-len(t) > 3 || !strings.HasPrefix(t, fence) {
		return false
	}
	t = strings.TrimLeft(t, fence[:1])
	return strings.TrimSpace(t) == ""
}

func tripleOf(q byte) string {
	if q == '"' {
		return `"""`
	}
	return "'''"
}

// isDocstringStart reports whether a triple-quoted string after before
// (the line up to the quotes) is a docstring: nothing but indentation and
// string prefix letters comes before it.
func isDocstringStart(before string) bool {
	before = strings.TrimRight(before, "rRbBuUfF")
	return strings.TrimLeft(before, " \t") == ""
}

// isWordByte is JavaScript's \w: ASCII letters, digits and '_'.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// letterBefore reports whether s[:i] ends in a word character: \w, or a
// non-ASCII letter, digit or mark, so that "mé" + "todo" is one word.
func letterBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	if c := s[i-1]; c < 0x80 {
		return isWordByte(c)
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isLetterRune(r)
}

// letterAt reports whether s[i:] starts with a word character (as letterBefore).
func letterAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if c := s[i]; c < 0x80 {
		return isWordByte(c)
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isLetterRune(r)
}

func isLetterRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

// isWordSep reports whether a '#' after c starts a word: after blanks and
// shell operators, not inside x/#frag, $# or C#.
func isWordSep(c byte) bool {
	switch c {
	case ' ', '\t', ';', '|', '&', '(', ')', '\r', '\v', '\f':
		return true
	}
	return false
}
