package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/source"
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

// OrgPolicy reads the policy that applies when a repository's base commit
// has none at the default path: the App's reading of the owner's
// `.github` repository's swarm-gate.yml (policy-bot's convention). It
// returns the content, where it came from ("octo-org/.github:
// swarm-gate.yml"), and found false (nil error) when there is none; an
// error means it could not be read, and the check fails closed.
type OrgPolicy func(ctx context.Context) (data []byte, source string, found bool, err error)

// ErrOrgPolicy is wrapped by the error of a check whose organisation
// policy could not be read or does not parse.
var ErrOrgPolicy = errors.New("the organisation's policy")

// loadPolicy reads the policy at path from the base commit's tree. The
// default path behaves as config.Load (an absent file means org's policy
// when org is set, else the defaults); a path the caller chose must
// exist, since a policy that was asked for and silently replaced by the
// defaults would relax every rule.
func loadPolicy(ctx context.Context, fsys fs.FS, path, where string, org OrgPolicy) (*gates.Config, error) {
	if path == config.Path {
		if org != nil && absentPolicy(fsys) {
			return loadOrgPolicy(ctx, org)
		}
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

// errPolicyTooLarge is readPolicyFile's error for a file over
// config.MaxSize, which it does not read (a pull request's policy file is
// the pull request's to make as big as it likes), or a directory.
var errPolicyTooLarge = errors.New("over the policy size limit")

// readPolicyFile reads the policy file at path, or, when it is over
// config.MaxSize, returns an error wrapping errPolicyTooLarge without
// reading it.
func readPolicyFile(fsys fs.FS, path string) ([]byte, error) {
	info, err := fs.Stat(fsys, path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("is a directory, expected a file (%w)", errPolicyTooLarge)
	}
	if info.Size() > config.MaxSize {
		return nil, fmt.Errorf("is %d bytes, over the %d-byte limit (%w)", info.Size(), config.MaxSize, errPolicyTooLarge)
	}
	return fs.ReadFile(fsys, path)
}

// absentPolicy reports whether the tree has no policy file at the default
// path under either spelling (config.Load refuses a lone .yaml).
func absentPolicy(fsys fs.FS) bool {
	_, err := fs.Stat(fsys, config.Path)
	_, errAlt := fs.Stat(fsys, ".github/swarm-gate.yaml")
	return errors.Is(err, fs.ErrNotExist) && errors.Is(errAlt, fs.ErrNotExist)
}

func loadOrgPolicy(ctx context.Context, org OrgPolicy) (*gates.Config, error) {
	data, src, found, err := org(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w could not be read (the base commit has no %s, so it would apply): %w", ErrOrgPolicy, config.Path, err)
	case !found:
		c := gates.DefaultConfig()
		c.Source = "built-in defaults (no " + config.Path + " on the base branch, and no swarm-gate.yml in the owner's .github repository)"
		return c, nil
	case len(data) > config.MaxSize:
		return nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit", ErrOrgPolicy, src, len(data), config.MaxSize)
	}
	c, err := config.Parse(src, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOrgPolicy, err)
	}
	c.Source = src + " (the owner's policy: the base branch has no " + config.Path + ")"
	return c, nil
}

// OrgPolicyFile is where the owner's policy lives in the owner's `.github`
// repository: at its root.
const OrgPolicyFile = "swarm-gate.yml"

// compareOrgPolicy is comparePolicy for the owner's policy in the owner's
// `.github` repository (Options.OrgPolicyRepo): the root swarm-gate.yml,
// compared with the one on the base branch's tip (what the owner's
// repositories use now), or with the built-in defaults when that one is
// absent or invalid.
func compareOrgPolicy(baseTipFS, mbFS, headFS fs.FS) *report.PolicyChange {
	now := gates.DefaultConfig()
	if data, err := readPolicyFile(baseTipFS, OrgPolicyFile); err == nil {
		if c, err := config.Parse(OrgPolicyFile, data); err == nil {
			now = c
		}
	}
	return comparePolicy(now, mbFS, headFS, OrgPolicyFile)
}

// comparePolicy describes what the pull request does to the policy file at
// path: nil when the head's file is the merge base's (mbFS); else the new
// file's problems (it does not parse) or the settings it changes against
// the policy that applies now (baseCfg, the base branch's). A deleted file
// is compared with the built-in defaults it falls back to; a file replaced
// by a symlink or a submodule (or otherwise unreadable) is a problem, since
// swarm-gate reads neither and every check would fail closed once merged.
func comparePolicy(baseCfg *gates.Config, mbFS, headFS fs.FS, path string) *report.PolicyChange {
	if path == config.Path || path == OrgPolicyFile {
		// Once merged, the .yaml spelling makes every check fail closed
		// (the owner's policy: it is not read at all).
		alt := strings.TrimSuffix(path, ".yml") + ".yaml"
		if _, err := fs.Stat(headFS, alt); err == nil {
			if _, err := fs.Stat(mbFS, alt); err != nil {
				why := "every check fails once it is merged"
				if path == OrgPolicyFile {
					why = "the owner's repositories without a policy of their own get the built-in defaults instead"
				}
				return &report.PolicyChange{Path: alt, Status: "added", Problems: []string{"swarm-gate reads " + path + " (with .yml); rename the file, or " + why}}
			}
		}
	}
	headData, headErr := readPolicyFile(headFS, path)
	baseData, baseErr := readPolicyFile(mbFS, path)
	headTooLarge := errors.Is(headErr, errPolicyTooLarge)
	switch {
	case headErr != nil && !headTooLarge && baseErr != nil:
		return nil
	case headErr == nil && baseErr == nil && bytes.Equal(headData, baseData):
		return nil
	}
	pc := &report.PolicyChange{Path: path, Status: "modified"}
	if baseErr != nil && !errors.Is(baseErr, errPolicyTooLarge) {
		pc.Status = "added"
	}
	var headCfg *gates.Config
	switch {
	case headTooLarge:
		pc.Problems = []string{headErr.Error()}
	case errors.Is(headErr, fs.ErrNotExist):
		pc.Status = "deleted"
		headCfg = gates.DefaultConfig()
	case headErr != nil:
		// The path is still there, as something no one can read as the
		// policy: once merged every check fails closed, not the
		// defaults of a deletion (issue 20, B9).
		pc.Problems = []string{unreadablePolicy(headErr)}
	default:
		c, err := config.Parse(path, headData)
		if err != nil {
			for _, e := range config.All(err) {
				msg := e.Err.Error()
				switch {
				case e.Line > 0 && e.Column > 0:
					msg = fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, msg)
				case e.Line > 0:
					msg = fmt.Sprintf("line %d: %s", e.Line, msg)
				}
				pc.Problems = append(pc.Problems, msg)
			}
			if len(pc.Problems) == 0 {
				pc.Problems = []string{err.Error()}
			}
		}
		headCfg = c
	}
	if headCfg != nil {
		for _, ch := range config.Compare(baseCfg, headCfg) {
			pc.Changes = append(pc.Changes, ch.String())
		}
	}
	return pc
}

// unreadablePolicy is the problem of a pull request's policy path that
// exists but cannot be read as a file: a symlink, a submodule, a path
// through one (a symlinked .github), or a read error. It says what the
// path is, that this run still reads the base branch's policy, and what
// merging would do.
func unreadablePolicy(err error) string {
	const effect = "this run reads the policy from the base branch, but once merged the policy cannot be read and every check fails closed (could not evaluate)"
	// A path through a symlink or submodule has an error "PREFIX is a
	// symlink, ..." (source.Snapshot): PREFIX is the folder to name.
	via := func(kind error) string {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			if prefix, ok := strings.CutSuffix(pe.Err.Error(), " "+kind.Error()); ok && prefix != "" {
				return prefix
			}
		}
		return ""
	}
	const fix = "commit the policy as a regular file"
	switch {
	case errors.Is(err, source.ErrSymlink):
		if dir := via(source.ErrSymlink); dir != "" {
			return "is inside " + dir + ", which the pull request makes a symlink (swarm-gate never follows symlinks: " + fix + "); " + effect
		}
		return "is replaced by a symlink (swarm-gate never follows symlinks: " + fix + "); " + effect
	case errors.Is(err, source.ErrSubmodule):
		if dir := via(source.ErrSubmodule); dir != "" {
			return "is inside " + dir + ", which the pull request makes a git submodule (a commit of another repository, not files of this one: " + fix + "); " + effect
		}
		return "is replaced by a git submodule (a commit of another repository, not a file of this one: " + fix + "); " + effect
	}
	return "cannot be read as a file: " + err.Error() + "; " + effect
}
