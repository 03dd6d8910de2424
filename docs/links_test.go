// Package docs_test checks the documentation: every relative link in
// README.md and docs/*.md resolves to a file of the repository, and every
// #fragment to a heading of the file it names (GitHub's heading anchors).
package docs_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// doc is one Markdown file: its repository path, the anchors of its
// headings and its links (destination and 1-based line).
type doc struct {
	path    string
	anchors map[string]bool
	links   []link
}

type link struct {
	dest string
	line int
}

// slug is GitHub's anchor for a heading text: lower case, punctuation
// other than '-' and '_' dropped, spaces turned into '-'.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainText is a node's text as GitHub renders it for an anchor: code
// spans and link texts included, markup dropped.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(src))
			case *ast.String:
				b.Write(t.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func parse(t *testing.T, repoPath string) doc {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(repoPath)))
	if err != nil {
		t.Fatal(err)
	}
	d := doc{path: repoPath, anchors: map[string]bool{}}
	lineOf := func(offset int) int { return 1 + strings.Count(string(src[:offset]), "\n") }
	root := goldmark.DefaultParser().Parse(text.NewReader(src))
	seen := map[string]int{}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			s := slug(plainText(n, src))
			if k := seen[s]; k > 0 {
				d.anchors[fmt.Sprintf("%s-%d", s, k)] = true
			} else {
				d.anchors[s] = true
			}
			seen[s]++
		case *ast.Link:
			line := 0
			if n.FirstChild() != nil {
				if tx, ok := n.FirstChild().(*ast.Text); ok {
					line = lineOf(tx.Segment.Start)
				}
			}
			d.links = append(d.links, link{string(n.Destination), line})
		case *ast.Image:
			d.links = append(d.links, link{string(n.Destination), 0})
		}
		return ast.WalkContinue, nil
	})
	// Explicit anchors (<a id="..."> or name=).
	for _, m := range regexp.MustCompile(`<a (?:id|name)="([^"]+)"`).FindAllSubmatch(src, -1) {
		d.anchors[string(m[1])] = true
	}
	return d
}

func TestRelativeLinksResolve(t *testing.T) {
	paths := []string{"README.md"}
	mds, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mds {
		paths = append(paths, "docs/"+m)
	}
	docs := map[string]doc{}
	for _, p := range paths {
		docs[p] = parse(t, p)
	}
	checked := 0
	for _, p := range paths {
		d := docs[p]
		for _, l := range d.links {
			if regexp.MustCompile(`^[a-zA-Z][a-zA-Z+.-]*:`).MatchString(l.dest) || strings.HasPrefix(l.dest, "//") {
				continue // absolute URLs are not checked offline
			}
			checked++
			target, frag, _ := strings.Cut(l.dest, "#")
			where := fmt.Sprintf("%s:%d: link %q", p, l.line, l.dest)
			file := p
			if target != "" {
				file = path.Clean(path.Join(path.Dir(p), target))
				if strings.HasPrefix(file, "../") {
					t.Errorf("%s: points outside the repository", where)
					continue
				}
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(file))); err != nil {
					t.Errorf("%s: %s does not exist", where, file)
					continue
				}
			}
			if frag == "" {
				continue
			}
			td, ok := docs[file]
			if !ok {
				if strings.HasSuffix(file, ".md") {
					td = parse(t, file)
					docs[file] = td
				} else {
					continue // a fragment into a non-Markdown file (a line anchor) is not checked
				}
			}
			if !td.anchors[frag] {
				t.Errorf("%s: %s has no heading with the anchor #%s", where, file, frag)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked only %d relative links: is the parser finding them?", checked)
	}
	t.Logf("%d relative links in %d files resolve", checked, len(paths))
}

// TestSlug pins GitHub's anchors for the heading shapes the docs use.
func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"The GitHub App: swarm-gate serve":                       "the-github-app-swarm-gate-serve",
		"Policy: .github/swarm-gate.yml on the base branch":      "policy-githubswarm-gateyml-on-the-base-branch",
		"What blocks a pull request, and what is only shown":     "what-blocks-a-pull-request-and-what-is-only-shown",
		"Can the phase close? On a schedule":                     "can-the-phase-close-on-a-schedule",
		`Seeing why a plan "differs from the approved snapshot"`: "seeing-why-a-plan-differs-from-the-approved-snapshot",
		"The JSON report (--format json)":                        "the-json-report---format-json",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
