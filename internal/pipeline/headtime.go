package pipeline

import (
	"log/slog"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/internal/source"
)

// commitTime returns a commit's committer time: the "now" of the gates'
// time windows (gates.Input.HeadTime), since gates have no clock. It returns
// the zero time, which the gates read as unknown, when the commit cannot be
// read.
func commitTime(repo *source.Git, h plumbing.Hash, log *slog.Logger) time.Time {
	t, err := repo.CommitTime(h)
	if err != nil {
		log.Debug("head commit time unknown", "commit", h.String(), "error", err)
		return time.Time{}
	}
	return t
}
