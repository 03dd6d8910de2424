package app_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestTwoReplicas: two App servers behind one GitHub, each receiving part
// of the deliveries, and then each the other's delivery again (GitHub's
// redelivery reaching the other replica after the first one finished):
// every evaluation happens, and no check run is duplicated (the external id
// makes the second evaluation update the first's runs).
func TestTwoReplicas(t *testing.T) {
	h := newHarness(t)
	a := h.newServer(h.newApp(nil), "replica-a")
	b := h.newServer(h.newApp(nil), "replica-b")

	head1 := h.head
	d1 := h.synchronize(nil)
	if code := h.deliver(a.URL, "pull_request", "d-1", d1); code != http.StatusAccepted {
		t.Fatalf("d-1 to replica A answered %d", code)
	}
	h.waitCompleted(head1)
	head2 := h.commitOnHead(map[string]string{"internal/export/csv_test.go": "package export\n"})
	d2 := h.synchronize(nil)
	if code := h.deliver(b.URL, "pull_request", "d-2", d2); code != http.StatusAccepted {
		t.Fatalf("d-2 to replica B answered %d", code)
	}
	h.waitCompleted(head2)
	// The redeliveries, each to the replica that did not see it.
	if code := h.deliver(b.URL, "pull_request", "d-1", d1); code != http.StatusAccepted {
		t.Fatalf("d-1 again, to replica B, answered %d", code)
	}
	if code := h.deliver(a.URL, "pull_request", "d-2", d2); code != http.StatusAccepted {
		t.Fatalf("d-2 again, to replica A, answered %d", code)
	}
	// And once more to the replica that did see it: a duplicate.
	if code := h.deliver(a.URL, "pull_request", "d-1", d1); code != http.StatusOK {
		t.Errorf("d-1 again to replica A answered %d, want 200 (duplicate)", code)
	}
	a.drain(t)
	b.drain(t)

	seen := map[string]int{}
	for _, cr := range h.fake.CheckRuns(testRepo) {
		seen[fmt.Sprintf("%s@%.7s %s", cr.Name, cr.HeadSHA, cr.ExternalID)]++
		if cr.Status != "completed" {
			t.Errorf("%s@%.7s is %s", cr.Name, cr.HeadSHA, cr.Status)
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%d check runs %s, want 1", n, k)
		}
	}
	if len(seen) != 18 {
		t.Errorf("%d distinct check runs, want 18 (9 per head, two heads): %v", len(seen), h.runs())
	}
	if n := len(h.fake.CallsTo("checks/create")); n != 18 {
		t.Errorf("%d check runs created, want 18: the redeliveries update the runs they find", n)
	}
	// Both redeliveries were evaluated: four aggregates were started.
	started := 0
	for _, c := range h.fake.Calls() {
		if c.Get("name") == "swarm-gate" && c.Get("status") == "in_progress" {
			started++
		}
	}
	if started != 4 {
		t.Errorf("the aggregate was put in progress %d times, want 4 (two deliveries, each evaluated by both replicas)", started)
	}
}

// waitCompleted waits until the aggregate check run of head is completed.
func (h *harness) waitCompleted(head string) {
	h.t.Helper()
	waitFor(h.t, func() bool {
		for _, cr := range h.fake.CheckRuns(testRepo) {
			if cr.Name == "swarm-gate" && cr.HeadSHA == head && cr.Status == "completed" {
				return true
			}
		}
		return false
	})
}
