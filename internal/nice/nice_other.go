//go:build !linux

package nice

// Target is 0 outside Linux: processes keep the caller's priority.
func Target(inc int) int { return 0 }

// Set does nothing outside Linux.
func Set(pid, nice int) {}

// SetThreads does nothing outside Linux.
func SetThreads(nice int) {}
