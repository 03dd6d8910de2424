package source

import "syscall"

// renice sets process pid's nice value to the caller's plus inc, at most
// 19. Errors are ignored (see startNiced).
func renice(pid, inc int) {
	// The system call gives 20 - nice (1 to 40), not the nice value.
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, min(20-raw+inc, 19))
}
