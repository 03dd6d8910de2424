package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// injectedInstallation is the installation id given to examples that
// carry none (octokit's examples come from repository webhooks as well as
// Apps).
const injectedInstallation = 4242

// routed is what a routed example must become.
type routed struct {
	key, headSHA string
	pr           int
}

// routedExamples are the example payloads of ../shared/github/webhooks that
// swarm-gate acts on; every other example must be answered 204.
var routedExamples = map[string]routed{
	"check_run/rerequested.json":                                    {"github/hello-world@d6fde92930d4715a2b49857d24b940956b26d2d3", "d6fde92930d4715a2b49857d24b940956b26d2d3", 0},
	"check_run/rerequested.with-organization.json":                  {"github/hello-world@d6fde92930d4715a2b49857d24b940956b26d2d3", "d6fde92930d4715a2b49857d24b940956b26d2d3", 0},
	"check_suite/requested.json":                                    {"Codertocat/Hello-World@f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", 0},
	"check_suite/requested.with-email-with-special-characters.json": {"Codertocat/Hello-World@f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", 0},
	"check_suite/requested.with-organization.json":                  {"Codertocat/Hello-World@f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", 0},
	"check_suite/rerequested.json":                                  {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"check_suite/rerequested.with-organization.json":                {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"merge_group/checks_requested.json":                             {"octo-org/octo-repo@2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", 0},
	"pull_request/opened.json":                                      {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/opened.with-null-body.json":                       {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/opened.with-organization.json":                    {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/ready_for_review.json":                            {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/ready_for_review.with-installation.json":          {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/ready_for_review.with-organization.json":          {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/reopened.json":                                    {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/reopened.with-organization.json":                  {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
	"pull_request/synchronize.json":                                 {"Codertocat/Hello-World#2", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", 2},
}

// examplePayloads lists ../shared/github/webhooks/<event>/<file>.json as
// "event/file.json", sorted.
func examplePayloads(t testing.TB) (dir string, names []string) {
	t.Helper()
	dir = githubData(t, "webhooks")
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no payload examples under %s", dir)
	}
	return dir, names
}

// withInstallation gives body an installation.id when it has none, and
// reports whether it did.
func withInstallation(t testing.TB, body []byte) ([]byte, bool) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	var inst struct {
		ID int64 `json:"id"`
	}
	if raw, ok := top["installation"]; ok {
		if err := json.Unmarshal(raw, &inst); err != nil {
			t.Fatal(err)
		}
	}
	if inst.ID != 0 {
		return body, false
	}
	top["installation"] = json.RawMessage(fmt.Sprintf(`{"id":%d}`, injectedInstallation))
	out, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	return out, true
}

// Every example payload: a job with the right key and head SHA for the
// routed ones, 204 for the rest.
func TestRoutingExamples(t *testing.T) {
	dir, names := examplePayloads(t)
	found := map[string]bool{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			event, _, _ := strings.Cut(name, "/")
			body, injected := withInstallation(t, raw)
			var head struct {
				Action       string `json:"action"`
				Installation struct {
					ID int64 `json:"id"`
				} `json:"installation"`
			}
			if err := json.Unmarshal(body, &head); err != nil {
				t.Fatal(err)
			}

			h := newHarness(t, Config{})
			want, isRouted := routedExamples[name]
			found[name] = isRouted
			if !isRouted {
				h.mustSend(t, delivery{event: event, id: "ex-1", body: body}, http.StatusNoContent)
				if h.q.depth() != 0 {
					t.Fatal("queued a job for an event swarm-gate ignores")
				}
				return
			}
			h.mustSend(t, delivery{event: event, id: "ex-1", body: body}, http.StatusAccepted)
			jobs := h.q.drain()
			if len(jobs) != 1 {
				t.Fatalf("%d jobs queued, want 1", len(jobs))
			}
			j := jobs[0]
			if j.Key != want.key || j.HeadSHA != want.headSHA || j.PR != want.pr {
				t.Errorf("job key %q head %q PR %d, want %q %q %d", j.Key, j.HeadSHA, j.PR, want.key, want.headSHA, want.pr)
			}
			if j.Event != event || j.Action != head.Action || j.Delivery != "ex-1" || j.Installation != head.Installation.ID || !j.Coalesce {
				t.Errorf("job %+v: want event %s, action %s, delivery ex-1, installation %d, coalescing", j, event, head.Action, head.Installation.ID)
			}
			if string(j.Payload) != string(body) || j.Received.IsZero() {
				t.Errorf("job payload is not the raw body, or Received is unset")
			}
			// Every pull_request example carries pull_request.updated_at;
			// other events leave Updated zero.
			var pr struct {
				PullRequest struct {
					UpdatedAt string `json:"updated_at"`
				} `json:"pull_request"`
			}
			_ = json.Unmarshal(body, &pr)
			if got := j.Updated.Format(time.RFC3339); event == "pull_request" && got != pr.PullRequest.UpdatedAt || event != "pull_request" && !j.Updated.IsZero() {
				t.Errorf("job Updated %s, want the payload's pull_request.updated_at %q for pull_request, zero otherwise", got, pr.PullRequest.UpdatedAt)
			}
			if injected {
				// As the example is, with no installation: refused.
				got := h.mustSend(t, delivery{event: event, id: "ex-2", body: raw}, http.StatusBadRequest)
				if !strings.Contains(got, "payload has no installation.id") {
					t.Errorf("body %q does not say payload has no installation.id", got)
				}
			}
		})
	}
	for name := range routedExamples {
		if _, ok := found[name]; !ok {
			t.Errorf("routed example %s is not under %s", name, dir)
		}
	}
}

// Cases the examples do not cover.
func TestRoutingCases(t *testing.T) {
	repo := map[string]any{"full_name": "octo/repo"}
	inst := map[string]any{"id": 7}
	for _, tc := range []struct {
		name, event string
		body        []byte
		status      int
		key         string // for 202
		coalesce    bool
		say         string // for 400
	}{
		{"pull_request edited with a new base", "pull_request", mustJSON(map[string]any{
			"action": "edited", "installation": inst, "repository": repo, "number": 4,
			"pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}},
			"changes":      map[string]any{"base": map[string]any{"ref": map[string]any{"from": "main"}}},
		}), http.StatusAccepted, "octo/repo#4", true, ""},
		{"pull_request edited title only", "pull_request", mustJSON(map[string]any{
			"action": "edited", "installation": inst, "repository": repo, "number": 4,
			"pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}},
			"changes":      map[string]any{"title": map[string]any{"from": "old"}},
		}), http.StatusNoContent, "", false, ""},
		{"pull_request closed", "pull_request", prBody("closed", "octo/repo", 4, sha(4)), http.StatusNoContent, "", false, ""},
		{"pull_request labeled with a phase label", "pull_request", mustJSON(map[string]any{
			"action": "labeled", "installation": inst, "repository": repo, "number": 4,
			"pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}},
			"label":        map[string]any{"name": "swarm:phase-2"},
		}), http.StatusAccepted, "octo/repo#4", true, ""},
		{"pull_request unlabeled a phase label", "pull_request", mustJSON(map[string]any{
			"action": "unlabeled", "installation": inst, "repository": repo, "number": 4,
			"pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}},
			"label":        map[string]any{"name": "swarm:phase-2"},
		}), http.StatusAccepted, "octo/repo#4", true, ""},
		{"pull_request labeled with another label", "pull_request", mustJSON(map[string]any{
			"action": "labeled", "installation": inst, "repository": repo, "number": 4,
			"pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}},
			"label":        map[string]any{"name": "bug"},
		}), http.StatusNoContent, "", false, ""},
		{"comment created on a pull request", "issue_comment", commentBody("created", "octo/repo", 9, "/swarm-gate recheck"), http.StatusAccepted, "octo/repo#9", false, ""},
		{"comment edited", "issue_comment", commentBody("edited", "octo/repo", 9, "/swarm-gate recheck"), http.StatusNoContent, "", false, ""},
		{"comment deleted", "issue_comment", commentBody("deleted", "octo/repo", 9, "x"), http.StatusNoContent, "", false, ""},
		{"comment on an issue", "issue_comment", mustJSON(map[string]any{
			"action": "created", "installation": inst, "repository": repo, "issue": map[string]any{"number": 9, "pull_request": nil},
		}), http.StatusNoContent, "", false, ""},
		{"check_suite without pull requests", "check_suite", mustJSON(map[string]any{
			"action": "requested", "installation": inst, "repository": repo, "check_suite": map[string]any{"head_sha": sha(3), "pull_requests": []any{}},
		}), http.StatusAccepted, "octo/repo@" + sha(3), true, ""},
		{"check_run rerequested with a pull request", "check_run", mustJSON(map[string]any{
			"action": "rerequested", "installation": inst, "repository": repo,
			"check_run": map[string]any{"head_sha": sha(3), "pull_requests": []any{map[string]any{"number": 11}, map[string]any{"number": 12}}},
		}), http.StatusAccepted, "octo/repo#11", true, ""},
		{"check_run created", "check_run", mustJSON(map[string]any{
			"action": "created", "installation": inst, "repository": repo, "check_run": map[string]any{"head_sha": sha(3)},
		}), http.StatusNoContent, "", false, ""},
		{"merge_group destroyed", "merge_group", mustJSON(map[string]any{
			"action": "destroyed", "installation": inst, "repository": repo, "merge_group": map[string]any{"head_sha": sha(3)},
		}), http.StatusNoContent, "", false, ""},
		{"push", "push", []byte(`{"ref":"refs/heads/main"}`), http.StatusNoContent, "", false, ""},
		{"unknown event with a body that is not JSON", "star", []byte(`not json`), http.StatusNoContent, "", false, ""},
		{"ping", "ping", []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`), http.StatusOK, "", false, ""},

		{"invalid JSON", "pull_request", []byte(`{"action":"opened",`), http.StatusBadRequest, "", false, "invalid JSON payload: unexpected end of JSON input"},
		{"form-encoded body", "pull_request", []byte(`payload=%7B%7D`), http.StatusBadRequest, "", false, "invalid JSON payload"},
		{"installation id of the wrong type", "pull_request", []byte(`{"action":"opened","installation":{"id":"7"}}`), http.StatusBadRequest, "", false, "field installation.id is a JSON string"},
		{"routed without installation", "pull_request", mustJSON(map[string]any{
			"action": "synchronize", "repository": repo, "number": 4, "pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}},
		}), http.StatusBadRequest, "", false, "payload has no installation.id"},
		{"comment without installation", "issue_comment", mustJSON(map[string]any{
			"action": "created", "repository": repo, "issue": map[string]any{"number": 9, "pull_request": map[string]any{}},
		}), http.StatusBadRequest, "", false, "payload has no installation.id"},
		{"ignored without installation", "pull_request", []byte(`{"action":"closed"}`), http.StatusNoContent, "", false, ""},
		{"short head SHA", "pull_request", prBody("opened", "octo/repo", 4, "abc123"), http.StatusBadRequest, "", false, "pull_request.head.sha \"abc123\" is not a full commit SHA"},
		{"no repository", "merge_group", mustJSON(map[string]any{
			"action": "checks_requested", "installation": inst, "merge_group": map[string]any{"head_sha": sha(3)},
		}), http.StatusBadRequest, "", false, "payload has no repository.full_name"},
		{"no merge_group", "merge_group", mustJSON(map[string]any{
			"action": "checks_requested", "installation": inst, "repository": repo,
		}), http.StatusBadRequest, "", false, "payload has no merge_group object"},
		{"pull_request.updated_at not a time", "pull_request", prBodyAt("synchronize", "octo/repo", 4, sha(4), "yesterday"), http.StatusBadRequest, "", false,
			`pull_request.updated_at "yesterday" is not an RFC 3339 time`},
		{"pull_request.updated_at null", "pull_request", mustJSON(map[string]any{
			"action": "synchronize", "installation": inst, "repository": repo, "number": 4,
			"pull_request": map[string]any{"number": 4, "head": map[string]any{"sha": sha(4)}, "updated_at": nil},
		}), http.StatusAccepted, "octo/repo#4", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			got := h.mustSend(t, delivery{event: tc.event, id: "case-1", body: tc.body}, tc.status)
			if tc.say != "" && !strings.Contains(got, tc.say) {
				t.Errorf("body %q does not say %q", got, tc.say)
			}
			if tc.status == http.StatusNoContent && !strings.Contains(h.logs.String(), `"level":"DEBUG","msg":"webhook delivery ignored`) {
				t.Errorf("no debug line for the ignored delivery:\n%s", h.logs)
			}
			jobs := h.q.drain()
			if tc.status != http.StatusAccepted {
				if len(jobs) != 0 {
					t.Errorf("%d jobs queued, want none", len(jobs))
				}
				return
			}
			if len(jobs) != 1 || jobs[0].Key != tc.key || jobs[0].Coalesce != tc.coalesce {
				t.Errorf("jobs %+v, want one with key %s, coalesce %v", jobs, tc.key, tc.coalesce)
			}
		})
	}
}

func TestInstallationEventsAreLogged(t *testing.T) {
	dir := githubData(t, "webhooks")
	body, err := os.ReadFile(filepath.Join(dir, "installation_repositories", "added.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{})
	h.mustSend(t, delivery{event: "installation_repositories", id: "inst-1", body: body}, http.StatusNoContent)
	logs := h.logs.String()
	for _, want := range []string{`"action":"added"`, `"account":"Codertocat"`, `"repos_added":"Codertocat/Space"`, `"delivery":"inst-1"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("installation log lacks %s:\n%s", want, logs)
		}
	}
}
