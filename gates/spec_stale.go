package gates

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// SpecDrift is whether the head plan was saved against the head's
// .swarm/spec.md, recomputed as the plugin's isSpecStale does
// (src/utils/spec-hash.ts): the plan's specHash against SpecHash of
// spec.md. It does not depend on .swarm/spec-staleness.json, so deleting
// the marker does not make drift go away.
type SpecDrift struct {
	// Checked is false when the plan records no specHash (a plan from
	// before the plugin hashed specs, which it exempts); the marker is then
	// all there is to go by.
	Checked bool
	Stale   bool
	// PlanHash is the specHash compared: the head plan's, or the base
	// plan's when the head plan dropped it (Inherited), since dropping the
	// field must not exempt a plan. For a specHash that is not a string it
	// is "(<JSON type>)".
	PlanHash  string
	Inherited bool
	// Current is SpecHash of the head spec.md; "" when spec.md is absent
	// (the plugin: "spec.md has been deleted").
	Current string
	// Err says why spec.md could not be read: staleness is then unknown.
	Err error
	// Uncommitted: the plan records a specHash but neither the head nor
	// the merge base has spec.md (the spec is kept out of the repository),
	// so there is nothing to compare; Checked is false.
	Uncommitted bool
}

// SpecDriftOf recomputes the spec drift of the head artifacts against
// the merge base's (base nil when there is none).
func SpecDriftOf(head, base *swarm.Artifacts) SpecDrift {
	var d SpecDrift
	plan := head.Plan
	if plan == nil {
		return d
	}
	var basePlan *swarm.Plan
	if base != nil {
		basePlan = base.Plan
	}
	switch {
	case plan.SpecHashKind != "":
		d.PlanHash = "(" + plan.SpecHashKind + ")"
	case plan.SpecHash != "":
		d.PlanHash = plan.SpecHash
	case basePlan != nil && basePlan.SpecHash != "":
		d.PlanHash, d.Inherited = basePlan.SpecHash, true
	default:
		return d
	}
	if head.SpecErr != nil {
		d.Checked, d.Err = true, head.SpecErr
		return d
	}
	if !head.HasSpec && (base == nil || !base.HasSpec && base.SpecErr == nil) {
		d.PlanHash, d.Inherited, d.Uncommitted = "", false, true
		return d
	}
	d.Checked = true
	if head.HasSpec {
		d.Current = swarm.SpecHash(head.Spec)
	}
	d.Stale = d.Current != d.PlanHash
	return d
}

// Key is the drift's SpecStalenessKey: "spec:<plan hash>:<spec.md hash>",
// with "deleted" for an absent spec.md; "" when not stale.
func (d SpecDrift) Key() string {
	if !d.Checked || !d.Stale || d.Err != nil {
		return ""
	}
	cur := d.Current
	if cur == "" {
		cur = "deleted"
	}
	return "spec:" + d.PlanHash + ":" + cur
}

// describe says what the drift is, for a finding.
func (d SpecDrift) describe() string {
	var s string
	switch {
	case d.Current == "":
		s = fmt.Sprintf("%s is gone, but the plan was saved against a spec (specHash %s)", swarm.SpecPath, planhash.Short(d.PlanHash))
	case strings.HasPrefix(d.PlanHash, "("):
		s = fmt.Sprintf("the plan's specHash is a JSON %s, not a hash, so it matches no spec (%s hashes to %s)", strings.Trim(d.PlanHash, "()"), swarm.SpecPath, planhash.Short(d.Current))
	case !isLowerHexSHA256(d.PlanHash):
		// The plugin compares the strings exactly, so the plan is stale
		// even when the hash differs only in case; say what is wrong.
		s = fmt.Sprintf("the plan's specHash %q is not a lower-case hex SHA-256, so it matches no spec (the plugin compares it exactly; %s hashes to %s)", d.PlanHash, swarm.SpecPath, planhash.Short(d.Current))
	default:
		s = fmt.Sprintf("%s changed after the plan was saved (specHash %s in %s, %s hashes to %s)", swarm.SpecPath, planhash.Short(d.PlanHash), swarm.PlanPath, swarm.SpecPath, planhash.Short(d.Current))
	}
	if d.Inherited {
		s += "; the head plan dropped its specHash, which does not exempt it, so the merge base plan's is used"
	}
	return s
}

// isLowerHexSHA256 is whether s is how the plugin writes a spec hash.
func isLowerHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// SpecDriftKey is what a `/swarm acknowledge-spec-drift` binds to at a
// head: the recomputed drift's Key when the plan records a specHash ("" when
// it is not stale: nothing to acknowledge), else SpecStalenessKey of the
// marker (marker holds its bytes when readable). The gates and the command
// handler compute it alike.
func SpecDriftKey(head, base *swarm.Artifacts, marker []byte, ok bool) string {
	if d := SpecDriftOf(head, base); d.Checked {
		return d.Key()
	}
	return SpecStalenessKey(head.SpecStaleness, marker, ok)
}

// specStale is plan-freeze's spec check (issue 18 item 6). When the plan
// records a specHash, drift is recomputed: stale drift fails, with or
// without the marker (a marker the pull request deletes while the drift
// stands is named as such), and a marker the plan has been re-saved past is
// only shown. Without a specHash the marker decides, as in the plugin:
// while .swarm/spec-staleness.json exists it blocks save_plan,
// update_task_status and phase_complete. Stale drift passes when a human
// acknowledged it through swarm-gate for this plan structure and this
// drift; the notes say which acknowledgments were voided, and why. The
// error is spec.md being unreadable while the plan records a specHash.
func specStale(in *Input, plan *swarm.Plan) ([]Finding, []string, error) {
	d := SpecDriftOf(in.Head, in.Base)
	if d.Err != nil {
		return nil, nil, fmt.Errorf("the plan records a specHash, so %s is needed to tell whether the plan is stale: %w", swarm.SpecPath, d.Err)
	}
	st := in.Head.SpecStaleness
	marker := st != nil || in.Head.SpecStalenessErr != nil
	if !d.Checked && !marker {
		if d.Uncommitted {
			return []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleSpecStale, Severity: SeverityNotice,
				Message: fmt.Sprintf("the plan records a specHash (%s), but %s is not in the repository at head or on the merge base, so swarm-gate cannot tell whether the plan is stale; commit %s to have it checked", planhash.Short(in.Head.Plan.SpecHash), swarm.SpecPath, swarm.SpecPath)}}, nil, nil
		}
		return nil, nil, nil
	}
	if d.Checked && !d.Stale {
		if !marker {
			return nil, nil, nil
		}
		msg := fmt.Sprintf("%s is out of date: the plan was re-saved against the current %s (specHash %s matches)", swarm.SpecStalenessPath, swarm.SpecPath, planhash.Short(d.Current))
		if st != nil && st.SpecHashPlan != "" {
			msg += fmt.Sprintf("; the marker records the drift from %s to %s", planhash.Short(st.SpecHashPlan), planhash.Short(st.SpecHashCurrent))
		}
		if err := in.Head.SpecStalenessErr; err != nil {
			msg += "; the file is also unreadable: " + err.Error()
		}
		msg += ". The plugin still refuses save_plan, update_task_status and phase_complete while the file exists: delete it."
		return []Finding{{Path: swarm.SpecStalenessPath, Line: 1, EndLine: 1, Rule: RuleSpecStale, Severity: SeverityNotice, Message: msg}}, nil, nil
	}
	var msg, path, key, findingKey string
	switch {
	case d.Checked:
		key = d.Key()
		msg, findingKey = d.describe(), fkey(RuleSpecStale, key)
		path = swarm.SpecPath
		if d.Current == "" {
			path = swarm.PlanPath
		}
		switch {
		case marker:
			path = swarm.SpecStalenessPath
			msg += ": the plugin blocks save_plan, update_task_status and phase_complete while " + swarm.SpecStalenessPath + " exists."
		case in.Base != nil && (in.Base.SpecStaleness != nil || in.Base.SpecStalenessErr != nil):
			// Not pre-existing even when the base had the same drift: the
			// base flagged it, and this pull request hides that.
			findingKey = fkey(RuleSpecStale, "marker-deleted", key)
			msg = "spec drift acknowledged by deleting the marker: this pull request deletes " + swarm.SpecStalenessPath + " while " + msg + "; use `/swarm acknowledge-spec-drift`, or re-save the plan for the new spec."
		default:
			msg += "; the plugin writes " + swarm.SpecStalenessPath + " and then blocks save_plan, update_task_status and phase_complete."
		}
	default:
		path, key = swarm.SpecStalenessPath, in.specStalenessKey()
		findingKey = fkey(RuleSpecStale, key)
		msg = "spec.md changed after the plan was saved"
		if st != nil && st.SpecHashPlan != "" && st.SpecHashCurrent != "" {
			msg += fmt.Sprintf(" (spec hash %s when the plan was saved, %s now", planhash.Short(st.SpecHashPlan), planhash.Short(st.SpecHashCurrent))
			if st.Timestamp != "" {
				msg += "; detected " + st.Timestamp
			}
			msg += ")"
		}
		msg += ": the plugin blocks save_plan, update_task_status and phase_complete while " + swarm.SpecStalenessPath + " exists."
	}
	if err := in.Head.SpecStalenessErr; marker && err != nil {
		msg += " The file is also unreadable: " + err.Error() + "."
	}
	ack, notes := specAcknowledgment(in, plan, key)
	if ack != nil {
		return []Finding{{Path: path, Line: 1, EndLine: 1, Rule: RuleSpecStale, Severity: SeverityNotice,
			Message: msg + " Acknowledged by @" + ack.Actor + " (`/swarm acknowledge-spec-drift`): " + ack.Reason}}, notes, nil
	}
	if d.Checked && d.Current == "" {
		msg += " Next step: restore " + swarm.SpecPath + " (the plugin refuses to work on a plan whose spec is gone), or save the plan again without a spec and have the critic review it; a maintainer who accepts the deletion comments `/swarm acknowledge-spec-drift <reason>`."
	} else {
		msg += " Next step: update the plan for the new spec and have the critic review it, or a maintainer comments `/swarm acknowledge-spec-drift <reason>` (the protocol forbids the agent from acknowledging it itself)."
	}
	return []Finding{{Path: path, Line: 1, EndLine: 1, Rule: RuleSpecStale, Severity: SeverityError, Message: msg, Key: findingKey}}, notes, nil
}

// specAcknowledgment returns the newest acknowledge-spec-drift override
// bound to the head plan's structure hash and to the drift key (nil if
// none), and a "Voided override" note for each other one.
func specAcknowledgment(in *Input, plan *swarm.Plan, key string) (*Override, []string) {
	var ack *Override
	var notes []string
	for i := range in.Overrides {
		o := &in.Overrides[i]
		if o.Command != CommandAcknowledgeSpecDrift {
			continue
		}
		who := fmt.Sprintf("**Voided override**: `/swarm acknowledge-spec-drift` by @%s at %s", mdtext.Inline(o.Actor), mdtext.Inline(o.RecordedAt))
		switch {
		case o.StructureHash != plan.Digests.Structure:
			notes = append(notes, fmt.Sprintf("%s was bound to structure hash %s; the plan's structure changed since (now %s), so it no longer applies: comment again if the drift is still acknowledged.",
				who, planhash.Short(o.StructureHash), planhash.Short(plan.Digests.Structure)))
		case key == "":
			notes = append(notes, fmt.Sprintf("%s does not apply: %s cannot be read, so swarm-gate cannot tell whether it is the drift that was acknowledged.", who, swarm.SpecStalenessPath))
		case o.SpecStaleness != key:
			notes = append(notes, fmt.Sprintf("%s acknowledged other spec drift (%s); the head now has %s, so it no longer applies: comment again if this drift is acknowledged.",
				who, describeStaleness(o.SpecStaleness), describeStaleness(key)))
		default:
			ack = o
		}
	}
	return ack, notes
}

// specStalenessKey is SpecStalenessKey of the head's staleness marker,
// reading the file's bytes through HeadFile when the key needs them.
func (in *Input) specStalenessKey() string {
	st := in.Head.SpecStaleness
	if st == nil {
		return ""
	}
	var content []byte
	ok := false
	if in.HeadFile != nil && (st.SpecHashPlan == "" || st.SpecHashCurrent == "") {
		content, ok = in.HeadFile(swarm.SpecStalenessPath)
	}
	return SpecStalenessKey(st, content, ok)
}

// SpecStalenessKey identifies the spec drift .swarm/spec-staleness.json
// records, so that a `/swarm acknowledge-spec-drift` binds to the drift it
// acknowledged and not to later, different drift: "spec:<specHash_plan>:
// <specHash_current>" when the marker names both spec hashes (the same
// drift detected again, with a new timestamp, keeps the key), else
// "sha256:<hex>" of the file's bytes (content, when ok). It is "" when
// there is no marker (st nil) or when neither can be had, which binds to
// nothing. SpecDriftKey uses it for plans without a specHash.
func SpecStalenessKey(st *swarm.SpecStaleness, content []byte, ok bool) string {
	switch {
	case st == nil:
		return ""
	case st.SpecHashPlan != "" && st.SpecHashCurrent != "":
		return "spec:" + st.SpecHashPlan + ":" + st.SpecHashCurrent
	case ok:
		sum := sha256.Sum256(content)
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	return ""
}

// describeStaleness names a SpecStalenessKey for a summary.
func describeStaleness(key string) string {
	if rest, ok := strings.CutPrefix(key, "spec:"); ok {
		if plan, current, ok := strings.Cut(rest, ":"); ok {
			if current == "deleted" {
				return fmt.Sprintf("spec hash %s in the plan, no spec.md", planhash.Short(plan))
			}
			return fmt.Sprintf("spec hash %s in the plan, %s in spec.md", planhash.Short(plan), planhash.Short(current))
		}
	}
	if rest, ok := strings.CutPrefix(key, "sha256:"); ok {
		return "marker file sha256 " + planhash.Short(rest)
	}
	if key == "" {
		return "recorded without the drift it acknowledged, by an older swarm-gate"
	}
	return mdtext.Inline(key)
}
