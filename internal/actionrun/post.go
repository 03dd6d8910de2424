package actionrun

import (
	"encoding/json"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
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
			OrgPolicyRepo: strings.EqualFold(ses.repo.Name, evaluate.OrgPolicyRepo),
			Version:       ses.r.Version,
		},
		Conversation: ses.conversation(),
		Checked:      ses.checked,
		Also:         ses.phaseWrapPR,
		Warn:         func(msg string) { ses.warnf("%s", msg) },
		Notice:       func(msg string) { ses.noticef("%s", msg) },
	}
}

// conversation is the run's pull request conversations, made once.
func (ses *session) conversation() *evaluate.Conversation {
	if ses.talk == nil {
		c := &evaluate.Conversation{BotLogin: ses.s.BotLogin, RunURL: ses.runURL}
		if ses.r.BotLogin != "" {
			c.BotLogin = ses.r.BotLogin
		}
		if ses.runURL != "" && !ses.r.NoReportFiles {
			c.CommentReport = "the `swarm-gate-report` artifact of [this workflow run](" + ses.runURL + ")"
		}
		ses.talk = c
	}
	return ses.talk
}

// orgPolicy reads the owner's policy when the Runner keeps a cache of it
// (evaluate.OrgPolicy), made once.
func (ses *session) orgPolicy() pipeline.OrgPolicy {
	if !ses.orgRead {
		ses.orgRead = true
		var api evaluate.Contents
		if ses.api != nil {
			api = ses.api
		}
		ses.org = evaluate.OrgPolicy(ses.r.OrgPolicy, api, ses.repo, ses.s.Config)
	}
	return ses.org
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
