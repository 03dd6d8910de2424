//go:build !linux

package source

// renice does nothing outside Linux: the priority is only a hint.
func renice(pid, inc int) {}
