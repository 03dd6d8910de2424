package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// GitData is what CommitApproval needs from GitHub's API; *ghapi.Client
// implements it.
type GitData interface {
	BranchProtected(ctx context.Context, repo ghapi.Repo, branch string) (bool, error)
	BranchHead(ctx context.Context, repo ghapi.Repo, branch string) (string, error)
	GitCommit(ctx context.Context, repo ghapi.Repo, sha string) (*ghapi.GitCommit, error)
	FileAt(ctx context.Context, repo ghapi.Repo, path, ref string) ([]byte, bool, error)
	CreateBlob(ctx context.Context, repo ghapi.Repo, content []byte) (string, error)
	CreateTree(ctx context.Context, repo ghapi.Repo, baseTree string, files []ghapi.TreeFile) (string, error)
	CreateCommit(ctx context.Context, repo ghapi.Repo, message, tree, parent string) (*ghapi.GitCommit, error)
	UpdateBranch(ctx context.Context, repo ghapi.Repo, branch, sha string) error
}

var _ GitData = (*ghapi.Client)(nil)

// ApprovalCommit is an authorized `/swarm approve-plan-critic <reason>` to
// commit to the pull request's branch as the plugin's own record.
type ApprovalCommit struct {
	// Repo is the base repository; HeadRepo ("owner/name"; "" when GitHub
	// does not name it, as for a deleted fork), HeadRef and HeadSHA are the
	// pull request's head as bound when the command was read, and
	// StructureHash the head plan's structure hash then.
	Repo          ghapi.Repo
	HeadRepo      string
	HeadRef       string
	HeadSHA       string
	StructureHash string
	// Actor is the approver's login; Reason the command's reason.
	Actor, Reason string
	// CommentID, CommentURL and CommentedAt identify the command comment:
	// the approval's session id is swarm.ApprovalSessionID(CommentID) and
	// its approved_at is CommentedAt.
	CommentID   int64
	CommentURL  string
	CommentedAt time.Time
	// Now is the clock for the ledger event's timestamp (nil: time.Now).
	Now func() time.Time
}

// Committed is a durable record on the branch.
type Committed struct {
	Branch string
	// Parent is the branch head the record was committed on (HeadSHA, or
	// where the branch moved to if the plan's structure did not change).
	Parent string
	// Commit is the new commit; nil when AlreadyRecorded.
	Commit *ghapi.GitCommit
	// AlreadyRecorded is true when the ledger at the branch head already
	// holds this comment's approval (a redelivered command): nothing was
	// written.
	AlreadyRecorded bool
	// Record is what was appended; nil when AlreadyRecorded.
	Record *swarm.ApprovalRecord
	// Files are the new contents of the two files, by repository path.
	Files map[string][]byte
	// Attempts is how many times the branch head was read (2 after one
	// not-fast-forward retry).
	Attempts int
}

// NotCommitted is why CommitApproval wrote nothing to the branch; Reason
// is a sentence fit for a reply. The approval is then recorded only by
// swarm-gate's marker comment.
type NotCommitted struct {
	Reason string
	Err    error // the API error behind it, if any
}

func (e *NotCommitted) Error() string { return e.Reason }
func (e *NotCommitted) Unwrap() error { return e.Err }

func notCommitted(err error, format string, args ...any) error {
	return &NotCommitted{Reason: fmt.Sprintf(format, args...), Err: err}
}

// CommitMessage is the message of the commit that records an approval.
func CommitMessage(req ApprovalCommit, rec *swarm.ApprovalRecord) string {
	return fmt.Sprintf("swarm-gate: plan-critic approval by @%s\n\nReason: %s\nComment: %s\n\n"+
		"Appends the plugin's manual plan-critic approval (snapshot seq %d, source critic_approved,\n"+
		"payload_hash = structure hash %s) to %s and its\n"+
		"plan_critic_gate_manual_approval line to %s, as the plugin's own\n"+
		"`/swarm approve-plan-critic <reason>` does.\n",
		req.Actor, oneLine(req.Reason), req.CommentURL, rec.Seq, planhash.Short(rec.StructureHash), swarm.LedgerPath, swarm.EventsPath)
}

// CommitApproval commits to the pull request's head branch exactly what the
// plugin's `/swarm approve-plan-critic <reason>` writes
// (swarm.AppendManualApproval: a critic_approved snapshot appended to
// .swarm/plan-ledger.jsonl and a plan_critic_gate_manual_approval line to
// .swarm/events.jsonl), as one commit that changes only those two files,
// named after the approver and the comment, through the Git Data API: the
// branch head, its commit, the files at it (contents API), two blobs, a
// tree on the head's tree, a commit, and a fast-forward update of the
// branch. When the branch moved meanwhile (GitHub: not a fast forward) it
// starts over once from the new head.
//
// It writes nothing, and returns a *NotCommitted saying why, when the head
// is in a fork, the branch is protected, the branch's plan no longer has
// the bound structure hash, the head's files do not take the plugin's
// record (see swarm.AppendManualApproval), or an API call fails or is
// refused (403, 404, 422, a second not-fast-forward). A comment whose
// approval is already in the ledger at the head (a line with its session
// id, the bound structure hash as payload_hash and the same reason) gives
// AlreadyRecorded; a line with its session id and anything else is a
// *NotCommitted.
func CommitApproval(ctx context.Context, api GitData, req ApprovalCommit) (*Committed, error) {
	if req.HeadRepo == "" {
		return nil, notCommitted(nil, "GitHub does not name the pull request's head repository (a deleted fork?), so swarm-gate does not push anywhere")
	}
	if !strings.EqualFold(req.HeadRepo, req.Repo.String()) {
		return nil, notCommitted(nil, "the pull request's branch is in the fork %s, where swarm-gate cannot push", req.HeadRepo)
	}
	if req.Now == nil {
		req.Now = time.Now
	}
	protected, err := api.BranchProtected(ctx, req.Repo, req.HeadRef)
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not read whether branch %s is protected: %v", req.HeadRef, err)
	}
	if protected {
		return nil, notCommitted(nil, "branch %s is protected, and swarm-gate does not push to protected branches", req.HeadRef)
	}
	for attempt := 1; ; attempt++ {
		c, err := commitOnce(ctx, api, req)
		if err == nil {
			c.Attempts = attempt
			return c, nil
		}
		if errors.Is(err, ghapi.ErrNotFastForward) {
			if attempt == 1 {
				continue
			}
			return nil, notCommitted(err, "branch %s moved twice while swarm-gate was writing the record (GitHub: not a fast forward), so it stopped", req.HeadRef)
		}
		var nc *NotCommitted
		if errors.As(err, &nc) {
			return nil, err
		}
		return nil, notCommitted(err, "%v", err)
	}
}

// commitOnce is one attempt from the branch head on.
func commitOnce(ctx context.Context, api GitData, req ApprovalCommit) (*Committed, error) {
	head, err := api.BranchHead(ctx, req.Repo, req.HeadRef)
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not read branch %s: %v", req.HeadRef, err)
	}
	hc, err := api.GitCommit(ctx, req.Repo, head)
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not read the branch's head commit: %v", err)
	}
	var f swarm.ApprovalFiles
	var ok bool
	if f.Plan, ok, err = api.FileAt(ctx, req.Repo, swarm.PlanPath, head); err != nil {
		return nil, notCommitted(err, "swarm-gate could not read %s at %s: %v", swarm.PlanPath, shortSHA(head), err)
	} else if !ok {
		f.Plan = nil
	}
	if f.Ledger, f.HasLedger, err = api.FileAt(ctx, req.Repo, swarm.LedgerPath, head); err != nil {
		return nil, notCommitted(err, "swarm-gate could not read %s at %s: %v", swarm.LedgerPath, shortSHA(head), err)
	}
	if f.Events, f.HasEvents, err = api.FileAt(ctx, req.Repo, swarm.EventsPath, head); err != nil {
		return nil, notCommitted(err, "swarm-gate could not read %s at %s: %v", swarm.EventsPath, shortSHA(head), err)
	}
	if f.Plan != nil {
		if p, err := swarm.ParsePlan(swarm.PlanPath, f.Plan); err == nil && p.Digests.Structure != req.StructureHash {
			return nil, notCommitted(nil, "branch %s moved to %s since the command was read, and its plan's structure changed (structure hash %s, the approval is bound to %s), so the approval does not apply to it", req.HeadRef, shortSHA(head), planhash.Short(p.Digests.Structure), planhash.Short(req.StructureHash))
		}
	}
	out := &Committed{Branch: req.HeadRef, Parent: head}
	session := swarm.ApprovalSessionID(req.CommentID)
	if f.HasLedger {
		if l, err := swarm.ParseLedger(swarm.LedgerPath, f.Ledger); err == nil {
			if ev := l.ManualApprovalBySession(session); ev != nil {
				// Anyone who can push can write a line with this session
				// id: it is this approval only if it approves this plan
				// structure for this reason.
				if ev.PayloadHash != req.StructureHash || ev.Approval.Reason != req.Reason {
					return nil, notCommitted(nil, "the ledger at %s already holds an approval line for comment %d (seq %d, line %d) that is not this approval (payload hash %s, the plan's structure hash is %s; or another reason), so swarm-gate does not write a second one for the same comment",
						shortSHA(head), req.CommentID, ev.Seq, ev.Line, planhash.Short(ev.PayloadHash), planhash.Short(req.StructureHash))
				}
				out.AlreadyRecorded = true
				return out, nil
			}
		}
	}
	rec, err := swarm.AppendManualApproval(f, swarm.ManualApproval{Reason: req.Reason, SessionID: session, ApprovedAt: req.CommentedAt, WrittenAt: req.Now()})
	if err != nil {
		return nil, notCommitted(err, "%v", err)
	}
	lb, err := api.CreateBlob(ctx, req.Repo, rec.Ledger)
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not write the ledger's blob: %v", err)
	}
	eb, err := api.CreateBlob(ctx, req.Repo, rec.Events)
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not write the events log's blob: %v", err)
	}
	tree, err := api.CreateTree(ctx, req.Repo, hc.TreeSHA, []ghapi.TreeFile{{Path: swarm.LedgerPath, BlobSHA: lb}, {Path: swarm.EventsPath, BlobSHA: eb}})
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not write the tree: %v", err)
	}
	commit, err := api.CreateCommit(ctx, req.Repo, CommitMessage(req, rec), tree, head)
	if err != nil {
		return nil, notCommitted(err, "swarm-gate could not write the commit: %v", err)
	}
	if err := api.UpdateBranch(ctx, req.Repo, req.HeadRef, commit.SHA); err != nil {
		if errors.Is(err, ghapi.ErrNotFastForward) {
			return nil, err
		}
		return nil, notCommitted(err, "GitHub refused the push to branch %s%s: %v", req.HeadRef, statusNote(err), err)
	}
	out.Commit, out.Record = commit, rec
	out.Files = map[string][]byte{swarm.LedgerPath: rec.Ledger, swarm.EventsPath: rec.Events}
	return out, nil
}

// statusNote names the HTTP status of a refusal.
func statusNote(err error) string {
	if s := ghapi.StatusCode(err); s != 0 {
		return fmt.Sprintf(" (HTTP %d)", s)
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
