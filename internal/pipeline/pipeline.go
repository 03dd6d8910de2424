// Package pipeline runs swarm-gate's main job on a local git repository:
// resolve base and head, find the merge base, read the .swarm/ artifacts of
// both sides from git, compute the change set, pick the phase, run the gates
// and build the report.
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/gitattr"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/secrets"
	"github.com/swarm-gate/swarm-gate/internal/source"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Options are the inputs of one check.
type Options struct {
	RepoDir string // a directory inside the repository
	// Repo, when not nil, is that repository already open (the GitHub
	// App's fetch opened it, with its pack files kept open): Check reads
	// through a Handle on it instead of opening RepoDir again. The caller
	// closes it.
	Repo *source.Git
	Base string // base ref (branch, tag, SHA, revision); required
	Head string // head ref; "" means HEAD
	// HeadBranch is the pull request's head branch name, for the phase rule
	// when Head is a SHA (as in CI); "" means the branch Head names, if any.
	HeadBranch string
	// Phase is the plan phase the pull request carries; 0 means detect it
	// (DESIGN.md section 2): from the head branch name (the policy's
	// phase_branch, default swarm/phase-<N>), else a swarm:phase-<N> label,
	// else the head plan's current_phase.
	Phase int
	// Labels are the pull request's label names, for the swarm:phase-<N>
	// label; nil when there are none or they are unknown.
	Labels []string
	// DiffEngine is "auto" (default), "git" or "go-git"; see source.Git.
	DiffEngine string
	// Gates to run; nil means gates.Default() (the registry without the
	// on-demand gates).
	Gates []gates.Gate
	// SARIF are paths of SARIF 2.1.0 logs other scanners wrote, for
	// swarm/sast (read from the file system, not from git).
	SARIF []string
	// Logger receives progress at debug level; nil means slog.Default().
	Logger *slog.Logger
	// ConfigPath is the policy file's repository-relative path, read from
	// the base commit; "" means config.Path (.github/swarm-gate.yml).
	ConfigPath string
	// OrgPolicy, when set, is read when the base commit has no policy at
	// the default path (the App: the owner's .github repository); nil
	// means the built-in defaults then.
	OrgPolicy OrgPolicy
	// OrgPolicyRepo says the repository checked is the owner's `.github`
	// repository, whose root swarm-gate.yml (OrgPolicyFile) is the
	// OrgPolicy of the owner's repositories without their own: a pull
	// request that changes it is validated and described as a policy
	// change (an invalid one fails the check), even without a .swarm/
	// folder.
	OrgPolicyRepo bool
	// Overrides are the human overrides swarm-gate recorded for the pull
	// request (internal/commands reads them back from its comments); the
	// gates apply those bound to the head plan's structure hash.
	Overrides []gates.Override
	// MergeBase, when not "", is the merge base of Base and Head as a
	// trusted source gave it (a full SHA: the GitHub App asks GitHub's
	// compare API when its fetch of the base side does not reach down to
	// the merge base). The change set is then measured from it instead of
	// from the merge base found in the repository, which needs the history
	// of both sides. It must be a commit of the repository and an
	// ancestor of Head (or Head itself) in the history the repository
	// holds: else Check fails with an error naming both SHAs. That it is
	// also an ancestor of Base is not checked (the base side's history
	// may not reach it): that is the source's word.
	MergeBase string
	// OnInput, when not nil, is called with the gates' input once it is
	// built, before any gate runs (the replay suite re-checks verdicts
	// against the same input, also after Check returns: its file readers
	// stay usable then). It must not change it.
	OnInput func(*gates.Input)
}

// phaseLabel is DESIGN.md section 2's phase label, swarm:phase-<N>.
var phaseLabel = regexp.MustCompile(`^swarm:phase-([0-9]+)$`)

// RepairHint says how to fix a damaged .swarm/ artifact.
const RepairHint = "repair the file (restore it from git history, or let the plugin write it again) and push again"

// ErrNoSwarm is returned when neither the head commit nor the merge base
// has a .swarm/ folder (a pull request that deletes it is checked: it
// fails swarm/plan-freeze).
var ErrNoSwarm = errors.New("no .swarm/ folder")

// Check runs the whole pipeline. An error means the check could not be
// evaluated at all (exit code 2): the message is one line that says what is
// missing and how to fix it. Problems with single artifacts do not return an
// error; they become gate results with outcome "error".
func Check(ctx context.Context, opts Options) (*report.Report, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Base == "" {
		return nil, errors.New("no base ref given: pass --base REF (the branch the pull request targets, e.g. origin/main)")
	}
	headRef := opts.Head
	if headRef == "" {
		headRef = "HEAD"
	}
	var repo *source.Git
	if opts.Repo != nil {
		repo = opts.Repo.Handle() // Check sets the handle's Engine, not the caller's
	} else {
		// Pack files kept open for the whole check, as the App's fetch
		// opens them: the placeholder, generated-file and SAST reads
		// of one file each would otherwise reopen the pack (go-billy
		// lstats every element of its path) for every object.
		var err error
		if repo, err = source.OpenGitWith(opts.RepoDir, source.OpenOptions{KeepFilesOpen: true}); err != nil {
			return nil, err
		}
		if opts.OnInput == nil {
			defer repo.Close()
		} // else the Input's file readers outlive Check; the packs close when the Git is collected
	}
	if opts.DiffEngine != "" {
		repo.Engine = source.DiffEngine(opts.DiffEngine)
	}
	base, err := repo.ResolveCommit(opts.Base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	head, err := repo.ResolveCommit(headRef)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	mb, err := mergeBase(repo, opts.MergeBase, base, head)
	if err != nil {
		return nil, err
	}
	if !onlyOnDemand(opts.Gates) {
		// The on-demand gates judge one commit's state (can the phase
		// close?), so for them base may be head.
		if err := checkRange(opts.Base, headRef, base, head, mb); err != nil {
			return nil, err
		}
	}
	log.Debug("resolved commits", "base", base.String(), "head", head.String(), "merge_base", mb.String())

	headFS, err := repo.Snapshot(head)
	if err != nil {
		return nil, fmt.Errorf("reading head commit %s: %w", head.String()[:12], err)
	}
	baseFS, err := repo.Snapshot(mb)
	if err != nil {
		return nil, fmt.Errorf("reading merge base %s: %w", mb.String()[:12], err)
	}
	// Policy comes from the base side (DESIGN.md section 3.1): the tip of
	// the branch the pull request targets, never the pull request itself.
	baseTipFS, err := repo.Snapshot(base)
	if err != nil {
		return nil, fmt.Errorf("reading base commit %s: %w", base.String()[:12], err)
	}
	cfgPath := policyPath(opts.ConfigPath)
	cfg, err := loadPolicy(ctx, baseTipFS, cfgPath, "base "+base.String()[:12], opts.OrgPolicy)
	if err != nil {
		switch {
		case errors.Is(err, ErrOrgPolicy):
			return nil, fmt.Errorf("reading the policy: %w; fix it in the owner's .github repository, or commit a %s to the base branch", err, cfgPath)
		case errors.Is(err, ErrPolicyMissing):
			return nil, fmt.Errorf("reading the policy from the base branch: %w", err)
		}
		return nil, fmt.Errorf("reading the policy from the base branch: %w; fix the file on the base branch (a pull request cannot change its own policy)", err)
	}
	if headCfg, err := readPolicyFile(headFS, cfgPath); err == nil || errors.Is(err, errPolicyTooLarge) {
		baseCfg, err := readPolicyFile(baseTipFS, cfgPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cfg.Source += "; the pull request adds " + cfgPath + ", which is not used yet (policy comes from the base branch: it applies once merged)"
		case err != nil || headCfg == nil || !bytes.Equal(baseCfg, headCfg):
			cfg.Source += "; the pull request's own " + cfgPath + " differs and is not used (policy comes from the base branch: it applies once merged)"
		}
	}
	// Against the merge base: a policy the base branch changed since the
	// pull request forked is not the pull request's change.
	policyChange := comparePolicy(cfg, baseFS, headFS, cfgPath)
	var orgChange *report.PolicyChange
	if opts.OrgPolicyRepo {
		orgChange = compareOrgPolicy(baseTipFS, baseFS, headFS)
		if orgChange.Invalid() || policyChange == nil {
			policyChange = orgChange
		}
	}
	headArt := swarm.Load(headFS)
	baseArt := swarm.Load(baseFS)
	if !headArt.Present && !baseArt.Present && orgChange != nil {
		// The owner's .github repository is seldom a swarm project: its
		// pull request is checked for the owner's policy alone.
		gs := opts.Gates
		if gs == nil {
			gs = gates.Default()
		}
		results := make([]gates.Result, 0, len(gs))
		for _, g := range gs {
			results = append(results, gates.Result{Name: g.Name(), Outcome: gates.NotApplicable, Findings: []gates.Finding{},
				Title:   "no .swarm/ folder: only the owner's policy (" + OrgPolicyFile + ") is checked",
				Summary: "This is the owner's `.github` repository without a `.swarm/` folder: the pull request changes `" + OrgPolicyFile + "`, the policy of the owner's repositories that have no " + mdtext.Code(config.Path) + " of their own, and that is what is checked."})
		}
		r := report.New(results)
		r.Base, r.Head, r.MergeBase = base.String(), head.String(), mb.String()
		r.Config = cfg.Source
		r.PolicyChange = policyChange
		r.Settle()
		r.Comment = cfg.Comment
		return r, nil
	}
	if !headArt.Present && !baseArt.Present {
		return nil, fmt.Errorf("%w at head commit %s nor at the merge base %s: swarm-gate checks repositories that use opencode-swarm; commit the plugin's .swarm/ folder (plan.json, plan-ledger.jsonl, evidence/) with the pull request", ErrNoSwarm, head.String()[:12], mb.String()[:12])
	}

	// The policy bounds what the diff reads into memory.
	repo.MaxFileBytes = cfg.Limits.MaxFileBytes
	repo.MaxChangedFiles = cfg.Limits.MaxChangedFiles
	if repo.MaxChangedFiles <= 0 {
		repo.MaxChangedFiles = gates.DefaultMaxChangedFiles
	}
	gs := opts.Gates
	if gs == nil {
		gs = gates.Default()
	}
	headFile, baseFile := headFileReader(headFS), headFileReader(baseFS)
	// From the base branch, as the policy: a pull request cannot mark its
	// own code generated to have it skipped.
	if gates.NeedsChanges(gs) {
		// Loading gitleaks' rules takes about 70 ms; every gate that
		// prints paths masks secret-looking ones with them. Loaded while
		// git computes the diff, not after.
		go func() { _, _ = secrets.Default() }()
	}
	linguist := newLinguist(ctx, repo, base, baseTipFS, log)
	// swarm/placeholders scans each file while git writes the next
	// (gates.Prescan); the head and merge-base readers are its alone
	// until FilesDone.
	// What they hold of the diff's added lines at once is bounded
	// (streamBudget).
	hold, readers := newAddedHold(streamBudget), 0
	var prescan *gates.Prescan
	if hasGate(gs, gates.Placeholders{}.Name()) {
		prescan = gates.StartPrescan(ctx, &gates.Input{Config: cfg, Linguist: linguist, HeadFile: headFile, BaseFile: baseFile})
		prescan.Done = hold.done
		readers++
		defer prescan.Wait()
	}
	// swarm/sast's secret scan too reads each file's added lines as git
	// writes the next (secretStream).
	var secretsAhead *secretStream
	if hasGate(gs, gates.SAST{}.Name()) {
		secretsAhead = startSecretStream(ctx, len(opts.SARIF) > 0, hold.done)
		readers++
		defer secretsAhead.wait()
	}
	// Only the gates that read the changed files get a diff: the
	// others judge the .swarm/ artifacts alone.
	changes := &changeset.ChangeSet{Files: []changeset.File{}}
	var changesErr error
	if gates.NeedsChanges(gs) {
		// The streaming readers above are the only gates' work that reads
		// added text (the others count lines at most): the source drops
		// each file's added lines from the change set once they have it,
		// and they drop it once read, so memory holds the files being
		// read, not the pull request (issue 25). The go-git engine does
		// not stream: its change set keeps its lines, which the gates then
		// read from it.
		repo.ReleaseAdded = true
		repo.OnFile = func(f *changeset.File) {
			hold.take(f, readers)
			if prescan != nil {
				prescan.File(f)
			}
			if secretsAhead != nil {
				secretsAhead.File(f)
			}
		}
		filesDone := func() {
			if prescan != nil {
				prescan.Wait()
			}
			secretsAhead.close() // its scans need no repository: they go on
		}
		repo.FilesDone = filesDone
		changes, err = repo.ChangeSet(ctx, mb, head)
		repo.OnFile, repo.FilesDone, repo.ReleaseAdded = nil, nil, false
		filesDone() // the go-git engine does not call FilesDone
		var tooMany *source.TooManyFilesError
		if errors.As(err, &tooMany) {
			// Judged by the gates that read the change set (could not
			// evaluate); the others still run.
			changes, changesErr, err = &changeset.ChangeSet{Files: []changeset.File{}}, tooManyFiles(tooMany, cfgPath), nil
		}
		if err != nil {
			return nil, fmt.Errorf("computing the change set %s..%s: %w", mb.String()[:12], head.String()[:12], err)
		}
	}
	log.Debug("change set", "files", len(changes.Files), "added_lines", changes.AddedLineCount())

	branch := strings.TrimPrefix(opts.HeadBranch, "refs/heads/")
	if branch == "" {
		branch = repo.BranchName(headRef)
	}
	branchRe, err := config.PhaseBranchRegexp(cfg.PhaseBranch)
	if err != nil {
		return nil, fmt.Errorf("reading the policy from the base branch: %w", err)
	}
	phase, src, changed, err := pickPhase(phaseHints{flag: opts.Phase, branch: branch, branchRe: branchRe, labels: opts.Labels}, baseArt, headArt)
	if err != nil {
		return nil, err
	}
	in := &gates.Input{Phase: phase, PhaseSource: src, Phases: changed, Base: baseArt, Head: headArt, Changes: changes, Config: cfg,
		HeadTime: commitTime(repo, head, time.Now(), log), HeadFile: headFile, BaseFile: baseFile, Overrides: opts.Overrides,
		Linguist: linguist, Prescan: prescan, ChangesErr: changesErr}
	for _, g := range gs {
		if g.Name() == (gates.SAST{}).Name() && changesErr == nil {
			reads := startSASTReads(ctx, repo, changes, head, mb, in.Linguist, in.Config.Limits, prefetchAtLeast, log)
			in.SAST = scanSAST(phase, changes, headFS, baseFS, reads, secretsAhead, opts.SARIF, repo.Root(), in.Linguist, in.Config.Limits)
			reads.close()
			log.Debug("sast scan", "scanned", in.SAST.Scanned, "findings", len(in.SAST.Head), "merge_base_findings", len(in.SAST.MergeBase))
		}
	}
	if len(opts.SARIF) > 0 && !hasGate(gs, gates.SAST{}.Name()) {
		return nil, errors.New("--sarif is read by swarm/sast, which is not among the checks to run; add it to --gates (the Action's checks input) or drop --sarif (the Action's sarif input)")
	}
	if opts.OnInput != nil {
		opts.OnInput(in)
	}
	r := report.New(gates.Run(ctx, in, gs))
	r.Base, r.Head, r.MergeBase = base.String(), head.String(), mb.String()
	r.Phase, r.PhaseSource, r.Phases = phase, src, changed
	r.Config = cfg.Source
	r.PolicyChange = policyChange
	r.Settle()
	r.Comment = cfg.Comment
	return r, nil
}

// tooManyFiles is the could-not-evaluate error of the gates that read the
// change set when the pull request changes more than
// limits.max_changed_files paths (source.TooManyFilesError).
func tooManyFiles(e *source.TooManyFilesError, cfgPath string) error {
	return fmt.Errorf("the pull request changes at least %d files (paths: a rename counts two), over the policy's limits.max_changed_files (%d), so its change set was not built and no changed file was checked; split the pull request, or raise limits.max_changed_files in the base branch's policy (%s)", e.Seen, e.Limit, cfgPath)
}

// mergeBase is the given merge base, checked against the repository
// (Options.MergeBase), or, when none is given, the one the repository's
// history gives (source.Git.MergeBase).
func mergeBase(repo *source.Git, given string, base, head plumbing.Hash) (plumbing.Hash, error) {
	if given == "" {
		return repo.MergeBase(base, head)
	}
	what := fmt.Sprintf("the merge base %s given for base %s and head %s", given, base, head)
	if !gitsha.Full(given) {
		return plumbing.ZeroHash, fmt.Errorf("%s: not a full commit SHA (40 lowercase hex digits)", what)
	}
	mb := plumbing.NewHash(given)
	if _, err := repo.CommitTime(mb); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: it is not in the repository: %w", what, err)
	}
	ok, err := repo.IsAncestor(mb, head)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checking %s: %w", what, err)
	}
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("%s: it is not an ancestor of head %s in the repository's history, so the pull request's changes cannot be measured from it; refusing to evaluate", what, head)
	}
	return mb, nil
}

// ErrEmptyRange is returned when the range has nothing to check: base and
// head are one commit, or head is already in base's history (the merge
// base is head), which is what swapped --base and --head look like.
var ErrEmptyRange = errors.New("empty range")

// checkRange refuses a range with no commits of the pull request in it,
// saying which way round the refs go.
func checkRange(baseRef, headRef string, base, head, mb plumbing.Hash) error {
	switch {
	case base == head:
		return fmt.Errorf("%w: base %q and head %q are the same commit %s, so there is no change to check; --base is the branch the pull request targets (e.g. origin/main), --head the pull request's commit", ErrEmptyRange, baseRef, headRef, head.String()[:12])
	case mb == head:
		return fmt.Errorf("%w: head %q (%s) is an ancestor of base %q (%s), so the range base..head holds no commit of the pull request: were --base and --head swapped? --base is the branch the pull request targets (e.g. origin/main), --head the pull request's commit (default HEAD)", ErrEmptyRange, headRef, head.String()[:12], baseRef, base.String()[:12])
	}
	return nil
}

// hasGate reports whether gs has the gate named name.
func hasGate(gs []gates.Gate, name string) bool {
	for _, g := range gs {
		if g.Name() == name {
			return true
		}
	}
	return false
}

// onlyOnDemand reports whether gs is not empty and holds only on-demand
// gates (gates.OnDemandGate), which judge state rather than a change.
func onlyOnDemand(gs []gates.Gate) bool {
	for _, g := range gs {
		if od, ok := g.(gates.OnDemandGate); !ok || !od.OnDemand() {
			return false
		}
	}
	return len(gs) > 0
}

// phaseHints are what can name the pull request's phase, in the order
// DESIGN.md section 2 tries them.
type phaseHints struct {
	flag     int
	branch   string
	branchRe *regexp.Regexp // the policy's phase_branch
	labels   []string
}

// pickPhase applies DESIGN.md section 2: the flag, else a head branch that
// matches the policy's phase_branch, else a swarm:phase-<N> label, else
// gates.InferPhase on the two plans (the phase whose tasks the pull request
// changes the status of, else the first phase not complete, else
// current_phase). Without a head plan (none on either side, or the pull
// request deletes it) the phase is 0 (gates.PhaseFromNoPlan) and the gates
// that need a plan say why. changed lists the phases whose task statuses
// the pull request changes, when the phase was inferred from them.
func pickPhase(h phaseHints, base, head *swarm.Artifacts) (int, gates.PhaseSource, []int, error) {
	if h.flag > 0 {
		return h.flag, gates.PhaseFromFlag, nil, nil
	}
	branchN := h.branchRe.FindStringSubmatch(h.branch)
	labelN, labelName, err := labelPhase(h.labels)
	if err != nil {
		return 0, "", nil, err
	}
	if head.PlanErr != nil && branchN == nil && labelName == "" {
		// Every gate needs the plan; say what is wrong with it rather than
		// that the phase is unknown.
		return 0, "", nil, fmt.Errorf("cannot read the head plan: %v; %s", head.PlanErr, RepairHint)
	}
	if branchN != nil {
		n, err := strconv.Atoi(branchN[1])
		if err != nil || n < 1 || n > 1<<31 {
			return 0, "", nil, fmt.Errorf("the head branch %q names phase %s, which is not a plan phase number; rename the branch or pass --phase N (the Action's phase input)", h.branch, branchN[1])
		}
		return n, gates.PhaseFromBranch, nil, nil
	}
	if labelName != "" {
		return labelN, gates.PhaseFromLabel, nil, nil
	}
	if head.Plan == nil {
		return 0, gates.PhaseFromNoPlan, nil, nil
	}
	n, src, changed := gates.InferPhase(base.Plan, head.Plan)
	if n == 0 {
		return 0, "", nil, fmt.Errorf("cannot tell which plan phase this pull request carries: %s has no phases; pass --phase N (the Action's phase input)", swarm.PlanPath)
	}
	return n, src, changed, nil
}

// labelPhase returns the phase a swarm:phase-<N> label names and the
// label; "" when there is none. Two labels naming different phases are an
// error.
func labelPhase(labels []string) (int, string, error) {
	n, name := 0, ""
	for _, l := range labels {
		m := phaseLabel.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v, err := strconv.Atoi(m[1])
		if err != nil || v < 1 || v > 1<<31 {
			return 0, "", fmt.Errorf("the label %q names phase %s, which is not a plan phase number; fix the label or pass --phase N (the Action's phase input)", l, m[1])
		}
		if name != "" && v != n {
			return 0, "", fmt.Errorf("the labels %q and %q name different phases; remove one or pass --phase N (the Action's phase input)", name, l)
		}
		n, name = v, l
	}
	return n, name, nil
}

// headFileReader is gates.Input.HeadFile over the head snapshot: one file
// at a time, read into a buffer reused by the next call, and nothing over
// gates.MaxPlaceholderScanSize (by the blob's size, before reading it).
// Symlinks, submodules and directories are not read.
func headFileReader(head fs.FS) func(string) ([]byte, bool) {
	var buf []byte
	return func(name string) ([]byte, bool) {
		f, err := head.Open(name)
		if err != nil {
			return nil, false
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil || !info.Mode().IsRegular() || info.Size() > gates.MaxPlaceholderScanSize {
			return nil, false
		}
		n := int(info.Size())
		if cap(buf) < n+1 {
			buf = make([]byte, n+1)
		}
		m, err := io.ReadFull(f, buf[:n+1]) // one byte more: the size must be right
		if m != n || (err != io.ErrUnexpectedEOF && err != io.EOF) {
			return nil, false
		}
		return buf[:n], true
	}
}

// linguistListAfter is how many directories the linguist looks in for a
// .gitattributes before it lists them all with one git ls-tree: a small
// change's few directories cost less than starting git.
const linguistListAfter = 32

// newLinguist reads the base tip's .gitattributes; with the git CLI, once
// more than linguistListAfter directories were looked in, it lists where
// they are (one git ls-tree), so that the directories without one are not
// read.
func newLinguist(ctx context.Context, repo *source.Git, base plumbing.Hash, baseTipFS fs.FS, log *slog.Logger) *gitattr.Linguist {
	if repo.CanPrefetch() {
		return gitattr.NewLazy(baseTipFS, func() ([]string, error) {
			files, err := repo.FilesNamed(ctx, base, ".gitattributes")
			if err != nil {
				log.Debug("looking for .gitattributes with go-git: git ls-tree failed", "error", err.Error())
			}
			return files, err
		}, linguistListAfter)
	}
	return gitattr.New(baseTipFS)
}
