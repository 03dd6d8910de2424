package actionrun

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// FuzzRoute feeds event names and payloads (GitHub's examples from
// ../shared, mutated) to route in auto mode and in check mode. Whatever
// the payload says: auto mode never asks for usage help, a skip says why,
// pull_request_target is never evaluated, a push is evaluated only on the
// default branch, an evaluation names both commits and posts on its head,
// a pull request from another repository is a fork, and check mode with
// a base input always evaluates against that base.
func FuzzRoute(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(webhooks, "*", "*.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatalf("reading seed %s: %v", p, err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			f.Fatalf("seed %s: %v", p, err)
		}
		event := filepath.Base(filepath.Dir(p))
		f.Add(event, b.Bytes())
		if event == "pull_request" && strings.HasPrefix(filepath.Base(p), "synchronize") {
			f.Add("pull_request_target", b.Bytes())
		}
	}
	sha := strings.Repeat("a", 40)
	f.Add("push", []byte(`{"ref":"refs/heads/main","before":"`+sha+`","after":"`+sha+`","repository":{"default_branch":"main"}}`))
	f.Add("merge_group", []byte(`{"action":"checks_requested","merge_group":{"head_sha":"`+sha+`","head_ref":"refs/heads/gh-readonly-queue/main/pr-12-`+sha+`","base_sha":"`+sha+`"}}`))
	f.Add("check_run", []byte(`{"action":"rerequested","check_run":{"name":"swarm/scope","head_sha":"h","pull_requests":[{"number":3,"head":{"sha":"h"},"base":{"sha":"b"}}]}}`))
	f.Add("workflow_run", []byte(`{}`))
	f.Add("schedule", []byte(`{"schedule":"17 6 * * *"}`))

	const repo = "Codertocat/Hello-World"
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ev, err := actions.ParseEvent(data)
		if err != nil {
			return
		}
		ev.Name = name
		j := route(ev, &Settings{Mode: ModeAuto}, repo)
		switch j.kind {
		case jobSkip:
			if j.notice == "" {
				t.Fatal("a skip without a notice")
			}
		case jobCheck:
			checkTarget(t, ev, repo, j.target)
		case jobPhaseWrap, jobCommand, jobPublish:
		case jobUsage:
			// A payload that lacks its event's object (a push without
			// "after") is a broken event: exit 3, saying what is missing.
			if j.notice == "" {
				t.Fatal("a usage error without a notice")
			}
		default:
			t.Fatalf("auto mode routed %s %q to %s", name, ev.Action, j.kind)
		}
		if name == "pull_request_target" && j.kind != jobSkip {
			t.Fatalf("pull_request_target routed to %s", j.kind)
		}
		if j.kind != jobSkip && j.kind != jobUsage && j.notice != "" {
			t.Fatalf("%s with a notice %q", j.kind, j.notice)
		}

		// Check mode: with a base input it always evaluates against it;
		// without one it asks for it when the event names no commits.
		j = route(ev, &Settings{Mode: ModeCheck, Base: "main"}, repo)
		if j.kind != jobCheck || j.target.Base != "main" || j.target.Head == "" {
			t.Fatalf("check mode with a base: %s %+v", j.kind, j.target)
		}
		j = route(ev, &Settings{Mode: ModeCheck}, repo)
		if (j.kind != jobCheck && j.kind != jobUsage) || (j.kind == jobUsage && j.notice == "") {
			t.Fatalf("check mode: %s %q", j.kind, j.notice)
		}
		if j.kind == jobCheck && (j.target.Base == "" || j.target.Head == "") {
			t.Fatalf("check mode target %+v", j.target)
		}
	})
}

// checkTarget checks an auto-mode evaluation of the event.
func checkTarget(t *testing.T, ev *actions.Event, repo string, tg target) {
	t.Helper()
	if tg.Base == "" || tg.Head == "" || tg.PostSHA != tg.Head || tg.What == "" {
		t.Fatalf("%s: target %+v", ev.Name, tg)
	}
	switch ev.Name {
	case "pull_request":
		if tg.Kind != "pull_request" && tg.Kind != "merge_group" {
			t.Fatalf("pull_request evaluated as %q", tg.Kind)
		}
	case "merge_group":
	case "push":
		if ev.Repository == nil || ev.Repository.DefaultBranch == "" || ev.Ref != "refs/heads/"+ev.Repository.DefaultBranch || ev.Deleted {
			t.Fatalf("push to %q evaluated (default branch %+v, deleted %v)", ev.Ref, ev.Repository, ev.Deleted)
		}
	case "check_run", "check_suite":
		if ev.Action != "rerequested" {
			t.Fatalf("%s %q evaluated", ev.Name, ev.Action)
		}
	default:
		t.Fatalf("the %s event evaluated as %+v", ev.Name, tg)
	}
	if tg.Kind == "pull_request" && ev.PullRequest != nil && tg.Fork != (ev.PullRequest.Head.RepoFullName() != repo) {
		t.Fatalf("fork %v for head repository %q", tg.Fork, ev.PullRequest.Head.RepoFullName())
	}
}
