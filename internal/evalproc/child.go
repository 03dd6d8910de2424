package evalproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/swarm-gate/swarm-gate/internal/nice"
	"github.com/swarm-gate/swarm-gate/webhook"
	"google.golang.org/protobuf/encoding/protojson"
)

// Setup makes a child's Evaluator from Config.Init, and the Gatherer whose
// metrics go to the parent with each result (nil: none).
type Setup func(init json.RawMessage) (webhook.Evaluator, prometheus.Gatherer, error)

// errInputClosed is the cause of the jobs still running when the parent
// closes the child's input (shutdown, or the parent died).
var errInputClosed = errors.New("the server closed the evaluator process's input (it is stopping)")

// snapshotEvery is how often at most the child's metrics go to the parent.
const snapshotEvery = time.Second

// ServeChild is the child's side: it reads the init line from in, calls
// setup, then runs each job read from in in a goroutine of its own and
// writes one result line per job to out. A cancel line cancels that job's
// context (the Evaluator still completes its check runs). At the end of
// in, the running jobs are cancelled and waited for, and ServeChild
// returns nil; it returns an error for a line it cannot read (naming the
// line) or a failed setup.
func ServeChild(in io.Reader, out io.Writer, setup Setup) error {
	r := bufio.NewReaderSize(in, 1<<16)
	line, err := readLine(r)
	if err != nil {
		return fmt.Errorf("evaluator process: reading the init line: %w", err)
	}
	var im initMsg
	if err := json.Unmarshal(line, &im); err != nil {
		return fmt.Errorf("evaluator process: line 1 (init): %w", err)
	}
	if im.Nice != nil {
		nice.SetThreads(*im.Nice)
	}
	ev, g, err := setup(im.Init)
	if err != nil {
		return fmt.Errorf("evaluator process: setup: %w", err)
	}

	var (
		wmu     sync.Mutex
		enc     = json.NewEncoder(out)
		running sync.WaitGroup
		mu      sync.Mutex
		cancels = map[uint64]context.CancelCauseFunc{}
	)
	send := func(m resultMsg) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = enc.Encode(m) // a dead parent: nothing to tell
	}
	// Metrics go with a result at most every snapshotEvery (a snapshot
	// costs more than a small job's result), and on their own after the
	// last result of a busy second, so that they are never older than that.
	var (
		smu      sync.Mutex
		lastSnap time.Time
		dirty    bool
	)
	withMetrics := func(m *resultMsg, force bool) bool {
		smu.Lock()
		defer smu.Unlock()
		if !force && time.Since(lastSnap) < snapshotEvery {
			dirty = true
			return false
		}
		m.Metrics, lastSnap, dirty = snapshot(g), time.Now(), false
		return m.Metrics != nil
	}
	flush := func() {
		smu.Lock()
		d := dirty
		smu.Unlock()
		if d {
			m := resultMsg{}
			if withMetrics(&m, true) {
				send(m)
			}
		}
	}
	tick := time.NewTicker(snapshotEvery)
	tickDone := make(chan struct{})
	go func() {
		for {
			select {
			case <-tick.C:
				flush()
			case <-tickDone:
				return
			}
		}
	}()
	defer func() {
		tick.Stop()
		close(tickDone)
		flush()
	}()
	base, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	n := 1
	for {
		line, err := readLine(r)
		n++
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			stop(errInputClosed)
			running.Wait()
			return fmt.Errorf("evaluator process: reading line %d: %w", n, err)
		}
		var m toChild
		if err := json.Unmarshal(line, &m); err != nil {
			stop(errInputClosed)
			running.Wait()
			return fmt.Errorf("evaluator process: line %d: %w", n, err)
		}
		if m.Cancel {
			mu.Lock()
			if c := cancels[m.ID]; c != nil {
				c(errors.New("cancelled by the server (its job timeout passed, or it is shutting down)"))
			}
			mu.Unlock()
			continue
		}
		if m.Job == nil {
			continue
		}
		ctx, cancel := context.WithCancelCause(base)
		var dcancel context.CancelFunc = func() {}
		if !m.Deadline.IsZero() {
			ctx, dcancel = context.WithDeadline(ctx, m.Deadline)
		}
		mu.Lock()
		cancels[m.ID] = cancel
		mu.Unlock()
		running.Add(1)
		go func(id uint64, job webhook.Job) {
			defer running.Done()
			err := evaluate(ctx, ev, job)
			dcancel()
			cancel(nil)
			mu.Lock()
			delete(cancels, id)
			mu.Unlock()
			res := resultMsg{ID: id}
			if err != nil {
				res.Error = err.Error()
				if res.Error == "" {
					res.Error = "evaluation failed (an error with no message)"
				}
			}
			withMetrics(&res, false)
			send(res)
		}(m.ID, *m.Job)
	}
	stop(errInputClosed)
	running.Wait()
	return nil
}

// evaluate calls ev, turning a panic into an error (as the server does in
// process), so that one job cannot end the others.
func evaluate(ctx context.Context, ev webhook.Evaluator, job webhook.Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluator panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return ev.Evaluate(ctx, job)
}

// snapshot encodes g's metric families (nil when g is nil or fails).
func snapshot(g prometheus.Gatherer) []json.RawMessage {
	if g == nil {
		return nil
	}
	mfs, err := g.Gather()
	if err != nil {
		return nil
	}
	out := make([]json.RawMessage, 0, len(mfs))
	for _, mf := range mfs {
		b, err := protojson.Marshal(mf)
		if err != nil {
			return nil
		}
		out = append(out, b)
	}
	return out
}

// readLine reads one line without its newline, up to maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}
