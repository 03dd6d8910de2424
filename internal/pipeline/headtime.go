package pipeline

import (
	"log/slog"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/internal/source"
)

// commitTime returns a commit's committer time: the "now" of the gates'
// time windows (gates.Input.HeadTime), since gates have no clock. A time
// after now (the clock of this evaluation) is capped at now: the committer
// picks that time (GIT_COMMITTER_DATE), and a head dated 2099 would let
// evidence dated 2099 pass as "not after its commit" and postdate every
// later redefinition of its task. It returns the zero time, which the gates
// read as unknown, when the commit cannot be read.
func commitTime(repo *source.Git, h plumbing.Hash, now time.Time, log *slog.Logger) time.Time {
	t, err := repo.CommitTime(h)
	if err != nil {
		log.Debug("head commit time unknown", "commit", h.String(), "error", err)
		return time.Time{}
	}
	if t.After(now) {
		log.Debug("head commit dated in the future, capped at now", "commit", h.String(), "committer_time", t)
		return now
	}
	return t
}
