package commands

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// md is a CommonMark parser, as GitHub's renderer is at its core.
var md = goldmark.New()

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
// may never have seen the command (issue 20). Tags inside HTML comments do
// not count.
func visibleLineStarts(body string) map[int]bool {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	src := []byte(body)
	doc := md.Parser().Parse(text.NewReader(src))
	out := map[int]bool{}
	details := 0 // <details> elements open at this point of the walk
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if n.HasClosure() {
				seg := n.ClosureLine
				b.Write(seg.Value(src))
			}
			details = detailsDepth(details, b.String())
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(src))
			}
			details = detailsDepth(details, b.String())
			return ast.WalkSkipChildren, nil
		}
		switch n.Kind() {
		case ast.KindBlockquote, ast.KindCodeBlock, ast.KindFencedCodeBlock:
			return ast.WalkSkipChildren, nil
		}
		t, ok := n.(*ast.Text)
		if !ok || details > 0 {
			return ast.WalkContinue, nil
		}
		if p := t.Parent(); p == nil || p.Kind() != ast.KindParagraph && p.Kind() != ast.KindTextBlock {
			return ast.WalkContinue, nil
		}
		start := t.Segment.Start
		ls := strings.LastIndexByte(body[:start], '\n') + 1
		if strings.TrimLeft(body[ls:start], " \t") == "" {
			out[strings.Count(body[:start], "\n")+1] = true
		}
		return ast.WalkContinue, nil
	})
	return out
}

// detailsTag is an opening or closing <details> tag (any case, any
// attributes), and htmlComment an HTML comment, whose tags are not tags.
var (
	detailsTag  = regexp.MustCompile(`(?i)<(/?)details(?:[\s/][^>]*)?>`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?(?:-->|$)`)
)

// detailsDepth is depth after the <details> tags of html: one more for
// each opening tag, one fewer for each closing one, never below 0 (a
// stray </details> closes nothing).
func detailsDepth(depth int, html string) int {
	html = htmlComment.ReplaceAllString(html, "")
	for _, m := range detailsTag.FindAllStringSubmatch(html, -1) {
		if m[1] == "" {
			depth++
		} else if depth > 0 {
			depth--
		}
	}
	return depth
}
