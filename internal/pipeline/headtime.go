package pipeline

import (
	"log/slog"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// commitTime returns a commit's committer time: the "now" of the gates'
// time windows (gates.Input.HeadTime), since gates have no clock. It returns
// the zero time, which the gates read as unknown, when the commit cannot be
// read.
func commitTime(dir string, h plumbing.Hash, log *slog.Logger) time.Time {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err == nil {
		commit, cerr := repo.CommitObject(h)
		if cerr == nil {
			return commit.Committer.When
		}
		err = cerr
	}
	log.Debug("head commit time unknown", "commit", h.String(), "error", err)
	return time.Time{}
}
