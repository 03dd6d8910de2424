package event

import (
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// pushSkip says why a push is not evaluated, or "".
func pushSkip(ev *actions.Event) string {
	def := ""
	if ev.Repository != nil {
		def = ev.Repository.DefaultBranch
	}
	switch {
	case def == "" || ev.Ref != "refs/heads/"+def:
		return fmt.Sprintf("nothing to do for a push to %s: swarm-gate evaluates pushes to the default branch (pull requests are evaluated on pull_request)", ev.Ref)
	case ev.Deleted:
		return "nothing to do: the push deleted " + ev.Ref
	case strings.Trim(ev.Before, "0") == "":
		return "nothing to do: the push created " + ev.Ref + ", so there is no earlier commit to compare with"
	}
	return ""
}

func pushTarget(ev *actions.Event) Target {
	branch := strings.TrimPrefix(ev.Ref, "refs/heads/")
	return Target{Base: ev.Before, Head: ev.After, HeadBranch: branch, PostSHA: ev.After, Kind: "push",
		What: "the push to " + branch}
}
