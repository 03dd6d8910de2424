package gates

import (
	"context"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// Prescan runs the per-file work of swarm/placeholders on changed files as
// the diff produces them, on a goroutine of its own, so the scan of one
// file overlaps git writing the next (issue 25). The pipeline feeds it
// (File), waits for it (Wait) and hands it to the gates as Input.Prescan;
// Evaluate takes a file's result only when the file it finally gets is
// the one scanned (changeset.Key.Same: same status, paths, flags and size,
// and its added lines the ones the source released after the scan; the
// source may complete a file after the diff, as a copy's lines), and
// scans any other file itself. The result is the same either way. A file
// whose lines were released (changeset.File.Released) without a result
// of its own cannot be scanned again: Evaluate fails closed on it.
type Prescan struct {
	// Done, when not nil, is called with each file File passed once the
	// scan is finished with it (its added lines are not read afterwards),
	// from the Prescan's goroutine. Set it before the first File.
	Done func(*changeset.File)

	ctx   context.Context
	in    *Input
	files chan *changeset.File
	done  chan struct{}
	// byPath is the result of each scanned file by its head path; only
	// read after done is closed.
	byPath map[string]*placeholderResult
}

// placeholderResult is what placeholderFile gave for one file, with the
// Key of the file it scanned (not the file: its added lines are released
// once scanned).
type placeholderResult struct {
	key        changeset.Key
	st         placeholderStats
	out        []Finding
	suppressed []Suppression
	// err is placeholderFile's error: the file's lines are released
	// all the same, so Evaluate reports this error rather than rescanning.
	err error
}

// StartPrescan starts scanning the files File will pass. in needs only
// what the per-file scan reads: Config, Linguist, HeadFile and BaseFile
// (Changes is not read). The goroutine is the only user of in.HeadFile and
// in.BaseFile until Wait returns.
func StartPrescan(ctx context.Context, in *Input) *Prescan {
	p := &Prescan{ctx: ctx, in: in, files: make(chan *changeset.File, 64), done: make(chan struct{}), byPath: map[string]*placeholderResult{}}
	go p.run()
	return p
}

func (p *Prescan) run() {
	defer close(p.done)
	cfg := p.in.config().Placeholders
	ps := newPhScan(cfg)
	for f := range p.files {
		p.scan(cfg, ps, f)
		if p.Done != nil {
			p.Done(f)
		}
	}
}

// scan scans one file File passed and keeps its result.
func (p *Prescan) scan(cfg PlaceholdersConfig, ps *phScan, f *changeset.File) {
	if f.NewPath == "" || p.ctx.Err() != nil {
		return // deleted (nothing to scan), or cancelled: Evaluate reports it
	}
	ps.out, ps.suppressed = nil, nil // each file's own
	r := &placeholderResult{key: changeset.KeyOf(f)}
	if r.err = placeholderFile(p.ctx, p.in, cfg, f, ps, &r.st); r.err == nil {
		r.out, r.suppressed = ps.out, ps.suppressed
	}
	if _, dup := p.byPath[f.NewPath]; dup {
		// Two entries with one head path: Evaluate scans both itself.
		p.byPath[f.NewPath] = nil
		return
	}
	p.byPath[f.NewPath] = r
}

// File queues f for the scan; f must not change afterwards. Not after Wait.
func (p *Prescan) File(f *changeset.File) {
	p.files <- f
}

// Wait ends the input and waits until every queued file is scanned. It may
// be called more than once.
func (p *Prescan) Wait() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.files)
	<-p.done
}

// placeholders is the scan of f done ahead, or nil when there is none for
// exactly this file (or no Prescan, or it was not waited for).
func (p *Prescan) placeholders(f *changeset.File) *placeholderResult {
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
	default:
		return nil
	}
	r := p.byPath[f.NewPath]
	if r == nil || !r.key.Same(f) {
		return nil
	}
	return r
}

// add adds the counts and lists of one file's scan to st.
func (st *placeholderStats) add(o *placeholderStats) {
	st.lines += o.lines
	st.files += o.files
	st.plan += o.plan
	st.docs += o.docs
	st.tests += o.tests
	st.binary += o.binary
	st.swarmFiles += o.swarmFiles
	st.data += o.data
	st.runs += o.runs
	st.big = append(st.big, o.big...)
	st.allowed = append(st.allowed, o.allowed...)
	st.tooLarge = append(st.tooLarge, o.tooLarge...)
	st.nul = append(st.nul, o.nul...)
	st.generated = append(st.generated, o.generated...)
	st.uncompared = append(st.uncompared, o.uncompared...)
	st.preExisting += o.preExisting
	st.introduced += o.introduced
	st.warnings += o.warnings
	st.unscanned += o.unscanned
	st.unscannedBig += o.unscannedBig
	st.noBase = st.noBase || o.noBase
	st.notShownErr += o.notShownErr
	st.notShown += o.notShown
	if st.notShownAt == "" {
		st.notShownAt = o.notShownAt
	}
}
