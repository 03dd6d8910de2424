package swarm

import "github.com/swarm-gate/swarm-gate/internal/jsjson"

// EventLog is a parsed .swarm/events.jsonl (the plugin's
// src/events/core-events.ts): one JSON object per line, kept as written.
type EventLog struct {
	Path   string
	Events []Event
}

// Event is one line of events.jsonl.
type Event struct {
	Line int
	// Type is the "type" field, or the "event" field that older writers
	// use ("" when neither is a string).
	Type  string
	Value *jsjson.Value
}

// ParseEventLog parses events.jsonl content; the first malformed line gives
// an *ArtifactError and the events before it.
func ParseEventLog(name string, data []byte) (*EventLog, error) {
	log := &EventLog{Path: name}
	err := forEachJSONLine(name, data, func(jl jsonLine) error {
		t, ok := jl.Value.Get("type").AsString()
		if !ok {
			t, _ = jl.Value.Get("event").AsString()
		}
		log.Events = append(log.Events, Event{Line: jl.Line, Type: t, Value: jl.Value})
		return nil
	})
	return log, err
}

// OfType returns the events whose Type is t, in file order.
func (l *EventLog) OfType(t string) []Event {
	if l == nil {
		return nil
	}
	var out []Event
	for _, e := range l.Events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// PhaseCompletion is a phase_complete event the plugin's phase_complete tool
// appends to events.jsonl (src/tools/phase-complete.ts): {event:
// "phase_complete", phase, timestamp, agents_dispatched[], agents_missing[],
// status: success|incomplete|warned|disabled, summary}.
type PhaseCompletion struct {
	Line             int
	Phase            int
	Status           string
	Timestamp        string
	AgentsDispatched []string
	AgentsMissing    []string
}

// PhaseCompletions returns the phase_complete events of the given phase, in
// file order. Events whose phase is not a whole number are skipped.
func (l *EventLog) PhaseCompletions(phase int) []PhaseCompletion {
	var out []PhaseCompletion
	for _, e := range l.OfType("phase_complete") {
		n, ok := e.Value.Get("phase").AsInt()
		if !ok || n != phase {
			continue
		}
		pc := PhaseCompletion{Line: e.Line, Phase: n}
		pc.Status, _ = e.Value.Get("status").AsString()
		pc.Timestamp, _ = e.Value.Get("timestamp").AsString()
		pc.AgentsDispatched = stringList(e.Value.Get("agents_dispatched"))
		pc.AgentsMissing = stringList(e.Value.Get("agents_missing"))
		out = append(out, pc)
	}
	return out
}
