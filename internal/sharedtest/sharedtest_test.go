package sharedtest_test

import (
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// recorder is a testing.TB that records whether the test was skipped or
// failed.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped = true
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = format
}

func TestSkipOrFail(t *testing.T) {
	for _, tc := range []struct {
		env                 string
		wantSkip, wantFatal bool
	}{{"", true, false}, {"0", true, false}, {"1", false, true}} {
		t.Run("SWARM_GATE_REQUIRE_SHARED="+tc.env, func(t *testing.T) {
			t.Setenv(sharedtest.EnvRequire, tc.env)
			r := &recorder{TB: t}
			sharedtest.Skip(r, "skipping: %s is absent", "../shared/corpus")
			if r.skipped != tc.wantSkip || r.failed != tc.wantFatal {
				t.Errorf("skipped %v failed %v, want %v %v", r.skipped, r.failed, tc.wantSkip, tc.wantFatal)
			}
		})
	}
}

func TestSetPath(t *testing.T) {
	p := map[string]any{"a": map[string]any{"keep": 1}, "s": "scalar"}
	sharedtest.SetPath(p, "a.b.c", "v")
	sharedtest.SetPath(p, "s.x", 2)
	sharedtest.SetPath(p, "top", true)
	a := p["a"].(map[string]any)
	if a["keep"] != 1 || a["b"].(map[string]any)["c"] != "v" || p["s"].(map[string]any)["x"] != 2 || p["top"] != true {
		t.Errorf("SetPath gave %v", p)
	}
}
