//go:build unix

package pipeline

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSARIFRefusesNonRegularFiles: --sarif /dev/zero read without end
// (24 GB before it was killed) and a FIFO blocked open(2) past SIGTERM.
func TestReadSARIFRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "scan.sarif")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for p, want := range map[string]string{fifo: "not a regular file (a named pipe)", "/dev/zero": "not a regular file (a device)"} {
		if _, err := readSARIF(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readSARIF(%s): %v, want %q", p, err, want)
		}
	}
}
