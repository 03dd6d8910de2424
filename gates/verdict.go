package gates

import (
	"strings"
	"time"
)

// verdictKind classifies a verdict word as the evidence gates read it.
type verdictKind int

const (
	verdictOther verdictKind = iota
	verdictApproving
	verdictRejecting
)

// classifyVerdict reads a verdict field, case-insensitively: real files
// carry APPROVED and approved, PASS and pass. Approving: approved, approve,
// pass, passed. Rejecting: rejected, reject, fail, failed, needs_revision
// (the word the critic and write_drift_evidence use for "rejected").
// Anything else (warn, skip, info, concerns, ...) is verdictOther.
func classifyVerdict(v string) verdictKind {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "approved", "approve", "pass", "passed":
		return verdictApproving
	case "rejected", "reject", "fail", "failed", "needs_revision", "needs revision":
		return verdictRejecting
	}
	return verdictOther
}

// parseISOTime reads an RFC 3339 timestamp as the plugin writes them
// (new Date().toISOString()).
func parseISOTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
