package actions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// webhooksDir holds GitHub's example payloads (octokit/webhooks), read in
// place.
const webhooksDir = "../../../shared/github/webhooks"

func payload(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(webhooksDir, name)
	if _, err := os.Stat(path); err != nil {
		sharedtest.Skip(t, "shared webhook payloads not available: %v", err)
	}
	return path
}

func readPayload(t *testing.T, name string) *Event {
	t.Helper()
	ev, err := ReadEvent(payload(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestReadEventPullRequestSynchronize(t *testing.T) {
	ev := readPayload(t, "pull_request/synchronize.json")
	pr := ev.PullRequest
	if ev.Action != "synchronize" || ev.Number != 2 || pr == nil {
		t.Fatalf("action %q number %d pr %v", ev.Action, ev.Number, pr)
	}
	got := []string{pr.Base.SHA, pr.Base.Ref, pr.Head.SHA, pr.Head.Ref, pr.Head.RepoFullName(), pr.Base.RepoFullName(), strings.Join(pr.LabelNames(), ",")}
	want := []string{"f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "master", "ec26c3e57ca3a959ca5aad62de7213c562f8c821", "changes", "Codertocat/Hello-World", "Codertocat/Hello-World", "bug"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if pr.Number != 2 || pr.Draft || ev.Changes != nil || ev.Repository.FullName != "Codertocat/Hello-World" {
		t.Errorf("number %d draft %v changes %v repo %q", pr.Number, pr.Draft, ev.Changes, ev.Repository.FullName)
	}
	if _, ok := ev.Raw["installation"]; !ok {
		t.Error("Raw lacks the payload's top-level fields")
	}
}

func TestReadEventPullRequestDraftAndForks(t *testing.T) {
	ev := readPayload(t, "pull_request/converted_to_draft.json")
	if ev.Action != "converted_to_draft" || !ev.PullRequest.Draft {
		t.Errorf("action %q draft %v", ev.Action, ev.PullRequest.Draft)
	}
	// A deleted fork's head repo is null.
	var b Branch
	if err := json.Unmarshal([]byte(`{"ref":"x","sha":"y","repo":null}`), &b); err != nil || b.RepoFullName() != "" {
		t.Errorf("null head repo: %q, %v", b.RepoFullName(), err)
	}
}

func TestReadEventPullRequestEditedBase(t *testing.T) {
	// GitHub's examples have no edited pull_request; build one from
	// synchronize the way GitHub sends it when the base branch changes.
	var raw map[string]any
	data, err := os.ReadFile(payload(t, "pull_request/synchronize.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	raw["action"] = "edited"
	raw["changes"] = map[string]any{"base": map[string]any{
		"ref": map[string]any{"from": "develop"},
		"sha": map[string]any{"from": "0123456789abcdef0123456789abcdef01234567"},
	}}
	path := filepath.Join(t.TempDir(), "edited.json")
	out, _ := json.Marshal(raw)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := ReadEvent(path)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Action != "edited" || ev.Changes == nil || ev.Changes.Base == nil ||
		ev.Changes.Base.Ref.From != "develop" || ev.Changes.Base.SHA.From != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("changes = %+v", ev.Changes)
	}
}

func TestReadEventMergeGroup(t *testing.T) {
	ev := readPayload(t, "merge_group/checks_requested.json")
	mg := ev.MergeGroup
	if ev.Action != "checks_requested" || mg == nil {
		t.Fatalf("action %q merge group %v", ev.Action, mg)
	}
	if mg.HeadSHA != "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" || mg.BaseSHA != "380387fbc80638b734a49e1be1c4dfec1c01b33c" ||
		mg.BaseRef != "refs/heads/main" || !strings.HasPrefix(mg.HeadRef, "refs/heads/gh-readonly-queue/main/pr-104-") {
		t.Errorf("merge group = %+v", mg)
	}
}

func TestReadEventPush(t *testing.T) {
	ev := readPayload(t, "push/push.json")
	if ev.Before != "6113728f27ae82c7b1a177c8d03f9e96e0adf246" || ev.After != strings.Repeat("0", 40) ||
		ev.Ref != "refs/tags/simple-tag" || !ev.Deleted || ev.Created || ev.Forced || ev.Repository.DefaultBranch != "master" {
		t.Errorf("push = before %q after %q ref %q deleted %v default %q", ev.Before, ev.After, ev.Ref, ev.Deleted, ev.Repository.DefaultBranch)
	}
	if ev.PullRequest != nil || ev.Action != "" {
		t.Error("push has no pull request or action")
	}
	created := readPayload(t, "push/push.with-new-branch.json")
	if !created.Created || created.Before != strings.Repeat("0", 40) {
		t.Errorf("new branch push: created %v before %q", created.Created, created.Before)
	}
}

func TestReadEventIssueComment(t *testing.T) {
	for _, name := range []string{"created.json", "created.1.json", "created.with-installation.json", "created.with-organization.json"} {
		t.Run(name, func(t *testing.T) {
			ev := readPayload(t, "issue_comment/"+name)
			c := ev.Comment
			if ev.Action != "created" || c == nil || ev.Issue == nil {
				t.Fatalf("action %q comment %v issue %v", ev.Action, c, ev.Issue)
			}
			if c.ID != 492700400 || c.User.Login != "Codertocat" || c.User.Type != "User" ||
				c.HTMLURL != "https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400" || c.Body == "" {
				t.Errorf("comment = %+v", c)
			}
			if ev.Issue.Number != 1 || ev.Issue.IsPullRequest() {
				t.Errorf("issue %d is pull request %v; the example is a plain issue", ev.Issue.Number, ev.Issue.IsPullRequest())
			}
		})
	}
	edited := readPayload(t, "issue_comment/edited.json")
	if edited.Changes == nil || edited.Changes.Body == nil || edited.Changes.Body.From == "" {
		t.Errorf("edited comment changes = %+v", edited.Changes)
	}
	var onPR Event
	if err := json.Unmarshal([]byte(`{"issue":{"number":7,"pull_request":{"url":"u","html_url":"h"}}}`), &onPR); err != nil || !onPR.Issue.IsPullRequest() {
		t.Errorf("issue with pull_request: IsPullRequest false (%v)", err)
	}
	var nilIssue *Issue
	if nilIssue.IsPullRequest() {
		t.Error("nil issue is not a pull request")
	}
}

func TestReadEventCheckRunAndSuite(t *testing.T) {
	rr := readPayload(t, "check_run/rerequested.json")
	if rr.Action != "rerequested" || rr.CheckRun == nil || rr.CheckRun.HeadSHA != "d6fde92930d4715a2b49857d24b940956b26d2d3" ||
		len(rr.CheckRun.PullRequests) != 0 || rr.CheckRun.CheckSuite == nil || rr.CheckRun.CheckSuite.ID != 5 {
		t.Errorf("check_run rerequested = %+v", rr.CheckRun)
	}
	done := readPayload(t, "check_run/completed.json")
	if prs := done.CheckRun.PullRequests; len(prs) != 1 || prs[0].Number != 2 || prs[0].Base.Ref != "master" ||
		prs[0].Head.SHA != "ec26c3e57ca3a959ca5aad62de7213c562f8c821" {
		t.Errorf("check_run pull requests = %+v", prs)
	}
	act := readPayload(t, "check_run/requested_action.json")
	if act.RequestedAction == nil || act.RequestedAction.Identifier != "lgtm|26764" {
		t.Errorf("requested action = %+v", act.RequestedAction)
	}
	cs := readPayload(t, "check_suite/rerequested.json")
	if cs.Action != "rerequested" || cs.CheckSuite == nil || cs.CheckSuite.HeadSHA != "ec26c3e57ca3a959ca5aad62de7213c562f8c821" ||
		cs.CheckSuite.HeadBranch != "changes" || len(cs.CheckSuite.PullRequests) != 1 || cs.CheckSuite.PullRequests[0].Number != 2 {
		t.Errorf("check_suite = %+v", cs.CheckSuite)
	}
}

func TestReadEventWorkflowDispatchAndSchedule(t *testing.T) {
	ev := readPayload(t, "workflow_dispatch/workflow_dispatch.json")
	if v, ok := ev.DispatchInput("name"); !ok || v != "Mona the Octocat" || ev.Ref != "refs/heads/master" {
		t.Errorf("input name = %q, %v; ref %q", v, ok, ev.Ref)
	}
	if _, ok := ev.DispatchInput("phase"); ok {
		t.Error("absent input reported present")
	}
	typed, err := ParseEvent([]byte(`{"inputs":{"phase":3,"strict":true,"note":null,"ratio":0.5},"ref":"refs/heads/main"}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"phase": "3", "strict": "true", "note": "", "ratio": "0.5"} {
		if got, ok := typed.DispatchInput(name); !ok || got != want {
			t.Errorf("DispatchInput(%q) = %q, %v, want %q", name, got, ok, want)
		}
	}
	sched, err := ParseEvent([]byte(`{"schedule":"17 3 * * 1","repository":{"full_name":"o/r","default_branch":"main"}}`))
	if err != nil || sched.Schedule != "17 3 * * 1" || sched.Repository.DefaultBranch != "main" {
		t.Errorf("schedule = %+v, %v", sched, err)
	}
}

// Every example payload GitHub publishes for the events the action handles
// must decode.
func TestReadEventAllExamples(t *testing.T) {
	payload(t, ".")
	paths, err := filepath.Glob(filepath.Join(webhooksDir, "*", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no payloads: %v", err)
	}
	for _, p := range paths {
		if _, err := ReadEvent(p); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestEnvEvent(t *testing.T) {
	path := payload(t, "pull_request/synchronize.json")
	ev, err := NewEnv(MapLookup(map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path})).Event()
	if err != nil || ev.Name != "pull_request" || ev.PullRequest == nil {
		t.Fatalf("Event() = %+v, %v", ev, err)
	}
	if _, err := NewEnv(MapLookup(map[string]string{"GITHUB_EVENT_NAME": "push"})).Event(); err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH") {
		t.Errorf("no event path: err = %v", err)
	}
}

func TestReadEventErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big, err := os.Create(filepath.Join(dir, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxEventSize + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	cases := map[string]string{
		filepath.Join(dir, "missing.json"):           "no such file",
		write("array.json", `[{"action":"opened"}]`): "not a JSON object",
		write("empty.json", ""):                      "not a JSON object",
		write("trailing.json", `{"a":1} {"b":2}`):    "data after",
		write("truncated.json", `{"action":"op`):     "unexpected EOF",
		write("wrongtype.json", `{"number":"two"}`):  "number",
		big.Name(): "larger than 25 MB",
	}
	for path, want := range cases {
		_, err := ReadEvent(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadEvent(%s) err = %v, want the path and %q", filepath.Base(path), err, want)
		}
	}
	exact := write("exact.json", `{"action":"opened"}`+strings.Repeat(" ", 1000))
	if _, err := ReadEvent(exact); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
}

func FuzzParseEvent(f *testing.F) {
	// Small seeds: whole example payloads (tens of kilobytes) slow the
	// coverage-guided mutator to a few executions a second.
	f.Add([]byte(`{"action":"synchronize","number":2,"pull_request":{"number":2,"draft":false,"head":{"ref":"changes","sha":"ec26","repo":{"full_name":"o/r"}},"base":{"ref":"main","sha":"f95f","repo":null},"labels":[{"name":"swarm:phase-3"}]}}`))
	f.Add([]byte(`{"action":"checks_requested","merge_group":{"head_sha":"2ffe","head_ref":"refs/heads/gh-readonly-queue/main/pr-1-x","base_sha":"3803","base_ref":"refs/heads/main"}}`))
	f.Add([]byte(`{"action":"created","comment":{"id":1,"body":"/swarm approve","user":{"login":"u","type":"Bot"}},"issue":{"number":1}}`))
	f.Add([]byte(`{"pull_request":null,"issue":{"pull_request":{}}}`))
	f.Add([]byte(`{"inputs":{"a":[1,{"b":2}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseEvent(data)
		if err != nil {
			return
		}
		ev.Issue.IsPullRequest()
		ev.PullRequest.LabelNames()
		for k := range ev.Inputs {
			ev.DispatchInput(k)
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}
