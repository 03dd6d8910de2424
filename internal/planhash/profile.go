package planhash

import "github.com/swarm-gate/swarm-gate/internal/jsjson"

// ExecutionProfileJSON returns a plan's execution_profile exactly as the
// ledger hash serialises it (normalizeExecutionProfileForHash, spec section
// 2.3): the stored members in their own order, with
// commit_after_each_completed_task kept only when it is literally true. Two
// profiles hash alike inside a plan exactly when these bytes are equal, so
// they are what to compare when checking that a locked profile did not
// change.
//
// It returns nil for a nil (absent) profile. A profile that is not an object
// (which the hashes refuse) is returned as stored, JSON.stringify style, so
// that it never compares equal to an object.
func ExecutionProfileJSON(ep *jsjson.Value) []byte {
	if ep == nil {
		return nil
	}
	if ep.Kind != jsjson.Object {
		return jsjson.Stringify(ep)
	}
	w := &writer{}
	w.executionProfile(ep)
	return w.b
}
