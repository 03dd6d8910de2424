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
