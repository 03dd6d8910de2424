//go:build unix

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
