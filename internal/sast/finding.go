// Package sast finds security issues in the files a pull request changes
// and tells new findings from old ones: the plugin's built-in Tier A rules
// (src/sast/rules/*.ts), with their known false alarms refined (Refine),
// findings read from SARIF 2.1.0 files other scanners wrote, and the
// plugin's fingerprints and baseline file (src/tools/sast-baseline.ts, spec
// section 7).
package sast

// Severity is a finding's severity, as the plugin names them.
type Severity string

// Severities, from the least to the most severe.
const (
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

// Rank orders severities: low 1, medium 2, high 3, critical 4; 0 for
// anything else.
func (s Severity) Rank() int {
	switch s {
	case Low:
		return 1
	case Medium:
		return 2
	case High:
		return 3
	case Critical:
		return 4
	}
	return 0
}

// Finding is one SAST finding at one location.
type Finding struct {
	// RuleID is the rule, e.g. "sast/go-shell-injection", or a SARIF
	// result's ruleId (prefixed with nothing: as the tool wrote it).
	RuleID   string
	Severity Severity
	Message  string
	// Remediation is the rule's advice ("" when it has none).
	Remediation string
	// File is repository-relative and '/'-separated; Line and Column are
	// 1-based (Column 0 when unknown). Tier A columns count UTF-16 code
	// units, as the plugin (JavaScript) does, not bytes.
	File         string
	Line, Column int
	// EndLine is the last line of a multi-line SARIF region (0 otherwise).
	EndLine int
	// Excerpt is the flagged line as it is in the file. When Secret is true
	// it must never be shown: show MaskedExcerpt instead.
	Excerpt string
	Secret  bool
	// Engine is "tier_a" for the built-in rules, else the SARIF tool's
	// driver name (e.g. "gosec").
	Engine string
	// Fingerprint is the plugin's fingerprint (spec section 7.3): stable
	// "relFile|rule_id|h16|#k" or unstable "relFile|rule_id|L<line>|UNSTABLE|#k".
	// ReflowKey is "relFile|rule_id|h16(line)" ("" when unstable).
	Fingerprint string
	ReflowKey   string
	// SuppressedInSource is true for a SARIF result with an accepted
	// in-source suppression (e.g. gosec's #nosec comment): kept, because a
	// pull request may have written the suppression itself.
	SuppressedInSource bool
	// Stable is true when Fingerprint is a stable (content-hashed)
	// fingerprint. Fingerprints sets it; a finding never fingerprinted, or
	// whose file was unreadable or outside the workspace, is unstable and
	// always partitions as new.
	Stable bool
	// PartialFingerprint is the SARIF result's partialFingerprints value
	// used for matching when present ("" otherwise), as "key:value".
	PartialFingerprint string
	// Note says why Refine lowered the rule's severity, or why it dismissed
	// the finding ("" when it did neither).
	Note string
}
