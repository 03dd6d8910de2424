package evalproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/swarm-gate/swarm-gate/internal/nice"
	"github.com/swarm-gate/swarm-gate/webhook"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Config configures an Evaluator. Command is required.
type Config struct {
	// Command makes the command of a new child, which must call
	// ServeChild on its standard input and output (the same binary with a
	// hidden subcommand). Its Stdin, Stdout and Stderr are set by the
	// Evaluator.
	Command func() *exec.Cmd
	// Init is marshalled to JSON and handed to the child's Setup. It may
	// hold secrets: it goes over the pipe, never the command line.
	Init any
	// Nice is added to the parent's nice value for the child, at most 19
	// (Linux; elsewhere ignored; 0: the parent's).
	Nice int
	// Logger receives the Evaluator's own records and the child's
	// standard-error lines that are not JSON (nil: slog.Default()).
	Logger *slog.Logger
	// LogOutput receives the child's standard-error lines that are JSON
	// objects (its log records) as they are, one Write a line (nil: they
	// go to Logger as text).
	LogOutput io.Writer
	// CancelGrace is how long a cancelled job's result may take to come
	// back (the child completes its check runs meanwhile) before Evaluate
	// returns without it (0: 15 s).
	CancelGrace time.Duration
	// MinBackoff and MaxBackoff bound the wait before a dead child is
	// started again, doubling while children die young (0: 100 ms, 10 s).
	MinBackoff, MaxBackoff time.Duration
	// Registerer gets swarm_gate_evaluator_process_exits_total (nil: not
	// registered).
	Registerer prometheus.Registerer
}

// Evaluator is a webhook.Evaluator that runs each job's Evaluate in the
// child process (one child, many jobs in flight), starting a new child
// when one dies. Create it with Start; stop it with Close. Safe for
// concurrent use.
type Evaluator struct {
	cfg    Config
	init   []byte
	log    *slog.Logger
	nextID atomic.Uint64
	exits  prometheus.Counter

	mu     sync.Mutex
	cur    *child        // nil while none is up
	up     chan struct{} // closed when cur is set
	closed bool
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed when the supervisor has returned

	metricsMu sync.Mutex
	metrics   []json.RawMessage // the child's latest snapshot
}

// child is one running child process.
type child struct {
	cmd   *exec.Cmd
	in    *os.File // the child's standard input, our end
	wmu   sync.Mutex
	dead  chan struct{} // closed when its output ended
	err   error         // why it died, set before dead is closed
	start time.Time

	mu      sync.Mutex
	pending map[uint64]chan resultMsg
}

// writeTimeout bounds a write to the child's input: a child that stops
// reading for that long is killed and restarted.
const writeTimeout = 10 * time.Second

// Start starts the first child and returns the Evaluator. It fails when
// Init does not marshal or the command cannot be started.
func Start(cfg Config) (*Evaluator, error) {
	if cfg.Command == nil {
		return nil, errors.New("evalproc: Config.Command is nil")
	}
	init, err := json.Marshal(cfg.Init)
	if err != nil {
		return nil, fmt.Errorf("evalproc: Config.Init: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = 15 * time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(10*time.Second, cfg.MinBackoff)
	}
	e := &Evaluator{cfg: cfg, log: cfg.Logger, up: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		exits: prometheus.NewCounter(prometheus.CounterOpts{Name: "swarm_gate_evaluator_process_exits_total",
			Help: "Exits of the evaluator child process (SWARM_GATE_EVALUATOR=process) other than at shutdown; each is restarted, and its jobs in flight fail."})}
	im := initMsg{Init: init}
	if cfg.Nice > 0 {
		n := nice.Target(cfg.Nice)
		im.Nice = &n
	}
	if e.init, err = json.Marshal(im); err != nil {
		return nil, fmt.Errorf("evalproc: Config.Init: %w", err)
	}
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(e.exits); err != nil {
			return nil, fmt.Errorf("evalproc: registering metrics: %w", err)
		}
	}
	c, err := e.spawn()
	if err != nil {
		return nil, err
	}
	e.setChild(c)
	go e.supervise(c)
	return e, nil
}

// spawn starts a child and sends it the init line.
func (e *Evaluator) spawn() (*child, error) {
	cmd := e.cfg.Command()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("evaluator process: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("evaluator process: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("evaluator process: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("starting the evaluator process %s: %w", cmd.Path, err)
	}
	if e.cfg.Nice > 0 {
		nice.Set(cmd.Process.Pid, nice.Target(e.cfg.Nice))
	}
	c := &child{cmd: cmd, in: inW, dead: make(chan struct{}), start: time.Now(), pending: map[uint64]chan resultMsg{}}
	go e.relayStderr(errR)
	go e.read(c, outR)
	if err := c.write(e.init); err != nil {
		c.kill()
	}
	e.log.Info("evaluator process started", "pid", cmd.Process.Pid)
	return c, nil
}

// supervise waits for each child to die, then starts the next one, until
// Close.
func (e *Evaluator) supervise(c *child) {
	defer close(e.done)
	backoff := e.cfg.MinBackoff
	for {
		<-c.dead
		werr := c.cmd.Wait()
		e.mu.Lock()
		closed := e.closed
		e.mu.Unlock()
		if closed {
			return
		}
		e.exits.Inc()
		lived := time.Since(c.start)
		if lived > e.cfg.MaxBackoff {
			backoff = e.cfg.MinBackoff
		}
		e.log.Error("the evaluator process exited; its jobs in flight failed; starting another", "pid", c.cmd.Process.Pid,
			"exit", exitText(werr), "reason", c.err.Error(), "restart_in", backoff.String())
		for {
			select {
			case <-time.After(backoff):
			case <-e.stop:
				return
			}
			backoff = min(2*backoff, e.cfg.MaxBackoff)
			next, err := e.spawn()
			if err == nil {
				c = next
				e.setChild(c)
				break
			}
			e.log.Error("cannot start the evaluator process", "error", err.Error(), "retry_in", backoff.String())
		}
	}
}

// exitText is how a child ended, for the log.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (e *Evaluator) setChild(c *child) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur = c
	close(e.up)
}

// read reads the child's results until its output ends, then fails the
// jobs still pending.
func (e *Evaluator) read(c *child, out *os.File) {
	defer out.Close()
	r := bufio.NewReaderSize(out, 1<<16)
	var why error
	for {
		line, err := readLine(r)
		if err != nil {
			why = err
			if errors.Is(err, io.EOF) {
				why = errors.New("its output ended (it exited or was killed)")
			}
			break
		}
		var m resultMsg
		if err := json.Unmarshal(line, &m); err != nil {
			why = fmt.Errorf("it wrote a line that is not a result (%v): %.200q", err, line)
			break
		}
		if m.Metrics != nil {
			e.metricsMu.Lock()
			e.metrics = m.Metrics
			e.metricsMu.Unlock()
		}
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m // buffered: one result per job
		}
	}
	c.kill()
	c.mu.Lock()
	c.err = why
	c.pending = nil
	c.mu.Unlock()
	// New jobs wait for the next child rather than fail with this one.
	e.mu.Lock()
	if e.cur == c {
		e.cur, e.up = nil, make(chan struct{})
	}
	e.mu.Unlock()
	close(c.dead)
}

// relayStderr copies the child's log records to LogOutput and logs its
// other lines (a panic's trace, a runtime error).
func (e *Evaluator) relayStderr(r *os.File) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := readLine(br)
		if err != nil {
			return
		}
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			continue
		}
		if e.cfg.LogOutput != nil && line[0] == '{' && json.Valid(line) {
			_, _ = e.cfg.LogOutput.Write(append(line, '\n'))
			continue
		}
		e.log.Warn("evaluator process stderr", "line", string(line))
	}
}

// write sends one line to the child, within writeTimeout.
func (c *child) write(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.in.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := c.in.Write(append(line, '\n'))
	return err
}

func (c *child) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
}

// register adds a pending job; false when the child is dead already.
func (c *child) register(id uint64) (chan resultMsg, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		return nil, false
	}
	ch := make(chan resultMsg, 1)
	c.pending[id] = ch
	return ch, true
}

func (c *child) unregister(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending != nil {
		delete(c.pending, id)
	}
}

// current waits for a live child.
func (e *Evaluator) current(ctx context.Context) (*child, error) {
	for {
		e.mu.Lock()
		c, up, closed := e.cur, e.up, e.closed
		e.mu.Unlock()
		if closed {
			return nil, errors.New("the evaluator process is stopped (the server is shutting down)")
		}
		if c != nil {
			return c, nil
		}
		select {
		case <-up:
		case <-ctx.Done():
			return nil, fmt.Errorf("no evaluator process (restarting after it exited): %w", context.Cause(ctx))
		}
	}
}

// Evaluate implements webhook.Evaluator: it sends job to the child and
// waits for its result. When ctx ends first, it sends the child a cancel
// and waits up to CancelGrace for the result. It returns an error when
// the child's evaluation did, or when the child died or could not be
// reached before the job's result came back.
func (e *Evaluator) Evaluate(ctx context.Context, job webhook.Job) error {
	id := e.nextID.Add(1)
	var c *child
	var ch chan resultMsg
	for ch == nil {
		var err error
		if c, err = e.current(ctx); err != nil {
			return err
		}
		ch, _ = c.register(id) // nil: it died meanwhile; wait for the next
	}
	msg := toChild{ID: id, Job: &job}
	if d, ok := ctx.Deadline(); ok {
		msg.Deadline = d
	}
	line, err := json.Marshal(msg)
	if err != nil {
		c.unregister(id)
		return fmt.Errorf("encoding the job for the evaluator process: %w", err)
	}
	if err := c.write(line); err != nil {
		c.unregister(id)
		c.kill()
		return fmt.Errorf("sending the job to the evaluator process (now restarted): %w", err)
	}
	select {
	case m := <-ch:
		return m.err()
	case <-c.dead:
		return c.resultOrDeath(ch)
	case <-ctx.Done():
	}
	if cl, err := json.Marshal(toChild{ID: id, Cancel: true}); err == nil {
		if err := c.write(cl); err != nil {
			c.kill()
		}
	}
	t := time.NewTimer(e.cfg.CancelGrace)
	defer t.Stop()
	select {
	case m := <-ch:
		return m.err()
	case <-c.dead:
		return c.resultOrDeath(ch)
	case <-t.C:
		c.unregister(id)
		return fmt.Errorf("cancelled (%v), and the evaluator process did not end the job within %s of the cancel: its check runs may be left in progress", context.Cause(ctx), e.cfg.CancelGrace)
	}
}

// resultOrDeath is the job's result if it came before the child died.
func (c *child) resultOrDeath(ch chan resultMsg) error {
	select {
	case m := <-ch:
		return m.err()
	default:
		return c.deathError()
	}
}

func (c *child) deathError() error {
	<-c.dead
	return fmt.Errorf("the evaluator process (pid %d) died before the job's result came back (%v): the job was not finished, and its check runs may be left in progress until the reconciler re-evaluates it",
		c.cmd.Process.Pid, c.err)
}

func (m resultMsg) err() error {
	if m.Error == "" {
		return nil
	}
	return errors.New(m.Error)
}

// Close stops the Evaluator: it closes the child's input, so that the
// child cancels its running jobs, waits for them and exits, and waits for
// that until ctx ends, then kills it. Evaluate fails after Close.
func (e *Evaluator) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		<-e.done
		return nil
	}
	e.closed = true
	c := e.cur
	close(e.stop)
	e.mu.Unlock()
	if c != nil {
		c.wmu.Lock()
		c.in.Close()
		c.wmu.Unlock()
	}
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		if c != nil {
			c.kill()
		}
		<-e.done
		return fmt.Errorf("the evaluator process did not exit in time and was killed: %w", context.Cause(ctx))
	}
}

// Gatherer returns the child's metrics as of its latest result, each
// series with the label process="evaluator". A child that has sent none
// gives none; a snapshot that does not decode is logged and skipped, so
// that /metrics still serves the parent's own.
func (e *Evaluator) Gatherer() prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		e.metricsMu.Lock()
		raw := e.metrics
		e.metricsMu.Unlock()
		out := make([]*dto.MetricFamily, 0, len(raw))
		for _, b := range raw {
			mf := &dto.MetricFamily{}
			if err := protojson.Unmarshal(b, mf); err != nil {
				e.log.Warn("the evaluator process's metrics do not decode; skipped", "error", err.Error())
				return nil, nil
			}
			for _, m := range mf.Metric {
				m.Label = append(m.Label, &dto.LabelPair{Name: proto.String("process"), Value: proto.String("evaluator")})
				sort.Slice(m.Label, func(i, j int) bool { return m.Label[i].GetName() < m.Label[j].GetName() })
			}
			out = append(out, mf)
		}
		return out, nil
	})
}
