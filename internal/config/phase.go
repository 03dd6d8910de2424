package config

import (
	"fmt"
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/gates"
)

// qaGates reads the qa_gates section: the plugin's QA gate profile, one
// boolean per gate (gates.QAGateNames); keys left out keep the plugin's
// defaults. As the plugin does, council_mode: true without phase_council
// reads as phase_council: true, council_mode: false.
func (p *parser) qaGates(n *yaml.Node, q *gates.QAGates) {
	fields := map[string]func(*yaml.Node){}
	set := map[string]bool{}
	for _, name := range gates.QAGateNames {
		fields[name] = func(n *yaml.Node) {
			if v, ok := p.scalar(n, "qa_gates."+name, "!!bool"); ok {
				*q.Field(name) = v == "true"
				set[name] = true
			}
		}
	}
	mark := len(p.errs)
	p.mapping(n, "qa_gates", fields)
	if p.failed(mark) {
		return
	}
	q.FromFile = true
	if q.CouncilMode && !set["phase_council"] {
		q.CouncilMode, q.PhaseCouncil, q.LegacyCouncilMode = false, true, true
	}
}

// drift reads the drift section.
func (p *parser) drift(n *yaml.Node, d *gates.DriftConfig) {
	p.mapping(n, "drift", map[string]func(*yaml.Node){
		"minor_drift": func(n *yaml.Node) {
			if v, ok := p.enum(n, "drift.minor_drift", "warn", "fail"); ok {
				d.FailMinorDrift = v == "fail"
			}
		},
		"traceability": func(n *yaml.Node) {
			if v, ok := p.enum(n, "drift.traceability", "fail", "warn"); ok {
				d.WarnTraceability = v == "warn"
			}
		},
	})
}

// planLint reads the plan_lint key: advisory (default) or fail.
func (p *parser) planLint(n *yaml.Node, l *gates.PlanLintConfig) {
	if v, ok := p.enum(n, "plan_lint", "advisory", "fail"); ok {
		l.Enforce = v == "fail"
	}
}

// agentName is an agent name as the plugin writes them (coder,
// test_engineer, critic_drift_verifier).
var agentName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// phaseWrap reads the phase_wrap section.
func (p *parser) phaseWrap(n *yaml.Node, w *gates.PhaseWrapConfig) {
	p.mapping(n, "phase_wrap", map[string]func(*yaml.Node){
		"final_council_concerns": func(n *yaml.Node) {
			if v, ok := p.enum(n, "phase_wrap.final_council_concerns", "block", "allow"); ok {
				w.AllowFinalCouncilConcerns = v == "allow"
			}
		},
		"phase_council_concerns": func(n *yaml.Node) {
			if v, ok := p.enum(n, "phase_wrap.phase_council_concerns", "allow", "block"); ok {
				w.BlockPhaseCouncilConcerns = v == "block"
			}
		},
		"require_docs": func(n *yaml.Node) {
			if v, ok := p.scalar(n, "phase_wrap.require_docs", "!!bool"); ok {
				w.RequireDocs = v == "true"
			}
		},
		"required_agents": func(n *yaml.Node) {
			n = resolve(n)
			if n.Kind != yaml.SequenceNode {
				p.fail(n, "phase_wrap.required_agents must be a list of agent names, found %s", describe(n))
				return
			}
			agents := make([]string, 0, len(n.Content))
			for i, item := range n.Content {
				path := fmt.Sprintf("phase_wrap.required_agents[%d]", i)
				v, ok := p.scalar(item, path, "!!str")
				if !ok {
					return
				}
				if !agentName.MatchString(v) {
					p.fail(item, "%s: %q is not an agent name (lower case, e.g. coder, reviewer, test_engineer)", path, v)
					return
				}
				agents = append(agents, v)
			}
			w.RequiredAgents = agents
		},
	})
}
