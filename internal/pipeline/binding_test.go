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

	"github.com/swarm-gate/swarm-gate/internal/demo"
)

const staleMarker = `{"type":"spec_stale_detected","phase":1,"specHash_plan":"aaaa","specHash_current":"bbbb"}`

// commitOn commits files on branch (checked out) at when and returns the
// commit's SHA.
func commitOn(t *testing.T, dir, branch string, files map[string]string, when time.Time, create bool) string {
	t.Helper()
	g, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := g.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Create: create, Force: true}); err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: when}
	h, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// TestBindingAt: the binding names the head, its plan's structure hash,
// its committer time, and the spec drift it carries (none, or the
// staleness key the gates compute).
func TestBindingAt(t *testing.T) {
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BindingAt(context.Background(), dir, base, head, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.HeadSHA != head || b.StructureHash == "" || b.SpecStale || b.SpecStaleness != "" || b.HeadTime.IsZero() {
		t.Fatalf("binding %+v", b)
	}
	when := time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)
	stale := commitOn(t, dir, demo.HeadBranch, map[string]string{".swarm/spec-staleness.json": staleMarker}, when, false)
	b, err = BindingAt(context.Background(), dir, base, stale, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !b.SpecStale || b.SpecStaleness != "spec:aaaa:bbbb" || !b.HeadTime.Equal(when) {
		t.Fatalf("binding %+v", b)
	}
}

// TestHistory: a marker's head is found in the evaluated head's history
// (itself or an ancestor) with its plan's structure hash and time; a
// commit elsewhere, unknown or malformed is not in it; a checkout that
// lacks part of the history cannot tell, and says so.
func TestHistory(t *testing.T) {
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	side := commitOn(t, dir, demo.BaseBranch, map[string]string{"side.txt": "x\n"}, time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), false)
	top := commitOn(t, dir, demo.HeadBranch, map[string]string{".swarm/spec-staleness.json": staleMarker}, time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC), false)
	b, err := BindingAt(context.Background(), dir, base, head, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := BindingAt(context.Background(), dir, base, base, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenHistory(dir, top)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, sha string
		in        bool
		structure string
		staleness string
	}{
		{"the head itself", top, true, b.StructureHash, "spec:aaaa:bbbb"},
		{"the head a command saw", head, true, b.StructureHash, ""},
		{"the base (an ancestor)", base, true, bb.StructureHash, ""},
		{"a commit on another branch", side, false, "", ""},
		{"unknown", strings.Repeat("1", 40), false, "", ""},
		{"abbreviated", head[:12], false, "", ""},
		{"upper case", strings.ToUpper(head), false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mc, err := h.Commit(tc.sha)
			if err != nil {
				t.Fatal(err)
			}
			if mc.InHistory != tc.in || mc.StructureHash != tc.structure || mc.SpecStaleness != tc.staleness {
				t.Fatalf("got %+v, want in=%v structure %q staleness %q", mc, tc.in, tc.structure, tc.staleness)
			}
			if tc.in && mc.CommitTime.IsZero() {
				t.Error("no commit time")
			}
		})
	}
	t.Run("missing history", func(t *testing.T) {
		// Remove the base commit's object: the walk cannot get past it.
		obj := filepath.Join(dir, ".git", "objects", base[:2], base[2:])
		if err := os.Remove(obj); err != nil {
			t.Skipf("the base commit is not a loose object: %v", err)
		}
		h, err := OpenHistory(dir, top)
		if err != nil {
			t.Fatal(err)
		}
		if mc, err := h.Commit(head); err != nil || !mc.InHistory {
			t.Errorf("a commit above the gap: %+v, %v", mc, err)
		}
		if _, err := h.Commit(side); err == nil || !strings.Contains(err.Error(), "lacks part of the history") {
			t.Errorf("a commit the walk cannot rule out: %v", err)
		}
	})
}
