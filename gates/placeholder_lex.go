package gates

import (
	"path"
	"strings"
	"unicode/utf8"
)

// This file is the placeholder scan's lexer: a small, line-at-a-time lexer
// per language family that tells comments and string literals from code,
// so that "TODO" inside a string or a URL is not a comment, and a
// multi-line /* ... */ or Python docstring is one. The plugin
// (src/tools/placeholder-scan.ts) gets the same from tree-sitter for 16
// extensions and from line regexes for everything else.
//
// Lines are lexed in runs of consecutive added lines, each run from the
// neutral code state: a construct opened on an unchanged line above the run
// (a block comment, a multi-line string, a Markdown fence) is not known.

// segKind is what a segment of a line is.
type segKind uint8

const (
	segComment segKind = iota + 1 // a comment, or part of one
	segString                     // a string literal, or part of one
	segDoc                        // a Python docstring: a string that is also a comment
)

// segment is a comment or string piece of one line, as byte offsets
// [start, end). Code is whatever no segment covers.
type segment struct {
	kind       segKind
	quote      byte // the string's delimiter: '"', '\'' or '`'
	start, end int
}

// hashRule says where '#' opens a line comment.
type hashRule uint8

const (
	hashNone      hashRule = iota
	hashAnywhere           // Python, Ruby: anywhere outside a string
	hashWordStart          // shell, YAML, unknown text: at the start of a word (not x/#frag, not $#)
)

// family is the lexical syntax of a group of languages.
type family struct {
	name        string
	slash       bool     // "//" line comments
	urlGuard    bool     // ... except right after ':' (http://)
	hash        hashRule // '#' line comments
	dash        bool     // "--" line comments (SQL)
	cBlock      bool     // /* ... */
	htmlBlock   bool     // <!-- ... -->
	nested      bool     // block comments nest (Rust)
	blockEOL    bool     // unknown text: /* */ only on one line (as the plugin), an unclosed <!-- ends with its line
	quotes      string   // bytes that open a string
	multi       string   // of those, the ones whose strings may span lines
	raw         string   // of those, the ones without backslash escapes
	tokenQuotes bool     // a quote opens a string only at the start of a token (not in "don't")
	wordApos    bool     // a ' right after a letter or digit is no quote (JSX text "Don't", C++ 1'000)
	triple      bool     // Python: ''' and """ strings, docstrings
	rust        bool     // Rust: r"..", r#".."# raw strings; 'a' chars against 'a lifetimes
	markdown    bool     // Markdown: headings, <!-- -->, fenced code lexed by its language
	code        bool     // code rules apply to what is not comment or string
	special     [256]bool
}

// The families. C-like covers the curly-brace languages and JSON/CSS.
var (
	famC = &family{name: "C-like", slash: true, cBlock: true, quotes: "\"'`", multi: "`", wordApos: true, code: true}
	// famGo: raw `...` strings span lines and have no escapes.
	famGo     = &family{name: "Go", slash: true, cBlock: true, quotes: "\"'`", multi: "`", raw: "`", wordApos: true, code: true}
	famRust   = &family{name: "Rust", slash: true, cBlock: true, nested: true, quotes: "\"'", multi: "\"", rust: true, code: true}
	famPython = &family{name: "Python", hash: hashAnywhere, quotes: "\"'", triple: true, code: true}
	famHash   = &family{name: "Ruby/Perl/R", hash: hashAnywhere, quotes: "\"'", code: true}
	famShell  = &family{name: "shell", hash: hashWordStart, quotes: "\"'", multi: "\"'", raw: "'", tokenQuotes: true, code: true}
	famConfig = &family{name: "YAML/TOML/config", hash: hashWordStart, quotes: "\"'", tokenQuotes: true, code: true}
	famHCL    = &family{name: "HCL", slash: true, cBlock: true, hash: hashAnywhere, quotes: "\"", code: true}
	famSQL    = &family{name: "SQL", dash: true, cBlock: true, quotes: "'\"", raw: "'\"", code: true}
	famHTML   = &family{name: "HTML/XML", htmlBlock: true, cBlock: true, slash: true, urlGuard: true, quotes: "\"'", tokenQuotes: true, code: true}
	famMD     = &family{name: "Markdown", markdown: true}
	// famText is for everything else: the plugin's markers (//, #, <!--,
	// same-line /* */), with the URL guards.
	famText = &family{name: "text", slash: true, urlGuard: true, hash: hashWordStart, cBlock: true, htmlBlock: true, blockEOL: true,
		quotes: "\"'`", tokenQuotes: true, code: true}
)

func init() {
	for _, f := range []*family{famC, famGo, famRust, famPython, famHash, famShell, famConfig, famHCL, famSQL, famHTML, famMD, famText} {
		for _, c := range f.quotes {
			f.special[c] = true
		}
		f.special['/'] = f.slash || f.cBlock
		f.special['#'] = f.hash != hashNone
		f.special['-'] = f.dash
		f.special['<'] = f.htmlBlock
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
	add(famC, "c h cc cpp cxx c++ hpp hh hxx ino m mm java cs csharp js jsx mjs cjs javascript ts tsx mts cts typescript "+
		"kt kts kotlin scala sc swift dart php groovy gradle json jsonc json5 css scss sass less proto zig sol")
	add(famGo, "go golang")
	add(famRust, "rs rust")
	add(famPython, "py pyi pyw python python3")
	add(famHash, "rb ruby pl pm perl r ex exs elixir coffee cr jl")
	add(famShell, "sh bash zsh ksh fish shell console ps1 powershell")
	add(famConfig, "yml yaml toml ini cfg conf env properties mk make makefile cmake dockerfile containerfile "+
		"gitignore dockerignore gitattributes editorconfig")
	add(famHCL, "tf tfvars hcl")
	add(famSQL, "sql")
	add(famHTML, "html htm xhtml xml svg vue svelte xsl xslt")
	add(famMD, "md markdown mdx")
}

// familyByBase maps file names without a telling extension.
var familyByBase = map[string]*family{
	"makefile": famConfig, "gnumakefile": famConfig, "dockerfile": famConfig, "containerfile": famConfig,
	"cmakelists.txt": famConfig, "gemfile": famHash, "rakefile": famHash, "vagrantfile": famHash,
	"jenkinsfile": famC, ".gitignore": famConfig, ".dockerignore": famConfig, ".gitattributes": famConfig,
	".editorconfig": famConfig, ".env": famConfig, "justfile": famConfig,
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

// lexer lexes the lines of one run. The zero value is unusable; see reset.
type lexer struct {
	fam    *family
	mode   lexMode
	depth  int    // open block comments (nesting families)
	closer string // the open block comment's closer
	quote  byte   // the open string's delimiter
	triple bool
	hashes int // Rust raw string: the number of '#'; -1 when not raw
	raw    bool
	doc    bool
	segs   []segment

	// Markdown
	headings  bool   // '#' headings count as comments (plugin parity)
	fence     string // the open fence ("```", "~~~~", ...); "" when none
	inner     *lexer // lexes the open fence's content
	mdComment bool   // inside <!-- -->
}

// reset starts a new run of family f, whose first line is first.
//
// The run is lexed from the code state, with one exception: in a family
// with // and /* */ comments (C-like, Go, Rust, HCL), a first line that
// looks like the middle of a block comment (" * text", " *", " */") is
// taken as inside one, so that a TODO added to an existing doc comment is
// still a comment.
func (lx *lexer) reset(f *family, headings bool, first string) {
	segs := lx.segs[:0]
	inner := lx.inner
	*lx = lexer{fam: f, headings: headings, segs: segs, hashes: -1}
	lx.inner = inner // kept for reuse by the next fence
	if f.cBlock && f.slash && !f.urlGuard {
		t := strings.TrimLeft(first, " \t")
		if t == "*" || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "*\t") || strings.HasPrefix(t, "*/") {
			lx.mode, lx.depth, lx.closer = inBlock, 1, "*/"
		}
	}
}

// line lexes the next line of the run. It returns the line's segments in
// order (valid until the next call) and whether code rules apply to it.
func (lx *lexer) line(s string) ([]segment, bool) {
	lx.segs = lx.segs[:0]
	if lx.fam.markdown {
		return lx.markdownLine(s)
	}
	lx.scan(s, 0)
	return lx.segs, lx.fam.code
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
	case c == '/' && next == '/' && f.slash && !(f.urlGuard && i > 0 && s[i-1] == ':'):
		return lx.lineComment(s, i)
	case c == '#' && f.hash == hashAnywhere:
		return lx.lineComment(s, i)
	case c == '#' && f.hash == hashWordStart && (i == 0 || isWordSep(s[i-1])):
		return lx.lineComment(s, i)
	case c == '-' && next == '-' && f.dash:
		return lx.lineComment(s, i)
	case c == '<' && f.htmlBlock && strings.HasPrefix(s[i:], "<!--"):
		lx.mode, lx.depth, lx.closer = inBlock, 1, "-->"
		return lx.blockFrom(s, i, i+4)
	case f.rust && (c == 'r' || c == 'b'):
		return lx.rustPrefix(s, i)
	case f.rust && c == '\'':
		return lx.rustQuote(s, i)
	case strings.IndexByte(f.quotes, c) >= 0:
		if (f.tokenQuotes || c == '\'' && f.wordApos) && i > 0 && (isWordByte(s[i-1]) || s[i-1] == '\\') {
			return i + 1 // an apostrophe in a word, or an escaped quote
		}
		lx.mode, lx.quote, lx.triple, lx.hashes, lx.doc = inString, c, false, -1, false
		lx.raw = strings.IndexByte(f.raw, c) >= 0
		from := i + 1
		if f.triple && strings.HasPrefix(s[i:], tripleOf(c)) {
			lx.triple, from = true, i+3
			lx.doc = isDocstringStart(s[:i])
		}
		return lx.stringFrom(s, i, from)
	}
	return i + 1
}

// lineComment appends a comment from i to the end of the line.
func (lx *lexer) lineComment(s string, i int) int {
	lx.segs = append(lx.segs, segment{kind: segComment, start: i, end: len(s)})
	return len(s)
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
	end, closed := lx.stringEnd(s, i)
	kind := segString
	if lx.doc {
		kind = segDoc
	}
	lx.segs = append(lx.segs, segment{kind: kind, quote: lx.quote, start: start, end: end})
	if closed || !lx.multiline() {
		lx.mode = inCode // an unterminated one-line string ends with its line
	}
	return end
}

// stringEnd finds the end of the open string from byte i.
func (lx *lexer) stringEnd(s string, i int) (int, bool) {
	q := lx.quote
	for i < len(s) {
		c := s[i]
		if c == '\\' && !lx.raw {
			i += 2
			continue
		}
		if c != q {
			i++
			continue
		}
		switch {
		case lx.triple:
			if i+2 < len(s) && s[i+1] == q && s[i+2] == q {
				return i + 3, true
			}
		case lx.hashes > 0:
			if h := i + 1 + lx.hashes; h <= len(s) && strings.Count(s[i+1:h], "#") == lx.hashes {
				return h, true
			}
		default:
			return i + 1, true
		}
		i++
	}
	return len(s), false
}

func (lx *lexer) multiline() bool {
	return lx.triple || strings.IndexByte(lx.fam.multi, lx.quote) >= 0
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
	lx.mode, lx.quote, lx.triple, lx.raw, lx.doc, lx.hashes = inString, '"', false, true, false, h
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

// markdownLine lexes a Markdown line: an ATX heading is a comment (the
// plugin's '#' rule) unless headings are ignored, <!-- --> is a comment,
// and fenced code is lexed with the family its info string names.
func (lx *lexer) markdownLine(s string) ([]segment, bool) {
	if lx.fence != "" {
		if isFenceClose(s, lx.fence) {
			lx.fence = ""
			return lx.segs, false
		}
		segs, code := lx.inner.line(s)
		return segs, code
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
		if !closed {
			return lx.segs, false
		}
		lx.mdComment, i = false, end
	}
	if i == 0 {
		indent := len(s) - len(strings.TrimLeft(s, " "))
		if indent <= 3 {
			if fence, info, ok := fenceOpen(s[indent:]); ok {
				lx.fence = fence
				if lx.inner == nil {
					lx.inner = &lexer{}
				}
				f := familyByName[info]
				if f == nil || f.markdown {
					f = famText
				}
				lx.inner.reset(f, false, "")
				return lx.segs, false
			}
			if indent < len(s) && s[indent] == '#' && lx.headings {
				lx.segs = append(lx.segs, segment{kind: segComment, start: indent, end: len(s)})
				return lx.segs, false
			}
		}
	}
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

// fenceOpen reports whether s (without its indent) opens a fenced code
// block, and returns the fence and the info string's first word, lowercased.
func fenceOpen(s string) (fence, info string, ok bool) {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return "", "", false
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	rest := s[n:]
	if s[0] == '`' && strings.IndexByte(rest, '`') >= 0 {
		return "", "", false // an inline code span, not a fence
	}
	rest = strings.TrimLeft(strings.TrimSpace(rest), "{.")
	if k := strings.IndexAny(rest, " \t,}"); k >= 0 {
		rest = rest[:k]
	}
	return s[:n], strings.ToLower(rest), true
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

// isWordSep reports whether a '#' after c starts a word: after blanks and
// shell operators, not inside x/#frag, $# or C#.
func isWordSep(c byte) bool {
	switch c {
	case ' ', '\t', ';', '|', '&', '(', ')', '\r', '\v', '\f':
		return true
	}
	return false
}
