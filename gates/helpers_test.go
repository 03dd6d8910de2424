package gates

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

const corpusDir = "../../shared/corpus"

// corpus loads one corpus repository's .swarm folder, skipping the test when
// the shared corpus is not beside the repository.
func corpus(t *testing.T, repo string) *swarm.Artifacts {
	t.Helper()
	dir := filepath.Join(corpusDir, repo)
	if _, err := os.Stat(dir); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo to run corpus tests)", dir)
	}
	return swarm.Load(os.DirFS(dir))
}

// corpusFS returns a corpus repository as a MapFS that a test can edit.
func corpusFS(t *testing.T, repo string, files ...string) fstest.MapFS {
	t.Helper()
	dir := filepath.Join(corpusDir, repo)
	if _, err := os.Stat(dir); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo to run corpus tests)", dir)
	}
	m := fstest.MapFS{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		m[f] = &fstest.MapFile{Data: data}
	}
	return m
}

func load(fsys fstest.MapFS) *swarm.Artifacts { return swarm.Load(fsys) }

func empty() *swarm.Artifacts { return swarm.Load(fstest.MapFS{}) }

func eval(g Gate, in *Input) Result {
	if in.Base == nil {
		in.Base = empty()
	}
	if in.Changes == nil {
		in.Changes = &changeset.ChangeSet{}
	}
	if in.PhaseSource == "" {
		in.PhaseSource = PhaseFromFlag
	}
	return Run(context.Background(), in, []Gate{g})[0]
}

func rules(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule)
	}
	return out
}

func hasRule(r Result, rule string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func findingsText(r Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.Path + ": " + f.Rule + ": " + f.Message + "\n")
	}
	return b.String()
}

// withPlanFreeze is the default policy with the given plan_freeze section.
func withPlanFreeze(pf PlanFreezeConfig) *Config {
	c := DefaultConfig()
	c.Source = "test"
	c.PlanFreeze = pf
	return c
}
