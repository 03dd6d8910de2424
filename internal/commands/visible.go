package commands

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// md is a CommonMark parser, as GitHub's renderer is at its core, with
// GFM's strikethrough: struck-out text is no command, as emphasis is not.
var md = goldmark.New(goldmark.WithExtensions(extension.Strikethrough))

// visibleLineStarts are the lines (1-based, CRLF and CR read as LF, as
// commandLines counts them) where a paragraph's visible text begins: a
// text node that is a direct child of a paragraph (or of a tight list
// item's text block) and starts the line. A `/swarm` anywhere else is not
// text a reader sees at a line start: a link reference definition or a
// link's title, an image's alt text, the inside of an HTML tag, or a
// link's or emphasis's text (issue 20 item 4: commands hidden from the
// rendered comment were run), or anything inside a `<details>` element,
// open or collapsed, up to its `</details>` (or the comment's end): GitHub
// shows it only after a click, so the maintainer who approves the comment
// may never have seen the command (issue 20).
//
// Whether a candidate is inside a tag, a comment or a <details> element is
// read from the rendered HTML with an HTML5 parser, as a browser reads it:
// raw HTML runs on across Markdown blocks, a `</details>` or `<!--` inside
// an attribute value, a bogus comment (`<?...>`, `<!X...>`,
// `<![CDATA[...>`) or a comment is no tag, and an end tag the tree builder
// ignores closes nothing.
func visibleLineStarts(body string) map[int]bool {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	src := []byte(body)
	doc := md.Parser().Parse(text.NewReader(src))
	cands := map[*ast.Text]int{} // candidate text node -> its line
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindHTMLBlock, ast.KindRawHTML, ast.KindBlockquote, ast.KindCodeBlock, ast.KindFencedCodeBlock:
			return ast.WalkSkipChildren, nil
		}
		t, ok := n.(*ast.Text)
		if !ok {
			return ast.WalkContinue, nil
		}
		if p := t.Parent(); p == nil || p.Kind() != ast.KindParagraph && p.Kind() != ast.KindTextBlock {
			return ast.WalkContinue, nil
		}
		start := t.Segment.Start
		ls := strings.LastIndexByte(body[:start], '\n') + 1
		if strings.TrimLeft(body[ls:start], " \t") == "" && !inMath(src, t.Parent(), start) {
			cands[t] = strings.Count(body[:start], "\n") + 1
		}
		return ast.WalkContinue, nil
	})
	out := map[int]bool{}
	if len(cands) == 0 {
		return out
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	m := &lineMarker{prefix: "\uE000" + hex.EncodeToString(nonce[:]) + ":", cands: cands}
	base := ghtml.NewRenderer(ghtml.WithUnsafe())
	base.RegisterFuncs(m) // captures the text renderer
	r := renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(base, 1000), util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500), util.Prioritized(m, 100)))
	var buf bytes.Buffer
	if err := r.Render(&buf, src, doc); err != nil {
		return out // unreadable: no command (fail closed)
	}
	page := tagFilter.ReplaceAll(buf.Bytes(), []byte("&lt;$1"))
	// Visible to both the tree builder and the tag count: where they
	// differ (a <details> a parent's end tag closes), the command is not
	// taken.
	tree := map[int]bool{}
	for _, line := range visibleMarkers(page, m.prefix) {
		tree[line] = true
	}
	for _, line := range outsideDetails(page, m.prefix) {
		out[line] = tree[line]
	}
	return out
}

// inMath reports whether offset start of the paragraph p lies inside
// GitHub's math ($...$ or $$...$$, which it typesets, not shows as text):
// an odd number of unescaped runs of $ before it in the paragraph, and one
// after it to close them. Code spans are not told apart, which can only
// take a command for math.
func inMath(src []byte, p ast.Node, start int) bool {
	lines := p.Lines()
	if lines.Len() == 0 {
		return false
	}
	begin, end := lines.At(0).Start, lines.At(lines.Len()-1).Stop
	if start < begin || start > end {
		return false
	}
	return dollarRuns(src[begin:start])%2 == 1 && dollarRuns(src[start:end]) > 0
}

// dollarRuns counts the runs of unescaped $ in b.
func dollarRuns(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++
		case b[i] == '$':
			n++
			for i+1 < len(b) && b[i+1] == '$' {
				i++
			}
		}
	}
	return n
}

// lineMarker renders each candidate text node with a marker before it that
// names its line; the nonce keeps the comment from forging one.
type lineMarker struct {
	prefix string
	cands  map[*ast.Text]int
	text   renderer.NodeRendererFunc
}

// Register captures the base renderer's text function.
func (m *lineMarker) Register(k ast.NodeKind, f renderer.NodeRendererFunc) {
	if k == ast.KindText {
		m.text = f
	}
}

func (m *lineMarker) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindText, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if line, ok := m.cands[n.(*ast.Text)]; ok && entering {
			_, _ = w.WriteString(m.prefix + strconv.Itoa(line) + "\uE001")
		}
		return m.text(w, src, n, entering)
	})
}

// tagFilter is GFM's disallowed raw HTML: GitHub escapes these tags, so
// they are text, not raw text elements that would swallow what follows.
var tagFilter = regexp.MustCompile(`(?i)<(/?(?:title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext)(?:[\s/>]|$))`)

// hiding are the elements whose text a reader does not see: <details>
// until clicked, and what a browser does not render (<template>,
// <noscript> with scripting on, the fallback content of media); and the
// ones whose text a reader does not see as plain text, as Markdown's
// strikethrough, link and code text are not: struck through (<del>, <s>,
// <strike>), a link (<a>) or code (<code>) around a paragraph.
var hiding = map[atom.Atom]bool{atom.Details: true, atom.Template: true, atom.Noscript: true,
	atom.Video: true, atom.Audio: true, atom.Object: true, atom.Canvas: true,
	atom.Del: true, atom.S: true, atom.Strike: true, atom.A: true, atom.Code: true}

// visibleMarkers are the lines whose markers stand in text outside any
// hiding element once page is parsed as a browser builds its tree (so an
// end tag a browser ignores, such as a </details> inside a table cell,
// closes nothing).
func visibleMarkers(page []byte, prefix string) []int {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil
	}
	var lines []int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && hiding[n.DataAtom] {
			return
		}
		if n.Type == html.TextNode {
			lines = append(lines, markedLines(n.Data, prefix)...)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return lines
}

// outsideDetails are the lines whose markers stand in text tokens after as
// many </details> as <details> (and not in a <noscript>), counting tags as
// an HTML5 tokenizer reads them.
func outsideDetails(page []byte, prefix string) []int {
	var lines []int
	z := html.NewTokenizer(bytes.NewReader(page))
	details, raw := 0, false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return lines
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			raw = tt == html.StartTagToken && string(name) == "noscript"
			if string(name) == "details" {
				details++ // <details/> opens one too
			}
			continue
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "details" && details > 0 {
				details--
			}
		case html.TextToken:
			if details == 0 && !raw {
				lines = append(lines, markedLines(string(z.Raw()), prefix)...)
			}
		}
		raw = false
	}
}

// markedLines are the line numbers of the markers in s.
func markedLines(s, prefix string) []int {
	var out []int
	for {
		i := strings.Index(s, prefix)
		if i < 0 {
			return out
		}
		s = s[i+len(prefix):]
		j := strings.IndexRune(s, '\uE001')
		if j < 0 {
			return out
		}
		if n, err := strconv.Atoi(s[:j]); err == nil {
			out = append(out, n)
		}
		s = s[j:]
	}
}
