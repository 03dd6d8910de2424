package actions

import (
	"fmt"
	"regexp"
)

// SaveState keeps name=value for the action's post step by appending to
// the file named by GITHUB_STATE, in the same heredoc form as SetOutput.
// The runner hands it to the post step (a container action's
// post-entrypoint) as the environment variable STATE_<name>; read it there
// with State. Names are [A-Za-z_][A-Za-z0-9_]*, so that STATE_<name> is an
// ordinary variable name. Saving a name again replaces its value. Without
// GITHUB_STATE this is an error (the ::save-state:: log command is not
// used: anything the step prints could forge it).
func (e Env) SaveState(name, value string) error {
	if !stateNameRE.MatchString(name) {
		return fmt.Errorf("saving state %q: not a valid state name (want [A-Za-z_][A-Za-z0-9_]*)", name)
	}
	return e.appendKeyValue("GITHUB_STATE", "state", name, value)
}

var stateNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// State returns what the main step saved with SaveState, in the post step
// (STATE_<name>); "" when nothing was saved.
func (e Env) State(name string) string { return e.Get("STATE_" + name) }
