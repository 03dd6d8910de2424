package event

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

func mergeGroupSkip(ev *actions.Event) string {
	if ev.Action != "checks_requested" {
		return fmt.Sprintf("nothing to do for merge_group %q: swarm-gate evaluates checks_requested", ev.Action)
	}
	return ""
}

func mergeGroupTarget(mg *actions.MergeGroup) (Target, bool) {
	if mg.BaseSHA == "" || mg.HeadSHA == "" {
		return Target{}, false
	}
	return Target{Base: mg.BaseSHA, Head: mg.HeadSHA, PostSHA: mg.HeadSHA, Kind: "merge_group",
		What: "the merge group " + strings.TrimPrefix(mg.HeadRef, "refs/heads/"), QueuedPR: queuedPR(mg.HeadRef)}, true
}

func mergeGroupRefs(mg *actions.MergeGroup) []string { return []string{mg.HeadRef, mg.BaseRef} }

// queueRef is a merge queue's head ref: gh-readonly-queue/<base>/pr-<N>-<sha>.
var queueRef = regexp.MustCompile(`^(?:refs/heads/)?gh-readonly-queue/.+/pr-(\d+)-[0-9a-f]{40}$`)

func queuedPR(ref string) int {
	m := queueRef.FindStringSubmatch(ref)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}
