package commands

import (
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
// rendered comment were run).
func visibleLineStarts(body string) map[int]bool {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	src := []byte(body)
	doc := md.Parser().Parse(text.NewReader(src))
	out := map[int]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindBlockquote, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindHTMLBlock:
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
		if strings.TrimLeft(body[ls:start], " \t") == "" {
			out[strings.Count(body[:start], "\n")+1] = true
		}
		return ast.WalkContinue, nil
	})
	return out
}
