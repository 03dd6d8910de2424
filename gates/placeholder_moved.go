package gates

import (
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/placeholder"
)

// This file is the moved-lines check of swarm/placeholders: a TODO the pull
// request only moves (deleted and added again, within a file or from the
// old path of a rename) is an added line, but not the pull request's
// doing. Findings are matched by Key, the rule and the trimmed line, with
// the file's merge-base version scanned the same way, so a guard that
// moved keeps its key and a line edited to hold a new marker does not.

// noMergeBase is movedLines's reason when the input has no merge-base
// contents at all.
const noMergeBase = "no merge-base contents"

// movedLines classifies the failing findings of one file, out, against its
// merge-base version (f.OldPath for a rename or copy). Occurrences count:
// with a key found B times at the merge base and U times on the head's
// unchanged lines (and, for a copy, in its source at head), up to B-U of
// the added ones are pre-existing (a warning,
// Delta pre_existing); the rest are introduced. head is the head content
// (ignored when complete: every line of the file is added). It returns
// why the file could not be compared, "" when it was or had nothing to
// compare; then every finding counts as introduced.
func movedLines(in *Input, f *changeset.File, out []Finding, head string, headKnown, complete bool, scratch *placeholder.Scanner) string {
	var added map[string]int
	for i := range out {
		if out[i].Severity == SeverityError {
			if added == nil {
				added = map[string]int{}
			}
			out[i].Delta = DeltaIntroduced
			added[out[i].Key]++
		}
	}
	switch {
	case len(added) == 0 || f.OldPath == "" || f.Status == changeset.Added:
		return ""
	case in.BaseFile == nil:
		return noMergeBase
	case !headKnown && !complete:
		return "its head content could not be read"
	}
	base, ok := in.BaseFile(f.OldPath)
	if !ok {
		return "it could not be read at the merge base"
	}
	plan := IsPlanMarkdown(f.NewPath)
	inBase := keyCounts(scratch, f.OldPath, plan, string(base))
	var inHead, inSource map[string]int
	if !complete {
		inHead = keyCounts(scratch, f.NewPath, plan, head)
	}
	if f.Status == changeset.Copied && in.HeadFile != nil {
		if src, ok := in.HeadFile(f.OldPath); ok {
			inSource = keyCounts(scratch, f.OldPath, plan, string(src)) // a copy's source still holds its lines
		}
	}
	pre := map[string]int{}
	for k, a := range added {
		unchanged := max(0, inHead[k]-a) + inSource[k] // inHead is empty when complete
		pre[k] = min(a, max(0, inBase[k]-unchanged))
	}
	where := "this file's merge-base version"
	if f.OldPath != f.NewPath {
		where = "the merge-base version of " + f.OldPath
	}
	for i := range out {
		fd := &out[i]
		if fd.Severity != SeverityError || pre[fd.Key] == 0 {
			continue
		}
		pre[fd.Key]--
		fd.Severity, fd.Delta = SeverityWarning, DeltaPreExisting
		fd.Message = PreExistingPrefix + "moved or re-added, the same line is in " + where + ": " + fd.Message
	}
	return ""
}

// keyCounts scans every line of content as path and counts the keys of
// its failing findings.
func keyCounts(sc *placeholder.Scanner, path string, plan bool, content string) map[string]int {
	sc.File(path, plan)
	sc.All(content)
	n := map[string]int{}
	for _, fd := range sc.Findings() {
		if !fd.Warning {
			n[fd.Key]++
		}
	}
	return n
}
