package actionrun

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// stepLog is where a run writes what the step's log shows: *actions.Log.
type stepLog interface {
	Annotate(a actions.Annotation) error
	AddMask(secret string) error
	Group(name string) error
	EndGroup() error
	PrintUntrusted(text string) error
}

var _ stepLog = (*actions.Log)(nil)

// console is where a step says things: the workflow commands of its log
// (annotations, collapsed groups) for the reader of the run, and the
// logger for diagnostics, including its own failures to write the log.
type console struct {
	log    stepLog
	logger *slog.Logger
}

// noticef writes a ::notice:: line.
func (c console) noticef(format string, args ...any) {
	c.annotate(actions.Annotation{Level: actions.LevelNotice, Message: strings.TrimSpace(fmt.Sprintf(format, args...))})
}

// warnf writes a ::warning:: line.
func (c console) warnf(format string, args ...any) {
	c.annotate(actions.Annotation{Level: actions.LevelWarning, Message: strings.TrimSpace(fmt.Sprintf(format, args...))})
}

// errorf writes an ::error:: line.
func (c console) errorf(format string, args ...any) {
	c.annotate(actions.Annotation{Level: actions.LevelError, Message: strings.TrimSpace(fmt.Sprintf(format, args...))})
}

// annotate writes an annotation; false when it could not (logged).
func (c console) annotate(a actions.Annotation) bool {
	if err := c.log.Annotate(a); err != nil {
		c.logger.Error("writing to the log", "error", err)
		return false
	}
	return true
}

// group prints text, which may quote the repository, inside a collapsed
// group of the log titled title.
func (c console) group(title, text string) {
	if err := c.log.Group(title); err != nil {
		c.logger.Error("writing to the log", "error", err)
		return
	}
	if err := c.log.PrintUntrusted(text); err != nil {
		c.logger.Error("writing to the log", "error", err)
	}
	if err := c.log.EndGroup(); err != nil {
		c.logger.Error("writing to the log", "error", err)
	}
}
