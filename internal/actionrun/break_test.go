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

// TestMisconfiguredActionExits3: a base or head input that is not a
// revision at all and a config input naming a file the base lacks are the
// workflow's fault: exit 3 whatever fail-on says.
func TestMisconfiguredActionExits3(t *testing.T) {
	for _, c := range []struct{ name, input, value, want string }{
		{"head with white space", "INPUT_HEAD", "no such ref", `input head: "no such ref" is not a commit SHA, branch, tag or revision`},
		{"base that looks like an option", "INPUT_BASE", "--upload-pack=x", `input base: "--upload-pack=x" is not a commit SHA`},
		{"base that is a range", "INPUT_BASE", "main..HEAD", `it holds ".." (give one commit, not a range)`},
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

// TestRefTheCheckoutLacks: a base or a head that is a well-formed revision
// but is not in the checkout is the usual fetch-depth problem: could not
// evaluate (exit 2) for both, with the fix in the message; a SHA gets a
// fetch hint for a SHA, not origin/<sha>.
func TestRefTheCheckoutLacks(t *testing.T) {
	missing := "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct{ name, input, value, want, notWant string }{
		{"base", "INPUT_BASE", "nope", `resolving "nope": no such commit, branch or tag`, ""},
		{"head", "INPUT_HEAD", "nope", `the head "nope" is not a commit of the checkout`, ""},
		{"head SHA", "INPUT_HEAD", missing, "git fetch origin " + missing, "origin/" + missing},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			h.env[c.input] = c.value
			if code := h.run(context.Background(), nil); code != 2 {
				t.Fatalf("exit %d, want 2\n%s", code, h.log.String())
			}
			log := h.log.String()
			if !strings.Contains(log, c.want) || (c.notWant != "" && strings.Contains(log, c.notWant)) {
				t.Errorf("log does not say %q (or says %q):\n%s", c.want, c.notWant, log)
			}
			if got := h.outputs()["conclusion"]; got != "failure" {
				t.Errorf("conclusion output %q, want failure", got)
			}
			for _, r := range h.fake.CheckRuns(h.repo) {
				if r.Status != "completed" {
					t.Errorf("%s left %s", r.Name, r.Status)
				}
			}
		})
	}
}
