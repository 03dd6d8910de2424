package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// phaseWrapReport is what `phase-wrap --format json` prints (version 1;
// fields may be added, none removed or renamed without a new version).
type phaseWrapReport struct {
	Version     int               `json:"version"`
	Outcome     gates.Outcome     `json:"outcome"` // passed (can close), failed (cannot), error
	CanClose    bool              `json:"can_close"`
	ExitCode    int               `json:"exit_code"`
	Phase       int               `json:"phase"`
	PhaseSource gates.PhaseSource `json:"phase_source,omitempty"`
	LastPhase   int               `json:"last_phase,omitempty"`
	Mode        string            `json:"mode"`          // "dir" or "git"
	Dir         string            `json:"dir,omitempty"` // mode dir
	Base        string            `json:"base,omitempty"`
	Head        string            `json:"head,omitempty"`
	MergeBase   string            `json:"merge_base,omitempty"`
	Now         string            `json:"now,omitempty"` // the time the councils' 24-hour window is measured against
	NowSource   string            `json:"now_source,omitempty"`
	Policy      string            `json:"policy,omitempty"`
	QAProfile   string            `json:"qa_profile,omitempty"`
	Items       []gates.CheckItem `json:"items"`
	Error       string            `json:"error,omitempty"`
}

// checklistGate runs swarm/phase-wrap inside the check pipeline and keeps
// the structured checklist, which the gate's Result only has as Markdown.
type checklistGate struct {
	list *gates.Checklist
	err  error
	now  time.Time
}

func (c *checklistGate) Name() string { return gates.PhaseWrap{}.Name() }

func (c *checklistGate) Evaluate(ctx context.Context, in *gates.Input) gates.Result {
	c.list, c.err = gates.PhaseWrapChecklist(in)
	c.now = in.HeadTime
	return gates.PhaseWrap{}.Evaluate(ctx, in)
}

func runPhaseWrap(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("phase-wrap", args, stdout, stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: swarm-gate phase-wrap [--phase N] [--dir DIR] [--at TIME] [--format text|json]
       swarm-gate phase-wrap --base REF [--head REF] [--repo DIR] [--head-branch NAME] [--phase N] [--format text|json]

Can plan phase N close? Re-checks what the plugin's phase_complete checks, in
its order, and prints a checklist: one line per check, PASS, FAIL, SKIPPED or
ERROR, with the file it read. Exit code 0 the phase can close, 1 it cannot,
2 could not evaluate, 3 usage error.

Without --base it reads a folder as it is on disk (DIR holds .swarm/; the
policy is DIR/.github/swarm-gate.yml; the councils' 24-hour window is
measured against --at, default the current time). With --base it reads git
like check: the head commit's .swarm/, the policy of the base branch, and the
head commit's time.

`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", ".", "folder mode: the folder that holds .swarm/ (or the .swarm folder itself)")
	at := fs.String("at", "", "folder mode: the time to measure council freshness against (RFC 3339; default now)")
	format := fs.String("format", "text", "output format: text or json")
	phaseFlag := fs.String("phase", "", "the plan phase to check; default the head plan's current_phase (git mode: or a swarm/phase-<N> head branch)")
	opts := pipeline.Options{}
	fs.StringVar(&opts.Base, "base", "", "git mode: the base ref (policy comes from it)")
	fs.StringVar(&opts.Head, "head", "HEAD", "git mode: the head ref")
	fs.StringVar(&opts.RepoDir, "repo", ".", "git mode: the repository")
	fs.StringVar(&opts.HeadBranch, "head-branch", "", "git mode: the head branch name, for the swarm/phase-<N> rule when --head is a SHA")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	usageErr := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "swarm-gate phase-wrap: "+format+"\n", args...)
		return exitUsage
	}
	if len(pos) > 0 {
		return usageErr("unexpected argument %q", pos[0])
	}
	if *format != "text" && *format != "json" {
		return usageErr("--format must be text or json, not %q", *format)
	}
	phase := 0
	if *phaseFlag != "" && *phaseFlag != "auto" {
		n, err := strconv.Atoi(*phaseFlag)
		if err != nil || n < 1 {
			return usageErr("--phase must be a phase number >= 1, not %q", *phaseFlag)
		}
		phase = n
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var rep *phaseWrapReport
	if opts.Base != "" {
		if set["dir"] || set["at"] {
			return usageErr("--dir and --at are for folder mode; with --base the head commit is read from git")
		}
		if strings.TrimSpace(opts.Head) == "" {
			return usageErr("--head is empty: give the head ref or SHA, or leave the flag out for HEAD")
		}
		opts.Phase = phase
		rep = phaseWrapGit(ctx, opts)
	} else {
		if set["head"] || set["repo"] || set["head-branch"] {
			return usageErr("--head, --repo and --head-branch need --base (git mode)")
		}
		now := time.Now()
		nowSource := "the current time"
		if *at != "" {
			t, err := time.Parse(time.RFC3339, *at)
			if err != nil {
				return usageErr("--at must be an RFC 3339 time such as 2026-05-05T12:00:00Z, not %q", *at)
			}
			now, nowSource = t, "--at"
		}
		rep = phaseWrapDir(*dir, phase, now, nowSource)
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "swarm-gate phase-wrap: could not evaluate: %s\n", mdtext.Printable(rep.Error))
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else if rep.Error == "" || len(rep.Items) > 0 {
		err = writePhaseWrapText(stdout, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate phase-wrap: writing the report: %v\n", err)
		return exitError
	}
	return rep.ExitCode
}

// emptyFS is a tree with no files: the merge-base side in folder mode,
// where there is no pull request.
type emptyFS struct{}

func (emptyFS) Open(name string) (iofs.File, error) {
	return nil, &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrNotExist}
}

// phaseWrapDir checks a folder on disk.
func phaseWrapDir(dir string, phase int, now time.Time, nowSource string) *phaseWrapReport {
	if filepath.Base(filepath.Clean(dir)) == swarm.Dir {
		dir = filepath.Dir(filepath.Clean(dir))
	}
	rep := &phaseWrapReport{Version: 1, Mode: "dir", Dir: dir, Phase: phase, Items: []gates.CheckItem{},
		Now: now.UTC().Format(time.RFC3339), NowSource: nowSource}
	if phase > 0 {
		// Without --phase the source is known only once the plan is read;
		// a report that fails before that has none.
		rep.PhaseSource = gates.PhaseFromFlag
	}
	if _, err := os.Stat(dir); errors.Is(err, iofs.ErrNotExist) {
		return rep.fail(fmt.Errorf("%s does not exist; pass --dir DIR, the folder that holds .swarm/", dir))
	}
	fsys := os.DirFS(dir)
	head := swarm.Load(fsys)
	if !head.Present {
		return rep.fail(fmt.Errorf("%s has no .swarm/ folder; pass --dir DIR, the folder that holds it", dir))
	}
	cfg, err := config.Load(fsys, "the working tree of "+dir)
	if err != nil {
		return rep.fail(fmt.Errorf("reading the policy: %w", err))
	}
	if cfg.Source == gates.DefaultConfig().Source {
		cfg.Source = "built-in defaults (no " + config.Path + " in " + dir + ")"
	} else {
		cfg.Source += " (folder mode: the folder's own policy; in CI the base branch's applies)"
	}
	rep.Policy = cfg.Source
	if phase == 0 {
		switch {
		case head.PlanErr != nil:
			return rep.fail(fmt.Errorf("cannot read the plan: %w", head.PlanErr))
		case head.Plan == nil:
			return rep.fail(fmt.Errorf("%s is missing in %s", swarm.PlanPath, dir))
		}
		// The plan against itself: no status changes, so the active phase
		// (the first not complete), else current_phase.
		rep.Phase, rep.PhaseSource, _ = gates.InferPhase(head.Plan, head.Plan)
		if rep.Phase < 1 {
			return rep.fail(errors.New("the plan has no phases; pass --phase N"))
		}
	}
	in := &gates.Input{Phase: rep.Phase, PhaseSource: rep.PhaseSource, Base: swarm.Load(emptyFS{}), Head: head, Config: cfg, HeadTime: now}
	cl, err := gates.PhaseWrapChecklist(in)
	if err != nil {
		return rep.fail(err)
	}
	rep.fill(cl)
	return rep
}

// phaseWrapGit checks a head commit as `check` does.
func phaseWrapGit(ctx context.Context, opts pipeline.Options) *phaseWrapReport {
	rep := &phaseWrapReport{Version: 1, Mode: "git", Items: []gates.CheckItem{}}
	cg := &checklistGate{}
	opts.Gates = []gates.Gate{cg}
	r, err := pipeline.Check(ctx, opts)
	if err != nil {
		return rep.fail(err)
	}
	rep.Base, rep.Head, rep.MergeBase = r.Base, r.Head, r.MergeBase
	rep.Phase, rep.PhaseSource, rep.Policy = r.Phase, r.PhaseSource, r.Config
	if !cg.now.IsZero() {
		rep.Now, rep.NowSource = cg.now.UTC().Format(time.RFC3339), "the head commit's committer time"
	}
	if cg.err != nil {
		return rep.fail(cg.err)
	}
	if cg.list == nil {
		return rep.fail(errors.New("the phase-wrap check did not run"))
	}
	rep.fill(cg.list)
	return rep
}

func (rep *phaseWrapReport) fail(err error) *phaseWrapReport {
	rep.Outcome, rep.ExitCode, rep.Error = gates.Error, exitError, err.Error()
	return rep
}

func (rep *phaseWrapReport) fill(cl *gates.Checklist) {
	rep.Items, rep.LastPhase, rep.QAProfile = cl.Items, cl.LastPhase, cl.Profile
	switch cl.Status() {
	case gates.CheckPass:
		rep.Outcome, rep.CanClose, rep.ExitCode = gates.Passed, true, report.ExitPassed
	case gates.CheckFail:
		rep.Outcome, rep.ExitCode = gates.Failed, report.ExitFailed
	default:
		rep.Outcome, rep.ExitCode = gates.Error, exitError
		for _, it := range cl.Items {
			if it.Status == gates.CheckError {
				rep.Error = it.Err.Error()
				break
			}
		}
	}
}

// writePhaseWrapText prints the checklist for a maintainer.
func writePhaseWrapText(w io.Writer, rep *phaseWrapReport) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "swarm-gate phase-wrap: can phase %d close? (phase from %s", rep.Phase, rep.PhaseSource)
	if rep.LastPhase > 0 {
		fmt.Fprintf(bw, "; the plan's last phase is %d", rep.LastPhase)
	}
	fmt.Fprintln(bw, ")")
	if rep.Mode == "dir" {
		fmt.Fprintf(bw, "read: the folder %s as it is on disk\n", mdtext.Printable(rep.Dir))
	} else {
		fmt.Fprintf(bw, "read: head %s, base %s, merge base %s (git)\n", shortSHA(rep.Head), shortSHA(rep.Base), shortSHA(rep.MergeBase))
	}
	if rep.Now != "" {
		fmt.Fprintf(bw, "now: %s (%s)\n", rep.Now, rep.NowSource)
	}
	if rep.Policy != "" {
		fmt.Fprintf(bw, "policy: %s\n", mdtext.Printable(rep.Policy))
	}
	if rep.QAProfile != "" {
		fmt.Fprintf(bw, "%s\n", mdtext.Printable(rep.QAProfile))
	}
	fmt.Fprintln(bw)
	for i, it := range rep.Items {
		place := it.File
		if place != "" && it.Line > 0 {
			place += ":" + strconv.Itoa(it.Line)
		}
		if place != "" {
			place += ": "
		}
		code := ""
		if it.Code != "" {
			code = it.Code + ": "
		}
		fmt.Fprintf(bw, "%2d. %-8s %-20s %s%s%s\n", i+1, it.Status, it.Step, mdtext.Printable(place), code, mdtext.Printable(it.Detail))
		for _, wn := range it.Warnings {
			fmt.Fprintf(bw, "    %-8s %-20s warning: %s\n", "", "", mdtext.Printable(wn))
		}
	}
	fmt.Fprintln(bw)
	switch rep.Outcome {
	case gates.Passed:
		fmt.Fprintf(bw, "result: phase %d can close", rep.Phase)
	case gates.Failed:
		fmt.Fprintf(bw, "result: phase %d cannot close", rep.Phase)
	default:
		fmt.Fprintf(bw, "result: could not evaluate whether phase %d can close", rep.Phase)
	}
	cl := gates.Checklist{Items: rep.Items}
	var why []string
	for _, c := range cl.Causes() {
		why = append(why, mdtext.Printable(c))
	}
	if codes := cl.Codes(); len(codes) > 0 {
		if len(why) > 0 {
			why = append(why, "and failing: "+strings.Join(codes, ", "))
		} else {
			why = codes
		}
	}
	if len(why) > 0 {
		fmt.Fprintf(bw, ": %s", strings.Join(why, "; "))
	}
	fmt.Fprintf(bw, " (%s; exit code %d)\n", cl.Tally(), rep.ExitCode)
	return bw.Flush()
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
