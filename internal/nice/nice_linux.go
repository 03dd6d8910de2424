//go:build linux

package nice

import (
	"os"
	"strconv"
	"syscall"
)

// Target is the caller's nice value plus inc, at most 19.
func Target(inc int) int {
	// The system call gives 20 - nice (1 to 40), not the nice value.
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return min(20-raw+inc, 19)
}

// Set sets process pid's main thread to nice value nice; errors are
// ignored (the priority is a scheduling hint).
func Set(pid, nice int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice) }

// SetThreads sets every thread of this process to nice value nice (on
// Linux, setpriority changes one thread; threads started later inherit
// the value of the thread that starts them). The list is read again until
// it has no thread not seen, as the runtime may start one meanwhile.
func SetThreads(nice int) {
	done := map[int]bool{}
	for pass := 0; pass < 10; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return
		}
		fresh := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			done[tid] = true
			fresh++
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice)
		}
		if fresh == 0 {
			return
		}
	}
}
