package app_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// TestAPICallsFor50FilePullRequest counts the REST calls of evaluating a
// pull request that changes 50 files (the target: fewer than 15, and one more for the summary comment),
// split into source reads and check-run writes, for the first evaluation
// of an installation (which mints its token) and for the next one.
func TestAPICallsFor50FilePullRequest(t *testing.T) {
	h := newHarness(t)
	files := map[string]string{}
	for i := range 43 { // the demo's phase pull request changes 7 files already
		files[fmt.Sprintf("cmd/export/part%02d.go", i)] = fmt.Sprintf("package main\n\nconst part%02d = %d\n", i, i)
	}
	h.commitOnHead(files)
	a := h.newApp(nil)
	if _, err := a.Identify(context.Background()); err != nil { // serve does this at start-up
		t.Fatal(err)
	}
	srv := h.newServer(a, "server")
	for i, name := range []string{"first evaluation (mints the installation token)", "next evaluation (token cached)"} {
		if i == 1 {
			h.commitOnHead(map[string]string{"cmd/export/part00.go": "package main\n\nconst part00 = 100\n"})
		}
		before := len(h.fake.Calls())
		if code := h.deliver(srv.URL, "pull_request", fmt.Sprintf("d-50-%d", i), h.synchronize(nil)); code != http.StatusAccepted {
			t.Fatalf("delivery answered %d", code)
		}
		h.waitCompleted(h.head)
		// The aggregate is completed last, just before the evaluation returns.
		waitFor(t, func() bool { return strings.Count(h.logs.String(), `"msg":"evaluation finished"`) > i })
		calls := h.fake.Calls()[before:]
		split := map[string][]string{}
		for _, c := range calls {
			kind := "check-run writes"
			switch {
			case strings.HasPrefix(c.Operation, "apps/"):
				kind = "token"
			case c.Method == http.MethodGet && strings.HasPrefix(c.Operation, "checks/"):
				kind = "check-run reads"
			case c.Method == http.MethodGet:
				kind = "source reads"
			}
			split[kind] = append(split[kind], c.Operation)
		}
		var lines []string
		for k, ops := range split {
			lines = append(lines, fmt.Sprintf("%s %d %v", k, len(ops), ops))
		}
		sort.Strings(lines)
		t.Logf("%s: %d REST calls\n  %s", name, len(calls), strings.Join(lines, "\n  "))
		// 16 with the summary comment's create or update (issue 23) and
		// the list of the head commit's pull requests (evaluate/twins.go);
		// the first evaluation also reads the owner's policy (the base
		// branch has none; the App keeps it for 5 minutes).
		if limit := 17 + 1 - i; len(calls) >= limit {
			t.Errorf("%s: %d REST calls, want fewer than %d", name, len(calls), limit)
		}
		if i == 1 && len(split["token"]) > 0 {
			t.Errorf("the next evaluation minted another token: %v", split["token"])
		}
	}
	if cr := h.storedRun("swarm/scope"); cr.Conclusion != "failure" || len(cr.Annotations) != 1 {
		t.Errorf("swarm/scope %s with %d annotations: the 43 files in cmd/export/ are in scope, main.go is not", cr.Conclusion, len(cr.Annotations))
	}
}
