package pipeline

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// ErrPolicyMissing is wrapped by the error of a check whose
// Options.ConfigPath names a file the base commit does not have: the caller
// misconfigured it, which is not the pull request's fault.
var ErrPolicyMissing = errors.New("the policy file named by the config input is not in the base commit")

// policyPath is Options.ConfigPath, or config.Path when it is empty.
func policyPath(p string) string {
	if p == "" {
		return config.Path
	}
	return p
}

// loadPolicy reads the policy at path from the base commit's tree. The
// default path behaves as config.Load (an absent file means the defaults);
// a path the caller chose must exist, since a policy that was asked for
// and silently replaced by the defaults would relax every rule.
func loadPolicy(fsys fs.FS, path, where string) (*gates.Config, error) {
	if path == config.Path {
		return config.Load(fsys, where)
	}
	info, err := fs.Stat(fsys, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &swarm.ArtifactError{Path: path, Err: fmt.Errorf("%w; commit it to the base branch first, or fix the config input", ErrPolicyMissing)}
	case err != nil:
		return nil, &swarm.ArtifactError{Path: path, Err: err}
	case info.IsDir():
		return nil, &swarm.ArtifactError{Path: path, Err: errors.New("is a directory, expected a file")}
	case info.Size() > config.MaxSize:
		return nil, &swarm.ArtifactError{Path: path, Err: fmt.Errorf("is %d bytes, over the %d-byte limit", info.Size(), config.MaxSize)}
	}
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, &swarm.ArtifactError{Path: path, Err: err}
	}
	c, err := config.Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.Source = path + " at " + where
	return c, nil
}
