package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// runLedgerVerify re-hashes the ledger of a .swarm folder on disk and checks
// plan.json against it, reporting every mismatch with its seq, then says
// where the plan stands against its newest plan-critic approval.
func runLedgerVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("ledger verify", args, stdout, stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: swarm-gate ledger verify [DIR]")
		fmt.Fprintln(fs.Output(), "Re-hashes every plan embedded in .swarm/plan-ledger.jsonl, replays the ledger (spec section 3.7),")
		fmt.Fprintln(fs.Output(), "checks .swarm/plan.json against the last plan_hash_after, and says where plan.json stands against")
		fmt.Fprintln(fs.Output(), "its newest plan-critic approval. DIR holds .swarm/, or is the .swarm folder (default .).")
		fmt.Fprintln(fs.Output(), "Exit code: 0 verified, 1 mismatch, unexplained event, repeated key or empty ledger, 2 a file cannot be read, 3 usage error.")
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 1 {
		fmt.Fprintln(stderr, "usage: swarm-gate ledger verify [DIR]   (DIR holds .swarm/, or is the .swarm folder; default .)")
		return exitUsage
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	if filepath.Base(filepath.Clean(dir)) == swarm.Dir {
		dir = filepath.Dir(filepath.Clean(dir))
	}
	// Paths in messages are the ones given (errors name .swarm/... relative
	// to dir, so dir goes in front of the path).
	under := func(err error) error {
		var ae *swarm.ArtifactError
		if dir == "." || !errors.As(err, &ae) {
			return err
		}
		c := *ae
		c.Path = filepath.Join(dir, filepath.FromSlash(ae.Path))
		return &c
	}
	ledgerPath := filepath.Join(dir, swarm.LedgerPath)
	switch info, err := os.Stat(dir); {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(stderr, "swarm-gate: %s does not exist; give the folder that holds .swarm/, or the .swarm folder\n", dir)
		return exitError
	case err == nil && !info.IsDir():
		fmt.Fprintf(stderr, "swarm-gate: %s is a file; give the folder that holds .swarm/, or the .swarm folder\n", dir)
		return exitError
	}
	a := swarm.Load(os.DirFS(dir))
	switch {
	case !a.Present:
		fmt.Fprintf(stderr, "swarm-gate: %s has no .swarm/ folder\n", dir)
		return exitError
	case a.LedgerErr != nil:
		fmt.Fprintf(stderr, "swarm-gate: %v\n", under(a.LedgerErr))
		return exitError
	case a.Ledger == nil:
		fmt.Fprintf(stderr, "swarm-gate: %s is missing\n", ledgerPath)
		return exitError
	case a.PlanErr != nil:
		fmt.Fprintf(stderr, "swarm-gate: %v\n", under(a.PlanErr))
		return exitError
	case len(a.Ledger.Events) == 0:
		fmt.Fprintf(stdout, "%s is empty: no events, so nothing is verified (the plugin writes the first event when it saves the plan)\n", ledgerPath)
		return 1
	}
	l := a.Ledger
	embedded := 0
	for _, ev := range l.Events {
		if ev.Plan != nil || ev.PlanErr != nil {
			embedded++
		}
	}
	first, last := 0, 0
	if len(l.Events) > 0 {
		first, last = l.Events[0].Seq, l.Last().Seq
	}
	fmt.Fprintf(stdout, "%s: %d events (seq %d..%d), %d embedded plans re-hashed\n", ledgerPath, len(l.Events), first, last, embedded)
	problems := swarm.VerifyLedger(l, a.Plan)
	for _, p := range problems {
		fmt.Fprintf(stdout, "MISMATCH %s\n", p)
	}
	dups := printDuplicateKeys(stdout, ledgerPath, l, a.Plan)
	var final *jsjson.Value
	if a.Plan != nil {
		final = a.Plan.Value
	}
	rep := swarm.ReplayLedgerWithPlan(l, final)
	fmt.Fprintf(stdout, "replay (spec section 3.7): %d events, %d unexplained\n", len(rep.Steps), len(rep.Unexplained))
	for _, st := range rep.Unexplained {
		fmt.Fprintf(stdout, "UNEXPLAINED seq %d (line %d, %s): %s\n", st.Seq, st.Line, st.EventType, mdtext.Printable(st.Problem))
	}
	if rep.LockedSeq > 0 {
		fmt.Fprintf(stdout, "execution_profile locked at seq %d; %d later changes of it\n", rep.LockedSeq, len(rep.ProfileViolations))
	}
	if a.Plan == nil {
		fmt.Fprintf(stdout, "%s is missing: only the ledger itself was checked\n", swarm.PlanPath)
	} else if len(problems) == 0 && dups == 0 {
		fmt.Fprintf(stdout, "OK: every embedded plan re-hashes to its plan_hash_after, and %s matches the last one (seq %d)\n", swarm.PlanPath, last)
	}
	if a.Plan != nil {
		printApproval(stdout, l, a.Plan)
		printPlanMarkdown(stdout, dir, a.Plan)
	}
	if dups > 0 && len(problems) == 0 {
		fmt.Fprintf(stdout, "%s: the plugin never writes a key twice, so the files were edited by hand\n", mdtext.Count(dups, "repeated key"))
		return 1
	}
	if n := len(rep.Unexplained) + len(rep.ProfileViolations); n > 0 && len(problems) == 0 {
		fmt.Fprintf(stdout, "%d unexplained or forbidden events\n", n)
		return 1
	}
	if len(problems) > 0 {
		if len(problems) == 1 {
			fmt.Fprintln(stdout, "1 mismatch")
		} else {
			fmt.Fprintf(stdout, "%d mismatches\n", len(problems))
		}
		return 1
	}
	return 0
}

// printDuplicateKeys lists the keys repeated in one object of a ledger line
// or of plan.json (the plugin's JSON.parse keeps the last, a reader may take
// the first; check fails them as plan-freeze/duplicate-key) and returns how
// many there are.
func printDuplicateKeys(w io.Writer, ledgerPath string, l *swarm.Ledger, plan *swarm.Plan) int {
	n := 0
	for _, ev := range l.Events {
		for _, d := range ev.DuplicateKeys {
			fmt.Fprintf(w, "DUPLICATE KEY %s:%d: seq %d (%s): %s appears twice in the event's line; the plugin reads the last value\n",
				ledgerPath, d.Line, ev.Seq, mdtext.Printable(ev.EventType), mdtext.Printable(d.Where()))
			n++
		}
	}
	if plan != nil {
		for _, d := range plan.DuplicateKeys {
			fmt.Fprintf(w, "DUPLICATE KEY %s: %s appears twice (%s); the plugin reads the last value\n",
				swarm.PlanPath, mdtext.Printable(d.Where()), duplicateLines(d))
			n++
		}
	}
	return n
}

// duplicateLines says where a repeated key is: "line 5" or "lines 3 and 9".
func duplicateLines(d swarm.DuplicateKey) string {
	if d.FirstLine == d.Line {
		return fmt.Sprintf("line %d", d.Line)
	}
	return fmt.Sprintf("lines %d and %d", d.FirstLine, d.Line)
}

// printApproval says whether plan.json still matches its newest plan-critic
// approval, and if not, what changed.
func printApproval(w io.Writer, l *swarm.Ledger, plan *swarm.Plan) {
	approval, drift := l.LastPlanCriticApproval(plan.ID())
	switch {
	case approval == nil:
		fmt.Fprintf(w, "no plan-critic approval for plan %s", plan.ID())
		if drift > 0 {
			fmt.Fprintf(w, " (drift-verifier approvals found: %d; they approve a phase's drift check, not the plan)", drift)
		}
		fmt.Fprintln(w)
	case approval.Plan.Digests.Structure == plan.Digests.Structure:
		fmt.Fprintf(w, "plan-critic approval seq %d: plan.json has the approved structure hash %s\n", approval.Seq, planhash.Short(plan.Digests.Structure))
	default:
		fmt.Fprintf(w, "plan-critic approval seq %d: plan.json differs from the approved plan (structure hash %s, approved %s):\n", approval.Seq,
			planhash.Short(plan.Digests.Structure), planhash.Short(approval.Plan.Digests.Structure))
		for _, c := range swarm.ComparePlans(approval.Plan, plan) {
			if c.Class != swarm.ChangeStatus {
				fmt.Fprintf(w, "  plan.json:%d: %s [%s]\n", c.Line, mdtext.Printable(c.Text()), c.Class)
			}
		}
	}
}

// printPlanMarkdown says, as information, whether plan.md's PLAN_HASH header
// matches plan.json (the plugin regenerates plan.md from plan.json; a stale
// header means plan.md no longer shows the plan).
func printPlanMarkdown(w io.Writer, dir string, plan *swarm.Plan) {
	md, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(swarm.PlanMarkdown)))
	if err != nil {
		return
	}
	got, ok := planhash.ParsePlanMarkdownHash(md)
	if !ok {
		fmt.Fprintf(w, "%s has no PLAN_HASH header\n", swarm.PlanMarkdown)
		return
	}
	hashes, err := planhash.ComputeContentHashes(plan.Value)
	if err != nil {
		return
	}
	if variant, ok := hashes.Match(got); ok {
		fmt.Fprintf(w, "%s PLAN_HASH %s matches plan.json (%s)\n", swarm.PlanMarkdown, got, variant)
	} else {
		fmt.Fprintf(w, "%s PLAN_HASH %s is stale: plan.json hashes to %s (wyhash) or %s (djb2)\n", swarm.PlanMarkdown, got, hashes.Wyhash, hashes.Djb2)
	}
}
