package app

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
)

// runLog is the Runner's step log (workflow commands) turned into log
// records: ::error::, ::warning:: and ::notice:: lines become records at
// the matching level; masks (which name the token), the text report
// between ::stop-commands:: markers (the repository's own text) and every
// other line are dropped. Secrets are redacted from what is kept.
type runLog struct {
	log     *slog.Logger
	secrets []string

	mu        sync.Mutex
	buf       []byte
	stopToken string // inside a ::stop-commands:: block until ::<token>::
	lastError string
}

func (w *runLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.buf[:i]), "\r")
		w.buf = w.buf[i+1:]
		w.line(line)
	}
	return len(p), nil
}

func (w *runLog) line(line string) {
	if w.stopToken != "" {
		if line == "::"+w.stopToken+"::" {
			w.stopToken = ""
		}
		return
	}
	if tok, ok := strings.CutPrefix(line, "::stop-commands::"); ok {
		w.stopToken = tok
		return
	}
	level, msg, ok := command(line)
	if !ok {
		return
	}
	for _, s := range w.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	if level == slog.LevelError {
		w.lastError = msg
	}
	w.log.Log(context.Background(), level, msg, "source", "runner")
}

// command reads an annotation workflow command: ::error file=..::message.
// Property values are dropped; %0A, %0D and %25 are decoded.
func command(line string) (slog.Level, string, bool) {
	for prefix, level := range map[string]slog.Level{"::error": slog.LevelError, "::warning": slog.LevelWarn, "::notice": slog.LevelInfo} {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != ':') {
			continue
		}
		_, msg, ok := strings.Cut(rest, "::")
		if !ok {
			return 0, "", false
		}
		msg = strings.NewReplacer("%0A", "\n", "%0D", "\r", "%25", "%").Replace(msg)
		return level, msg, true
	}
	return 0, "", false
}

// LastError is the message of the last ::error:: line ("" when none).
func (w *runLog) LastError() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastError
}
