package actionrun

import (
	"fmt"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
)

// target is one evaluation of ModeCheck.
type target = event.Target

// route decides what to do with the event in the mode: the mode is the
// Action's input, what the event means is internal/event's. repo is
// GITHUB_REPOSITORY.
func route(ev *actions.Event, s *Settings, repo string) event.Work {
	switch s.Mode {
	case ModePhaseWrap:
		return event.Work{Kind: event.PhaseWrap}
	case ModeCommand:
		if ev.Name != "issue_comment" {
			return usage("mode command runs on issue_comment events, not %s (see the comment-command workflow in docs/action.md)", ev.Name)
		}
		return event.Work{Kind: event.Command}
	case ModePublish:
		if ev.Name != "workflow_run" {
			return usage("mode publish runs on workflow_run events, not %s (see the poster workflow for pull requests from forks in docs/action.md)", ev.Name)
		}
		return event.Work{Kind: event.Publish}
	case ModeCheck:
		t, ok := event.Commits(ev, repo)
		if !ok {
			t = target{Head: "HEAD", Kind: "manual", What: "the commits given by the base and head inputs"}
			if s.Base == "" {
				return usage("mode check on a %s event needs the base input (the ref to compare with)", ev.Name)
			}
		}
		return event.Work{Kind: event.Check, Target: override(t, s)}
	}
	w := event.Route(ev, repo, event.Action)
	if w.Kind == event.Check {
		w.Target = override(w.Target, s)
	}
	return w
}

func usage(format string, args ...any) event.Work {
	return event.Work{Kind: event.Usage, Reason: fmt.Sprintf(format, args...)}
}

// override applies the base, head and head-branch inputs.
func override(t target, s *Settings) target {
	if s.Base != "" {
		t.Base = s.Base
	}
	if s.Head != "" && s.Head != t.Head {
		t.Head, t.PostSHA = s.Head, ""
	}
	if s.HeadBranch != "" {
		t.HeadBranch = s.HeadBranch
	}
	return t
}
