//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe with no writer blocked open(2) forever; it is refused.
func TestConfigValidateRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "policy.yml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"config", "validate", p}, &out, &errb)
	if code != exitError || !strings.Contains(errb.String(), "is not a regular file (a named pipe)") {
		t.Errorf("exit %d, stdout %q stderr %q", code, out.String(), errb.String())
	}
}

// plan hash read /dev/zero without end and blocked on a FIFO.
func TestPlanHashRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plan.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for p, want := range map[string]string{fifo: "is not a regular file (a named pipe)", "/dev/zero": "is not a regular file (a device)"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"plan", "hash", p}, &out, &errb); code != exitError || !strings.Contains(errb.String(), want) {
			t.Errorf("plan hash %s: exit %d, stderr %q, want %q", p, code, errb.String(), want)
		}
	}
}

// ledger verify with a named pipe as the ledger blocked in open(2), past
// SIGTERM; the .swarm reader refuses every non-regular file.
func TestLedgerVerifyRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".swarm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".swarm", "plan-ledger.jsonl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"ledger", "verify", dir}, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		if r.code != exitError || !strings.Contains(r.stderr, ".swarm/plan-ledger.jsonl: is not a regular file (a named pipe)") {
			t.Errorf("exit %d, stdout %q stderr %q", r.code, r.out, r.stderr)
		}
	case <-time.After(30 * time.Second):
		// Unblock the open so the goroutine ends.
		if f, err := os.OpenFile(filepath.Join(dir, ".swarm", "plan-ledger.jsonl"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("ledger verify blocked on a named pipe")
	}
}
