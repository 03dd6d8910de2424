package gates

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// TestScopeFindingsCap: past maxScopeFileFindings the files outside the
// scope are counted in one scope/more-not-shown error, not listed.
func TestScopeFindingsCap(t *testing.T) {
	add := func(p string) changeset.File {
		return changeset.File{Status: changeset.Added, NewPath: p, NewMode: 0o100644}
	}
	files := func(outside, unclean, inside int) []changeset.File {
		var fs []changeset.File
		for i := 0; i < outside; i++ {
			fs = append(fs, add(fmt.Sprintf("z/f%05d.txt", i)))
		}
		for i := 0; i < unclean; i++ {
			fs = append(fs, add(fmt.Sprintf("z/u%05d/../x", i)))
		}
		for i := 0; i < inside; i++ {
			fs = append(fs, add(fmt.Sprintf("src/api/f%05d.go", i)))
		}
		return fs
	}
	cases := []struct {
		name                     string
		files                    []changeset.File
		shown, notShown, outside int
	}{
		{"at the limit", files(maxScopeFileFindings, 0, 0), maxScopeFileFindings, 0, maxScopeFileFindings},
		{"one past it", files(maxScopeFileFindings+1, 0, 0), maxScopeFileFindings, 1, maxScopeFileFindings + 1},
		{"unclean paths count too", files(maxScopeFileFindings-1, 3, 0), maxScopeFileFindings, 2, maxScopeFileFindings + 2},
		{"files inside the scope are not counted", files(maxScopeFileFindings, 0, 500), maxScopeFileFindings, 0, maxScopeFileFindings},
		{"many past it", files(5000, 0, 10), maxScopeFileFindings, 4000, 5000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(Scope{}, &Input{Phase: 2, Head: load(scopeHead(nil)), Changes: &changeset.ChangeSet{Files: c.files}})
			if r.Outcome != Failed {
				t.Fatalf("outcome %s (%s), want failed", r.Outcome, r.Title)
			}
			if want := fmt.Sprintf("%d changed files outside the scope", c.outside); !strings.HasPrefix(r.Title, want) {
				t.Errorf("title %q, want it to start %q", r.Title, want)
			}
			shown := 0
			var more []Finding
			for _, f := range r.Findings {
				switch f.Rule {
				case RuleOutOfScope, RuleUncleanPath:
					shown++
				case RuleScopeNotShown:
					more = append(more, f)
				}
			}
			if shown != c.shown {
				t.Errorf("%d files shown, want %d", shown, c.shown)
			}
			if c.notShown == 0 {
				if len(more) != 0 {
					t.Errorf("unexpected %s: %+v", RuleScopeNotShown, more)
				}
				return
			}
			if len(more) != 1 {
				t.Fatalf("%d %s findings, want 1:\n%s", len(more), RuleScopeNotShown, findingsText(r))
			}
			f := more[0]
			if f.Severity != SeverityError || f.Path == "" || !strings.HasPrefix(f.Message, plural(c.notShown, "changed file", "changed files")+" more not shown") {
				t.Errorf("got %+v, want an error counting %d files", f, c.notShown)
			}
		})
	}
}
