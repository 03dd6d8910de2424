package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

// TestAdvSASTNULPaddedCode: a JavaScript test file (which swarm/placeholders
// skips as a test) padded with NUL bytes in a trailing comment runs in node
// as it is, but the scanner skips it as binary (more than 10% NUL bytes),
// and swarm/sast passed "0 scanned files": a changed code file the rules
// did not read must fail closed, as one too large to scan does.
func TestAdvSASTNULPaddedCode(t *testing.T) {
	const run = "package app\n\nfunc Run() {}\n"
	js := "const cp = require(\"child_process\");\nmodule.exports = function run(req) {\n  cp.exec(\"ls \" + req.query.dir);\n};\n// " + strings.Repeat("\x00", 200) + "\n"
	r := newRepo(t)
	r.commit("", map[string]string{"app/run.go": run, ".swarm/plan.json": miniPlan})
	r.commit("swarm/phase-1", map[string]string{"app/run.test.js": js})
	for _, engine := range []string{"go-git", "git"} {
		rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-1", Phase: 1, Gates: []gates.Gate{gates.SAST{}, gates.Placeholders{}}, DiffEngine: engine})
		if err != nil {
			t.Fatal(err)
		}
		blocked := false
		for _, g := range rep.Gates {
			blocked = blocked || g.Outcome == gates.Failed || g.Outcome == gates.Error
		}
		if !blocked {
			t.Errorf("%s: NUL-padded code file passed unscanned: %s %q; %s %q", engine, rep.Gates[0].Outcome, rep.Gates[0].Title, rep.Gates[1].Outcome, rep.Gates[1].Title)
		}
	}
}
