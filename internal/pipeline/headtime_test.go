package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/demo"
)

// A head whose committer time is forged into the future must not let
// evidence dated there pass: the evaluation's clock caps the head time.
func TestCheckFutureCommitDateDoesNotClearFutureEvidence(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := demo.Build(dir); err != nil {
		t.Fatal(err)
	}
	g, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(demo.HeadBranch), Force: true}); err != nil {
		t.Fatal(err)
	}
	ev := `{"taskId":"1.2","required_gates":["reviewer","test_engineer"],"gates":{
 "reviewer":{"sessionId":"s","timestamp":"2099-01-01T11:05:00.000Z","agent":"reviewer"},
 "test_engineer":{"sessionId":"s","timestamp":"2099-01-01T11:08:00.000Z","agent":"test_engineer"}}}`
	if err := os.WriteFile(filepath.Join(dir, ".swarm", "evidence", "1.2.json"), []byte(ev), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(".swarm/evidence/1.2.json"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2099, 1, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("evidence", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	r, err := Check(context.Background(), Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch})
	if err != nil {
		t.Fatal(err)
	}
	for _, gr := range r.Gates {
		if gr.Name != "swarm/evidence" {
			continue
		}
		if gr.Outcome != gates.Failed {
			t.Fatalf("swarm/evidence %s, want failed: %+v", gr.Outcome, gr.Findings)
		}
		for _, f := range gr.Findings {
			if f.Rule == gates.RuleEvidenceStale && strings.Contains(f.Message, "2099-01-01T11:05") {
				return
			}
		}
		t.Fatalf("no stale finding for the 2099 reviewer record: %+v", gr.Findings)
	}
	t.Fatal("no swarm/evidence result")
}
