package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// workflowBlock is a fenced YAML block of the README that is a whole
// workflow (it has triggers and jobs), not a snippet of one.
var workflowBlock = regexp.MustCompile("(?ms)^```ya?ml\n(.*?)^```")

// TestActionlint lints the repository's workflows and every workflow the
// README gives to copy with actionlint (as a library; shellcheck and
// pyflakes are not run, the rest of its rules are): each must have no
// finding.
func TestActionlint(t *testing.T) {
	type file struct {
		name    string
		content []byte
	}
	var files []file
	paths, err := filepath.Glob("../../.github/workflows/*.y*ml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no workflows found: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{filepath.ToSlash(strings.TrimPrefix(p, "../../")), data})
	}
	// Every workflow the docs show, and the README's if it shows one.
	blocks, inAction := 0, 0
	for _, doc := range []string{"README.md", "docs/action.md"} {
		text, err := os.ReadFile("../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range workflowBlock.FindAllSubmatchIndex(text, -1) {
			body := text[m[2]:m[3]]
			if !regexp.MustCompile(`(?m)^on:`).Match(body) || !regexp.MustCompile(`(?m)^jobs:`).Match(body) {
				continue
			}
			line := 1 + strings.Count(string(text[:m[2]]), "\n")
			files = append(files, file{fmt.Sprintf("%s:%d", doc, line), body})
			blocks++
			if doc == "docs/action.md" {
				inAction++
			}
		}
	}
	if inAction < 4 {
		t.Fatalf("found %d workflows in docs/action.md; it gives at least 4 (pull request, comment commands, fork poster, phase-wrap)", inAction)
	}
	linter, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The linter finds what it should: an unknown permission and an
	// undefined expression context.
	bad := "on: pull_request\npermissions:\n  check: write\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ gihtub.sha }}\n"
	if errs, err := linter.Lint("bad.yml", []byte(bad), nil); err != nil || len(errs) < 2 {
		t.Fatalf("actionlint found %d problems in a broken workflow (%v), want 2", len(errs), err)
	}
	t.Logf("linting %d workflows (%d from the docs)", len(files), blocks)
	for _, f := range files {
		errs, err := linter.Lint(f.name, f.content, nil)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		for _, e := range errs {
			t.Errorf("%s: line %d col %d: %s [%s]", f.name, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}
