package actionrun_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestEveryUpdateFails: when no check run can be completed, not even as
// failure, the step says that they stay in progress (not that they were
// completed) and fails even with fail-on: never, since the checks do not
// carry the verdict.
func TestEveryUpdateFails(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
	h.env["INPUT_FAIL-ON"] = "never"
	h.fake.Fail(ghfake.Fault{Operation: "checks/update", Times: -1, Status: http.StatusBadGateway})
	if code := h.run(context.Background(), nil); code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, h.log.String())
	}
	log := h.log.String()
	if !strings.Contains(log, "could not be completed as failure either") || strings.Contains(log, "so those left were completed as failure") {
		t.Errorf("log:\n%s", log)
	}
	if n := strings.Count(log, "check runs could not be reported"); n != 1 {
		t.Errorf("the failure is reported %d times, want once:\n%s", n, log)
	}
}

// TestMisconfiguredActionExits3: an unresolvable head input and a config
// input naming a file the base lacks are the workflow's fault: exit 3
// whatever fail-on says.
func TestMisconfiguredActionExits3(t *testing.T) {
	for _, c := range []struct{ name, input, value, want string }{
		{"head", "INPUT_HEAD", "no-such-ref", "the head \"no-such-ref\" cannot be resolved"},
		{"config", "INPUT_CONFIG", ".github/missing.yml", "the action is misconfigured"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			h.env["INPUT_FAIL-ON"] = "never"
			h.env[c.input] = c.value
			if code := h.run(context.Background(), nil); code != 3 {
				t.Fatalf("exit %d, want 3\n%s", code, h.log.String())
			}
			if !strings.Contains(h.log.String(), c.want) {
				t.Errorf("log does not say %q:\n%s", c.want, h.log.String())
			}
			for _, r := range h.fake.CheckRuns(h.repo) {
				if r.Status != "completed" {
					t.Errorf("%s left %s", r.Name, r.Status)
				}
			}
		})
	}
}
