package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// Evaluation results, the result label of swarm_gate_evaluations_total and
// swarm_gate_evaluation_duration_seconds.
const (
	resultOK       = "ok"       // Evaluate returned nil
	resultError    = "error"    // Evaluate returned an error (or panicked) with its context still live
	resultTimeout  = "timeout"  // the job's JobTimeout passed
	resultCanceled = "canceled" // Shutdown cancelled the job
)

// work is one worker: it runs jobs until the queue closes and empties.
func (s *Server) work() {
	defer s.workers.Done()
	for {
		j, ok := s.q.next()
		if !ok {
			return
		}
		s.run(j)
		s.q.finish(j.Key)
	}
}

// run evaluates one job under its deadline and records the outcome.
func (s *Server) run(j Job) {
	start := time.Now()
	s.metrics.queueWait.WithLabelValues(eventLabel(j.Event)).Observe(s.cfg.Now().Sub(j.Received).Seconds())
	ctx, cancel := context.WithTimeout(s.base, s.cfg.JobTimeout)
	defer cancel()
	s.log.Debug("evaluation started", jobAttrs(j)...)
	err := s.evaluate(ctx, j)
	elapsed := time.Since(start)

	result := resultOK
	switch {
	case err == nil:
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		result = resultTimeout
	case ctx.Err() != nil:
		result = resultCanceled
	default:
		result = resultError
	}
	ev := eventLabel(j.Event)
	s.metrics.evaluations.WithLabelValues(ev, result).Inc()
	s.metrics.evalDuration.WithLabelValues(ev, result).Observe(elapsed.Seconds())

	attrs := append(jobAttrs(j), "result", result, "duration_ms", elapsed.Milliseconds())
	if err == nil {
		s.log.Info("evaluation finished", attrs...)
		return
	}
	attrs = append(attrs, "err", err.Error())
	level := slog.LevelError
	if result == resultCanceled {
		level = slog.LevelWarn
	}
	s.log.Log(context.Background(), level, "evaluation failed", attrs...)
}

// evaluate calls the Evaluator, turning a panic into an error so that one
// bad job cannot take the server down.
func (s *Server) evaluate(ctx context.Context, j Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluator panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return s.cfg.Evaluator.Evaluate(ctx, j)
}
