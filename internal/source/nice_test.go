package source

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// niceOf reads a process's nice value from /proc/<pid>/stat.
func niceOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name (which may hold spaces): state is 3,
	// nice 19.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.Atoi(f[19-3])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStartNicedLowersTheChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("renice is Linux only")
	}
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	self := 20 - raw
	for _, tc := range []struct{ inc, want int }{{0, self}, {3, min(self+3, 19)}, {40, 19}} {
		// cat waits on its stdin, so it is still there to be looked at.
		cmd := exec.Command("cat")
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := startNiced(cmd, tc.inc); err != nil {
			t.Fatal(err)
		}
		got := niceOf(t, cmd.Process.Pid)
		w.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("inc %d: the child's nice is %d, want %d (ours %d)", tc.inc, got, tc.want, self)
		}
	}
}
