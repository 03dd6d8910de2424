// Command gen builds a synthetic pull request for benchmarking swarm-gate's
// placeholder gate: a git repository whose branch main carries a
// .swarm/plan.json with one phase and a few thousand files of code, and whose
// branch swarm/phase-1 changes -files files (new ones and modified ones) with
// -lines added lines in total, in a mix of languages, about 0.1% of them
// carrying a placeholder comment (TODO, FIXME, XXX, HACK, TBD) and a few
// decoys (the word in a string, todoList identifiers).
//
// The output is deterministic for a given -seed and set of flags: the same
// commits, byte for byte. The repository is written with `git fast-import`,
// repacked, and the head branch checked out. The counts go to
// .git/swarm-gate-bench.json, and the "path:line" of every placeholder line
// added (sorted, one a line) to .git/swarm-gate-bench-placeholders.txt.
//
//	go run ./bench/gen -out /tmp/swarm-gate-bench/repo
//	go run ./bench/gen -out /tmp/small -files 1000 -lines 100000
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	baseBranch = "main"
	headBranch = "swarm/phase-1"
	// Fixed times keep the commit hashes deterministic.
	baseTime = 1767225600 // 2026-01-01T00:00:00Z
	headTime = baseTime + 86400
)

type options struct {
	out         string
	seed        int64
	files       int
	lines       int
	modified    float64
	unchanged   int
	placeholder float64
	decoy       float64
	repack      bool
	checkout    bool
	force       bool
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "", "directory to create the repository in (must not exist, or be empty; see -force)")
	flag.Int64Var(&o.seed, "seed", 1, "random seed; the same seed and flags give the same repository")
	flag.IntVar(&o.files, "files", 10000, "files the head branch changes")
	flag.IntVar(&o.lines, "lines", 1000000, "lines the head branch adds, in total")
	flag.Float64Var(&o.modified, "modified", 0.4, "fraction of the changed files that exist on main (modified); the rest are new")
	flag.IntVar(&o.unchanged, "unchanged", 2000, "files on main that the head branch does not touch")
	flag.Float64Var(&o.placeholder, "placeholder-rate", 0.001, "fraction of the added lines that carry a placeholder comment")
	flag.Float64Var(&o.decoy, "decoy-rate", 0.0005, "fraction of the added lines that are decoys (marker word in a string, todoList names)")
	flag.BoolVar(&o.repack, "repack", true, "repack the repository after importing (as a clone would be)")
	flag.BoolVar(&o.checkout, "checkout", true, "check out the head branch in the work tree (as CI would)")
	flag.BoolVar(&o.force, "force", false, "remove -out first if it exists")
	flag.Parse()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(o options, stdout io.Writer) error {
	switch {
	case o.out == "":
		return errors.New("-out DIR is required")
	case o.files < 1 || o.lines < o.files:
		return errors.New("-files must be >= 1 and -lines >= -files (every changed file adds a line)")
	case o.modified < 0 || o.modified > 1 || o.placeholder < 0 || o.decoy < 0 || o.placeholder+o.decoy > 0.5:
		return errors.New("-modified must be in [0,1]; -placeholder-rate and -decoy-rate >= 0 and together at most 0.5")
	case o.unchanged < 0:
		return errors.New("-unchanged must be >= 0")
	}
	if err := prepareDir(o.out, o.force); err != nil {
		return err
	}
	start := time.Now()
	p := newPlan(o)

	if err := git(o.out, nil, "init", "-q", "-b", baseBranch); err != nil {
		return err
	}
	pr, pw := io.Pipe()
	imp := exec.Command("git", "fast-import", "--quiet", "--done")
	imp.Dir = o.out
	imp.Stdin = pr
	imp.Stdout = os.Stderr
	imp.Stderr = os.Stderr
	if err := imp.Start(); err != nil {
		return fmt.Errorf("starting git fast-import: %w", err)
	}
	writeErr := p.write(pw)
	pw.CloseWithError(writeErr)
	if err := imp.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	if writeErr != nil {
		return writeErr
	}
	imported := time.Since(start)
	if o.repack {
		if err := git(o.out, nil, "repack", "-a", "-d", "-q"); err != nil {
			return err
		}
		if err := git(o.out, nil, "prune-packed"); err != nil {
			return err
		}
	}
	if o.checkout {
		if err := git(o.out, nil, "checkout", "-q", "-f", headBranch); err != nil {
			return err
		}
	}

	// What git itself says the pull request adds.
	var numstat bytes.Buffer
	if err := git(o.out, &numstat, "diff", "--numstat", baseBranch+"..."+headBranch); err != nil {
		return err
	}
	files, added, removed, err := sumNumstat(numstat.String())
	if err != nil {
		return err
	}
	p.stats.DiffFiles, p.stats.DiffAdded, p.stats.DiffRemoved = files, added, removed
	manifest, err := json.MarshalIndent(p.stats, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, ".git", "swarm-gate-bench.json"), append(manifest, '\n'), 0o644); err != nil {
		return err
	}
	// The placeholder lines, for checking the gate's findings one by one.
	slices.Sort(p.where)
	where := strings.Join(p.where, "\n")
	if where != "" {
		where += "\n"
	}
	if err := os.WriteFile(filepath.Join(o.out, ".git", "swarm-gate-bench-placeholders.txt"), []byte(where), 0o644); err != nil {
		return err
	}
	p.report(stdout, o, imported, time.Since(start))
	if files != o.files {
		return fmt.Errorf("git diff --numstat counts %d changed files, the plan %d", files, o.files)
	}
	if added != o.lines {
		// git's diff is not always minimal: on files with many equal lines
		// (blank lines, braces) xdiff may remove and re-add a line that
		// could have stayed, adding a line or two to the count.
		fmt.Fprintf(os.Stderr, "gen: note: git diff --numstat counts %d added lines, the plan %d (git's diff is not always minimal)\n", added, o.lines)
	}
	if d := added - o.lines; d < 0 || d > o.lines/1000 {
		return fmt.Errorf("git diff --numstat counts %d added lines, too far from the plan's %d", added, o.lines)
	}
	return nil
}

func prepareDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	case len(entries) > 0 && !force:
		return fmt.Errorf("%s exists and is not empty (pass -force to replace it)", dir)
	case len(entries) > 0:
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}

func git(dir string, stdout io.Writer, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// The generated repository must not depend on the user's git config
	// (hooks, templates, default branch, autocrlf).
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.invalid")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func sumNumstat(s string) (files, added, removed int, err error) {
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			return 0, 0, 0, fmt.Errorf("unexpected numstat line %q", line)
		}
		a, err1 := strconv.Atoi(f[0])
		d, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return 0, 0, 0, fmt.Errorf("unexpected numstat line %q (binary?)", line)
		}
		files++
		added += a
		removed += d
	}
	return files, added, removed, nil
}

// fileSpec is one file of the repository.
type fileSpec struct {
	idx      int
	lang     *lang
	path     string
	changed  bool // the head branch changes it
	modified bool // it exists on main (changed && modified: a modified file)
	baseN    int  // lines on main (modified and unchanged files)
	added    int  // lines the head adds
	offset   int  // global index of its first added line
	slots    map[int]byte
}

const (
	slotPlaceholder = 'p'
	slotDecoy       = 'd'
)

// stats are the counts the generator reports (and writes to
// .git/swarm-gate-bench.json for bench/run.sh).
type stats struct {
	Seed             int64          `json:"seed"`
	ChangedFiles     int            `json:"changed_files"`
	NewFiles         int            `json:"new_files"`
	ModifiedFiles    int            `json:"modified_files"`
	UnchangedFiles   int            `json:"unchanged_files"`
	AddedLines       int            `json:"added_lines"`
	RemovedLines     int            `json:"removed_lines"`
	BaseLines        int            `json:"base_lines"`
	PlaceholderLines int            `json:"placeholder_lines"` // added lines with a placeholder comment: what the gate must find
	DecoyLines       int            `json:"decoy_lines"`
	DecoyLinesRg     int            `json:"decoy_lines_rg"` // decoys that the reference rg pattern matches
	BasePlaceholders int            `json:"base_placeholder_lines"`
	BaseDecoysRg     int            `json:"base_decoy_lines_rg"`
	AddedBytes       int64          `json:"added_bytes"`
	FilesByLang      map[string]int `json:"files_by_language"`
	AddedByLang      map[string]int `json:"added_lines_by_language"`
	DiffFiles        int            `json:"diff_files"`   // git diff --numstat
	DiffAdded        int            `json:"diff_added"`   // git diff --numstat
	DiffRemoved      int            `json:"diff_removed"` // git diff --numstat
}

type plan struct {
	o     options
	files []*fileSpec // changed files first, then unchanged ones
	stats stats
	// where is "path:line" (in the head) of every placeholder line added.
	where []string
}

// ticketPrefix starts the ticket of every placeholder line the pull request
// adds (those already on main have "OLD-"); nothing else has it.
const ticketPrefix = "PLAT-"

var rgPattern = regexp.MustCompile(`TODO|FIXME|XXX|HACK|TBD`)

func newPlan(o options) *plan {
	r := rand.New(rand.NewPCG(uint64(o.seed), 0x5eed))
	p := &plan{o: o, stats: stats{Seed: o.seed, FilesByLang: map[string]int{}, AddedByLang: map[string]int{}}}
	total := 0
	for _, l := range langs {
		total += l.weight
	}
	pickLang := func() *lang {
		n := r.IntN(total)
		for _, l := range langs {
			if n < l.weight {
				return l
			}
			n -= l.weight
		}
		panic("unreachable")
	}
	seen := map[string]bool{}
	uniquePath := func(l *lang) string {
		ext := l.exts[0]
		if len(l.exts) > 1 && r.IntN(3) == 0 {
			ext = l.exts[1+r.IntN(len(l.exts)-1)]
		}
		base := l.path(r)
		p := base + ext
		for i := 2; seen[p]; i++ {
			p = base + "_" + strconv.Itoa(i) + ext
		}
		seen[p] = true
		return p
	}
	baseSize := func() int { return max(8, int(math.Exp(4.3+0.8*r.NormFloat64()))) } // median ~74 lines

	nMod := int(math.Round(float64(o.files) * o.modified))
	weights := make([]float64, o.files)
	var wsum float64
	for i := 0; i < o.files; i++ {
		l := pickLang()
		f := &fileSpec{idx: i, lang: l, path: uniquePath(l), changed: true, modified: i < nMod}
		w := math.Exp(0.9 * r.NormFloat64())
		if f.modified {
			f.baseN = baseSize()
			w *= 0.6 // a modification adds fewer lines than a new file has
		}
		weights[i] = w
		wsum += w
		p.files = append(p.files, f)
	}
	// Added lines per file, summing exactly to o.lines, at least 1 each.
	sum := 0
	for i, f := range p.files {
		f.added = max(1, int(weights[i]/wsum*float64(o.lines)))
		sum += f.added
	}
	for sum != o.lines {
		f := p.files[r.IntN(len(p.files))]
		if sum < o.lines {
			f.added++
			sum++
		} else if f.added > 1 {
			f.added--
			sum--
		}
	}
	for i := 0; i < o.unchanged; i++ {
		l := pickLang()
		p.files = append(p.files, &fileSpec{idx: o.files + i, lang: l, path: uniquePath(l), baseN: baseSize()})
	}

	// Placeholder and decoy slots, at random added lines over the whole
	// pull request; JSON files have no comments, so no placeholders.
	changed := p.files[:o.files]
	off := 0
	starts := make([]int, len(changed))
	for i, f := range changed {
		f.offset, starts[i] = off, off
		off += f.added
	}
	fileAt := func(g int) *fileSpec {
		return changed[sort.Search(len(starts), func(i int) bool { return starts[i] > g })-1]
	}
	place := func(n int, kind byte) {
		for placed := 0; placed < n; {
			g := r.IntN(o.lines)
			f := fileAt(g)
			if kind == slotPlaceholder && f.lang.plainNo {
				continue
			}
			if f.slots == nil {
				f.slots = map[int]byte{}
			}
			if _, taken := f.slots[g-f.offset]; taken {
				continue
			}
			f.slots[g-f.offset] = kind
			placed++
		}
	}
	eligible := 0
	for _, f := range changed {
		if !f.lang.plainNo {
			eligible += f.added
		}
	}
	place(min(int(math.Round(float64(o.lines)*o.placeholder)), eligible/2), slotPlaceholder)
	place(int(math.Round(float64(o.lines)*o.decoy)), slotDecoy)
	return p
}

// rngFor gives each file two independent streams: one for its content on
// main, one for what the head adds; regenerating a file gives the same text.
func (p *plan) rngFor(f *fileSpec, head bool) *rand.Rand {
	stream := uint64(f.idx) << 1
	if head {
		stream |= 1
	}
	return rand.New(rand.NewPCG(uint64(p.o.seed), stream))
}

// emitter produces the lines of a file: blocks of statements, nested a
// little, with blank lines between top-level blocks.
type emitter struct {
	r       *rand.Rand
	l       *lang
	stack   []frame
	blank   bool
	indents []string
}

type frame struct {
	left  int
	close string
}

func newEmitter(r *rand.Rand, l *lang) *emitter {
	e := &emitter{r: r, l: l}
	for i := 0; i < 8; i++ {
		e.indents = append(e.indents, l.top+strings.Repeat(l.indent, i))
	}
	return e
}

func (e *emitter) indent() string { return e.indents[len(e.stack)] }

func (e *emitter) next() string {
	for {
		if len(e.stack) == 0 {
			if !e.blank && e.r.IntN(3) > 0 {
				e.blank = true
				return ""
			}
			e.blank = false
			o := pick(e.r, e.l.opens)
			e.stack = append(e.stack, frame{left: 2 + e.r.IntN(14), close: o.close})
			return expand(e.r, e.l, o.open, "")
		}
		top := &e.stack[len(e.stack)-1]
		if top.left == 0 {
			closing := top.close
			e.stack = e.stack[:len(e.stack)-1]
			if closing != "" {
				return e.indent() + closing
			}
			continue
		}
		top.left--
		ind := e.indent()
		if len(e.l.nests) > 0 && len(e.stack) < 4 && e.r.IntN(7) == 0 {
			n := pick(e.r, e.l.nests)
			e.stack = append(e.stack, frame{left: 1 + e.r.IntN(4), close: n.close})
			return ind + expand(e.r, e.l, n.open, "")
		}
		return ind + expand(e.r, e.l, pick(e.r, e.l.body), "")
	}
}

// baseContent is a file's text on main. For a modified file it also
// returns which lines the head removes (each a unique line, so that git's
// diff removes exactly those and adds exactly the planned lines).
func (p *plan) baseContent(f *fileSpec) (lines []string, removed map[int]bool, phs, rgDecoys int) {
	r := p.rngFor(f, false)
	e := newEmitter(r, f.lang)
	for _, t := range f.lang.pre {
		lines = append(lines, expand(r, f.lang, t, ""))
	}
	pre := len(lines)
	for len(lines) < f.baseN {
		switch x := r.Float64(); {
		case x < p.o.placeholder && !f.lang.plainNo:
			// Placeholders already on main: never flagged (not added).
			lines = append(lines, placeholderLine(r, f.lang, e.indent(), fmt.Sprintf("OLD-%d-%d", f.idx, len(lines))))
			phs++
		case x < p.o.placeholder+p.o.decoy:
			d := expand(r, f.lang, pick(r, f.lang.decoys), "")
			if rgPattern.MatchString(d) {
				rgDecoys++
			}
			lines = append(lines, e.indent()+d)
		default:
			lines = append(lines, e.next())
		}
	}
	if !f.changed || !f.modified {
		return lines, nil, phs, rgDecoys
	}
	// About 2% of the lines are removed (replaced by added lines or not).
	removed = map[int]bool{}
	for n := r.IntN(1 + f.baseN/25); n > 0 && pre < len(lines); n-- {
		i := pre + r.IntN(len(lines)-pre)
		if removed[i] {
			continue
		}
		removed[i] = true
		old := lines[i]
		ind := old[:len(old)-len(strings.TrimLeft(old, " \t"))]
		lines[i] = ind + expand(r, f.lang, f.lang.legacy, fmt.Sprintf("F%dR%d", f.idx, i))
	}
	return lines, removed, phs, rgDecoys
}

// addedLine is the k-th line a file adds.
func (p *plan) addedLine(f *fileSpec, r *rand.Rand, e *emitter, k int, fallback func() string) string {
	switch f.slots[k] {
	case slotPlaceholder:
		p.stats.PlaceholderLines++
		return placeholderLine(r, f.lang, e.indent(), fmt.Sprintf("%s%d", ticketPrefix, 100000+f.offset+k))
	case slotDecoy:
		p.stats.DecoyLines++
		d := expand(r, f.lang, pick(r, f.lang.decoys), "")
		if rgPattern.MatchString(d) {
			p.stats.DecoyLinesRg++
		}
		return e.indent() + d
	}
	return fallback()
}

// headContent is a changed file's text on the head branch.
func (p *plan) headContent(f *fileSpec) []string {
	r := p.rngFor(f, true)
	e := newEmitter(r, f.lang)
	if !f.modified {
		out := make([]string, 0, f.added)
		for k := 0; k < f.added; k++ {
			out = append(out, p.addedLine(f, r, e, k, func() string {
				if k < len(f.lang.pre) {
					return expand(r, f.lang, f.lang.pre[k], "")
				}
				return e.next()
			}))
		}
		return out
	}
	base, removed, _, _ := p.baseContent(f)
	// The added lines go in 1 to 6 chunks at random places; some replace
	// a removed line.
	chunks := 1 + r.IntN(min(6, f.added))
	at := make([]int, chunks)
	for i := range at {
		at[i] = len(f.lang.pre) + r.IntN(len(base)-len(f.lang.pre)+1)
	}
	slices.Sort(at)
	sizes := split(r, f.added, chunks)
	out := make([]string, 0, len(base)+f.added)
	k, c := 0, 0
	emit := func(pos int) {
		for ; c < chunks && at[c] == pos; c++ {
			for i := 0; i < sizes[c]; i++ {
				out = append(out, p.addedLine(f, r, e, k, e.next))
				k++
			}
		}
	}
	for i, line := range base {
		emit(i)
		if removed[i] {
			p.stats.RemovedLines++
			continue
		}
		out = append(out, line)
	}
	emit(len(base))
	return out
}

// split divides n into k positive parts.
func split(r *rand.Rand, n, k int) []int {
	cuts := map[int]bool{}
	for len(cuts) < k-1 {
		cuts[1+r.IntN(n-1)] = true
	}
	points := []int{0, n}
	for c := range cuts {
		points = append(points, c)
	}
	slices.Sort(points)
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = points[i+1] - points[i]
	}
	return sizes
}

func (p *plan) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf bytes.Buffer
	blob := func(mode, path string, lines []string) int64 {
		buf.Reset()
		for _, l := range lines {
			buf.WriteString(l)
			buf.WriteByte('\n')
		}
		fmt.Fprintf(bw, "M %s inline %s\ndata %d\n", mode, path, buf.Len())
		bw.Write(buf.Bytes())
		bw.WriteByte('\n')
		return int64(buf.Len())
	}
	commit := func(ref, mark, msg string, when int64, from string) {
		fmt.Fprintf(bw, "commit refs/heads/%s\nmark %s\n", ref, mark)
		fmt.Fprintf(bw, "author bench <bench@example.invalid> %d +0000\n", when)
		fmt.Fprintf(bw, "committer bench <bench@example.invalid> %d +0000\n", when)
		fmt.Fprintf(bw, "data %d\n%s\n", len(msg), msg)
		if from != "" {
			fmt.Fprintf(bw, "from %s\n", from)
		}
	}

	// main: the plan, a README, and every file that exists before the PR.
	commit(baseBranch, ":1", "Synthetic repository for the swarm-gate benchmark", baseTime, "")
	blob("100644", ".swarm/plan.json", strings.Split(strings.TrimSuffix(planJSON, "\n"), "\n"))
	blob("100644", "README.md", []string{"# Synthetic monorepo", "", "Generated by swarm-gate's bench/gen."})
	for _, f := range p.files {
		if f.changed && !f.modified {
			continue
		}
		lines, _, phs, rgd := p.baseContent(f)
		p.stats.BaseLines += len(lines)
		p.stats.BasePlaceholders += phs
		p.stats.BaseDecoysRg += rgd
		blob(f.lang.mode, f.path, lines)
	}
	bw.WriteByte('\n')

	// swarm/phase-1: the pull request.
	commit(headBranch, ":2", "Phase 1: synthetic changes", headTime, ":1")
	for _, f := range p.files {
		if !f.changed {
			p.stats.UnchangedFiles++
			continue
		}
		p.stats.ChangedFiles++
		if f.modified {
			p.stats.ModifiedFiles++
		} else {
			p.stats.NewFiles++
		}
		p.stats.AddedLines += f.added
		p.stats.FilesByLang[f.lang.name]++
		p.stats.AddedByLang[f.lang.name] += f.added
		lines := p.headContent(f)
		for i, l := range lines {
			if strings.Contains(l, ticketPrefix) {
				p.where = append(p.where, f.path+":"+strconv.Itoa(i+1))
			}
		}
		n := blob(f.lang.mode, f.path, lines)
		if !f.modified {
			p.stats.AddedBytes += n
		}
	}
	bw.WriteString("\ndone\n")
	return bw.Flush()
}

func (p *plan) report(w io.Writer, o options, imported, total time.Duration) {
	s := p.stats
	fmt.Fprintf(w, "repository:  %s (branches %s and %s, seed %d)\n", o.out, baseBranch, headBranch, o.seed)
	fmt.Fprintf(w, "main:        %d files, %d lines (%d placeholder lines already there, never flagged)\n",
		2+s.ModifiedFiles+s.UnchangedFiles, s.BaseLines, s.BasePlaceholders)
	fmt.Fprintf(w, "changed:     %d files (%d new, %d modified); git diff --numstat: %d files, +%d -%d\n",
		s.ChangedFiles, s.NewFiles, s.ModifiedFiles, s.DiffFiles, s.DiffAdded, s.DiffRemoved)
	fmt.Fprintf(w, "added lines: %d (%.1f MB in new files alone)\n", s.AddedLines, float64(s.AddedBytes)/1e6)
	fmt.Fprintf(w, "placeholder lines added: %d (%.3f%%): the findings swarm/placeholders must report\n",
		s.PlaceholderLines, 100*float64(s.PlaceholderLines)/float64(max(1, s.AddedLines)))
	fmt.Fprintf(w, "decoy lines added: %d (%d of them match the reference rg pattern; none is a placeholder comment)\n", s.DecoyLines, s.DecoyLinesRg)
	names := make([]string, 0, len(s.FilesByLang))
	for n := range s.FilesByLang {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return s.AddedByLang[names[i]] > s.AddedByLang[names[j]] })
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d/%d", n, s.FilesByLang[n], s.AddedByLang[n]))
	}
	fmt.Fprintf(w, "by language (files/added lines): %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "time:        %.1fs (import %.1fs)\n", total.Seconds(), imported.Seconds())
}

const planJSON = `{
  "schema_version": "1.0.0",
  "title": "Synthetic benchmark monorepo",
  "swarm": "default",
  "current_phase": 1,
  "phases": [
    {
      "id": 1,
      "name": "Bulk changes",
      "status": "in_progress",
      "tasks": [
        {
          "id": "1.1",
          "phase": 1,
          "status": "in_progress",
          "size": "large",
          "description": "Change the backend services, crates, native libraries and migrations.",
          "depends": [],
          "acceptance": "The services build and their checks pass.",
          "files_touched": [
            "services/",
            "py/",
            "crates/",
            "java/",
            "native/",
            "db/"
          ]
        },
        {
          "id": "1.2",
          "phase": 1,
          "status": "pending",
          "size": "large",
          "description": "Change the web front end, scripts, deployment files, docs and configuration.",
          "depends": [
            "1.1"
          ],
          "acceptance": "The web build and the deployment dry run pass.",
          "files_touched": [
            "web/",
            "scripts/",
            "deploy/",
            "docs/",
            "config/"
          ]
        }
      ]
    }
  ],
  "migration_status": "native"
}
`
