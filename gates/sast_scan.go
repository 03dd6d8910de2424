package gates

import (
	"github.com/swarm-gate/swarm-gate/internal/placeholder"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// ScanSASTFile is what swarm/sast judges in one file's content: the
// plugin's rules (sast.ScanFile), fingerprinted against that content as the
// plugin does, then refined (sast.Refine) with swarm/placeholders' lexer
// (placeholder.CodeAt) telling code from comments and strings. dismissed
// are the findings the refinement set aside, each with its Note; skipped
// is ScanFile's.
//
// The pipeline calls it on both sides of a changed file, so that head and
// merge base are judged alike; it reads nothing itself.
func ScanSASTFile(path string, content []byte) (findings, dismissed []sast.Finding, skipped string) {
	findings, skipped = sast.ScanFile(path, content)
	if skipped != "" {
		return nil, nil, skipped
	}
	sast.FingerprintFile(findings, content)
	findings, dismissed = sast.Refine(path, findings, content, placeholder.CodeAt)
	return findings, dismissed, ""
}
