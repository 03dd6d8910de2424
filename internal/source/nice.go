package source

import (
	"bytes"
	"os/exec"

	"github.com/swarm-gate/swarm-gate/internal/nice"
)

// startNiced starts cmd and then raises its nice value by inc (see
// OpenOptions.ChildNice). The priority is a scheduling hint: a child that
// exited already, or a platform that cannot, keeps its own.
func startNiced(cmd *exec.Cmd, inc int) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if inc > 0 {
		nice.Set(cmd.Process.Pid, nice.Target(inc))
	}
	return nil
}

// outputNiced is cmd.Output with startNiced. cmd.Stderr must be set.
func outputNiced(cmd *exec.Cmd, inc int) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := startNiced(cmd, inc); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	return out.Bytes(), err
}
