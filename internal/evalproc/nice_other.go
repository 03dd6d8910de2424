//go:build !linux

package evalproc

// Outside Linux the child keeps the server's priority: the nice value is
// only a hint.
func niceTarget(inc int) int { return 0 }
func renice(pid, nice int)   {}
func reniceThreads(nice int) {}
