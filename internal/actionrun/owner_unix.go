//go:build unix

package actionrun

import (
	"os"
	"syscall"
)

// fileOwner is the uid and gid that own a file (the workspace), for chown.
func fileOwner(info os.FileInfo) (uid, gid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
