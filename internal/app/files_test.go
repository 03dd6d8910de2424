package app_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/fdtest"
)

// TestEvaluationsCloseFiles: every evaluation closes the files it opened
// in its work directory (the fetched repository is opened once and keeps
// its pack open while the evaluation runs), so that evaluation after
// evaluation the server holds no file of a removed work directory and its
// descriptors do not grow. The garbage collector is off, so that no
// finalizer closes what the evaluation left open.
func TestEvaluationsCloseFiles(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	h := newHarness(t)
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := h.newApp(func(cfg *app.Config) { cfg.WorkDir = work })
	const n = 8
	var before int
	for i := range n {
		if err := a.Evaluate(context.Background(), h.job(fmt.Sprintf("d-files-%d", i))); err != nil {
			t.Fatalf("evaluation %d: %v", i, err)
		}
		all, under := fdtest.Open(t, work)
		if len(under) > 0 {
			t.Fatalf("after evaluation %d, %d files under the work directory are still open: %v", i, len(under), under)
		}
		if i == 0 {
			before = all // the first opens the API and git connections
		} else if all > before+2 {
			t.Errorf("after evaluation %d, %d descriptors are open, %d after the first", i, all, before)
		}
	}
	checkConclusions(t, h, demoConclusions())
}
