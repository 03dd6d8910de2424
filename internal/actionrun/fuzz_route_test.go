package actionrun

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
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
		switch j.Kind {
		case event.Skip:
			if j.Reason == "" {
				t.Fatal("a skip without a notice")
			}
		case event.Check:
			checkTarget(t, ev, repo, j.Target)
		case event.PhaseWrap, event.Command, event.Publish:
		case event.Usage:
			// A payload that lacks its event's object (a push without
			// "after") is a broken event: exit 3, saying what is missing.
			if j.Reason == "" {
				t.Fatal("a usage error without a notice")
			}
		default:
			t.Fatalf("auto mode routed %s %q to %s", name, ev.Action, j.Kind)
		}
		if name == "pull_request_target" && j.Kind != event.Skip {
			t.Fatalf("pull_request_target routed to %s", j.Kind)
		}
		if j.Kind != event.Skip && j.Kind != event.Usage && j.Reason != "" {
			t.Fatalf("%s with a notice %q", j.Kind, j.Reason)
		}

		// The App door does only what it can without a workflow run, and
		// evaluates what a workflow run would (check_suite requested aside).
		w := event.Route(ev, repo, event.App)
		switch w.Kind {
		case event.Skip:
			if w.Reason == "" {
				t.Fatal("an App skip without a reason")
			}
		case event.Check:
			if a := route(ev, &Settings{Mode: ModeAuto}, repo); a.Kind == event.Check && !reflect.DeepEqual(a.Target, w.Target) {
				t.Fatalf("App door target %+v, Action's %+v", w.Target, a.Target)
			}
			if w.Key == "" || !w.Coalesce {
				t.Fatalf("App door check without a coalescing key: %+v", w)
			}
		case event.Command:
			if w.Target.PR <= 0 || w.Coalesce {
				t.Fatalf("App door command %+v", w)
			}
		default:
			t.Fatalf("App door routed %s %q to %s", name, ev.Action, w.Kind)
		}

		// Check mode: with a base input it always evaluates against it;
		// without one it asks for it when the event names no commits.
		j = route(ev, &Settings{Mode: ModeCheck, Base: "main"}, repo)
		if j.Kind != event.Check || j.Target.Base != "main" || j.Target.Head == "" {
			t.Fatalf("check mode with a base: %s %+v", j.Kind, j.Target)
		}
		j = route(ev, &Settings{Mode: ModeCheck}, repo)
		if (j.Kind != event.Check && j.Kind != event.Usage) || (j.Kind == event.Usage && j.Reason == "") {
			t.Fatalf("check mode: %s %q", j.Kind, j.Reason)
		}
		if j.Kind == event.Check && (j.Target.Base == "" || j.Target.Head == "") {
			t.Fatalf("check mode target %+v", j.Target)
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
