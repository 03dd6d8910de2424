package actionrun

import (
	"encoding/json"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// checkSet is one evaluation's check runs (evaluate.Runs).
type checkSet = evaluate.Runs

// Post statuses (evaluate's).
const (
	posted    = evaluate.Posted
	noToken   = evaluate.NoToken
	forbidden = evaluate.Forbidden
	postError = evaluate.PostError
)

// deps are what this run's evaluations post with.
func (ses *session) deps() *evaluate.Deps {
	return &evaluate.Deps{
		API:                ses.api,
		NoAPI:              ses.apiErr,
		Repo:               ses.repo,
		Logger:             ses.logger,
		WorkflowKey:        ses.workflowKey,
		FullReport:         ses.checkReport,
		DeferGateRuns:      ses.r.DeferGateRuns,
		FinaliseTimeout:    ses.r.FinaliseTimeout,
		CancelledAsFailure: ses.r.CancelledAsFailure,
		Track: func(runs ...*ghapi.CheckRun) {
			ses.started = append(ses.started, runs...)
			ses.saveState()
		},
		Checkout: evaluate.Checkout{
			Dir:         ses.workspace,
			Git:         ses.r.Repo,
			MergeBase:   ses.r.MergeBase,
			SourceError: ses.r.SourceError,
			OrgPolicy:   ses.orgPolicy(),
			// A pull request to the owner's .github repository may
			// change the owner's policy: validated like the repository's.
			OrgPolicyRepo: strings.EqualFold(ses.repo.Name, OrgPolicyRepo),
			Version:       ses.r.Version,
		},
		Conversation: conversation{ses},
		Warn:         func(msg string) { ses.warnf("%s", msg) },
	}
}

// checkRunState is what the main step saves for the post step: the check
// runs it started, so that the post step can complete any left in
// progress.
type checkRunState struct {
	Repo string          `json:"repo"`
	Runs []stateCheckRun `json:"runs"`
}

type stateCheckRun struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// stateName is the name of the saved state (STATE_check_runs).
const stateName = "check_runs"

// saveState records the runs still in progress for the post step ("" when
// none). Without GITHUB_STATE (a docker:// step has no post step) it does
// nothing.
func (ses *session) saveState() {
	if ses.r.Env.Get("GITHUB_STATE") == "" {
		return
	}
	st := checkRunState{Repo: ses.repo.String()}
	for _, run := range ses.started {
		if run.InProgress() {
			st.Runs = append(st.Runs, stateCheckRun{ID: run.ID, Name: run.Name})
		}
	}
	value := ""
	if len(st.Runs) > 0 {
		b, _ := json.Marshal(st)
		value = string(b)
	}
	if err := ses.r.Env.SaveState(stateName, value); err != nil {
		ses.logger.Warn("saving the check runs for the post step", "error", err)
	}
}
