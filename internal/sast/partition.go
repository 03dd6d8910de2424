package sast

// Partition splits a head scan's findings against a baseline as the plugin's
// diff mode does (spec section 7.3), with one difference in order:
//
//  1. every stable finding whose fingerprint is in the baseline is
//     pre-existing, and consumes one count of its reflow key, if the baseline
//     has one left;
//  2. then, in finding order, a stable finding whose reflow key still has an
//     unconsumed count in the baseline's reflow_keys (a multiset, ""
//     entries ignored) is moved, and consumes it;
//  3. anything else, every unstable finding included, is new.
//
// The plugin does both steps in one pass in finding order, so a copy of a
// flagged line added above the original takes the original's reflow count
// as "moved" and the original is then pre-existing: the copy passes.
// Matching exact fingerprints first makes the copy new.
//
// The fingerprints are a set: a second identical finding has occurrence #1,
// which the baseline does not hold, so it is new (or moved, when the
// baseline's reflow keys have a spare count). A 1.0.0 baseline has no reflow
// keys and matches exactly only. A nil baseline makes everything new.
//
// head must have been fingerprinted (Fingerprints) as one batch.
func Partition(head []Finding, base *Baseline) (preExisting, moved, newFindings []Finding) {
	if base == nil {
		return nil, nil, append([]Finding(nil), head...)
	}
	return partition(head, base.fingerprintSet(), base.ReflowKeys)
}

// PartitionMergeBase is Partition against the findings computed at the merge
// base instead of a baseline file: their fingerprints are the exact set and
// their reflow keys the multiset. Both sides must have been fingerprinted,
// each as one batch, with the same rules.
func PartitionMergeBase(head, mergeBase []Finding) (preExisting, moved, newFindings []Finding) {
	exact := make(map[string]bool, len(mergeBase))
	reflow := make([]string, 0, len(mergeBase))
	for _, f := range mergeBase {
		if !f.Stable {
			continue
		}
		exact[f.Fingerprint] = true
		reflow = append(reflow, f.ReflowKey)
	}
	return partition(head, exact, reflow)
}

func partition(head []Finding, exact map[string]bool, reflowKeys []string) (preExisting, moved, newFindings []Finding) {
	left := make(map[string]int, len(reflowKeys))
	for _, k := range reflowKeys {
		if k != "" {
			left[k]++
		}
	}
	// Exact matches first, so that a copy added above the original cannot
	// take the original's reflow count and pass as "moved" (the plugin
	// matches in scan order and lets it; see Partition).
	isExact := make([]bool, len(head))
	for i, f := range head {
		if f.Stable && exact[f.Fingerprint] {
			isExact[i] = true
			if f.ReflowKey != "" && left[f.ReflowKey] > 0 {
				left[f.ReflowKey]--
			}
		}
	}
	for i, f := range head {
		switch {
		case isExact[i]:
			preExisting = append(preExisting, f)
		case f.Stable && f.ReflowKey != "" && left[f.ReflowKey] > 0:
			left[f.ReflowKey]--
			moved = append(moved, f)
		default:
			newFindings = append(newFindings, f)
		}
	}
	return preExisting, moved, newFindings
}

// AddedEntry is a fingerprint a pull request added to its own baseline.
type AddedEntry struct {
	Fingerprint string
	ReflowKey   string // "" when the head baseline has none for it
	// RelFile and RuleID are parsed from the fingerprint.
	RelFile, RuleID string
	// Triage is the head's triage_log entry for the fingerprint (the last one
	// when several), nil when the PR added it without one.
	Triage *TriageEntry
	// Snapshot is the head's findings_snapshot entry at the fingerprint's
	// index, when the snapshot is as long as the fingerprints (the plugin
	// writes them in step); nil otherwise.
	Snapshot *Finding
}

// AddedEntries lists the fingerprints of head's baseline that base's lacks,
// in head order, each once. A nil base lists all of head's; a nil head lists
// none.
func AddedEntries(base, head *Baseline) []AddedEntry {
	if head == nil {
		return nil
	}
	var known map[string]bool
	if base != nil {
		known = base.fingerprintSet()
	}
	triage := map[string]*TriageEntry{}
	for i := range head.TriageLog {
		triage[head.TriageLog[i].Fingerprint] = &head.TriageLog[i]
	}
	aligned := len(head.Snapshot) == len(head.Fingerprints)
	listed := map[string]bool{}
	var out []AddedEntry
	for i, fp := range head.Fingerprints {
		if known[fp] || listed[fp] {
			continue
		}
		listed[fp] = true
		e := AddedEntry{Fingerprint: fp, Triage: triage[fp]}
		e.RelFile, e.RuleID, _, _ = ParseFingerprint(fp)
		if i < len(head.ReflowKeys) {
			e.ReflowKey = head.ReflowKeys[i]
		}
		if aligned {
			e.Snapshot = &head.Snapshot[i]
		}
		out = append(out, e)
	}
	return out
}
