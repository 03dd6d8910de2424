package gates

// OnDemandGate is implemented by a gate that runs only when asked for by
// name (`check --gates NAME`, or its own command), not in the default
// check: swarm/phase-wrap, whose question ("can the phase close?") has the
// answer "not yet" in the middle of every phase.
type OnDemandGate interface {
	Gate
	OnDemand() bool
}

// Default is the gates the default check runs: Registry without the
// on-demand gates, in report order.
func Default() []Gate {
	var out []Gate
	for _, g := range Registry() {
		if od, ok := g.(OnDemandGate); ok && od.OnDemand() {
			continue
		}
		out = append(out, g)
	}
	return out
}
