package ghapi

import (
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
)

// GitHub's limits on check-run output (github/README.md, "Limits worth
// testing"). Lengths are counted in bytes where GitHub does not say
// whether it counts characters or bytes: a byte budget satisfies both.
const (
	// MaxAnnotationsPerRequest is the maxItems of output.annotations on
	// create and update.
	MaxAnnotationsPerRequest = 50
	// MaxSummaryBytes is output.summary's maxLength (65535 "characters").
	MaxSummaryBytes = 65535
	// MaxTitleRunes bounds output.title. GitHub documents no limit for it;
	// 255 characters is its limit on annotation titles, and keeps the
	// title one readable line.
	MaxTitleRunes = 255
	// MaxAnnotationMessageBytes bounds an annotation's message: "64 KB",
	// read as 64,000 bytes, the smaller reading.
	MaxAnnotationMessageBytes = 64000
	// MaxAnnotationTitleRunes is the documented limit on annotation titles.
	MaxAnnotationTitleRunes = 255
)

// CheckOutput is a completed check run's conclusion, title, summary and
// annotations, as Complete, PostCheck and ReportCheck send them
// (report.CheckOutput makes one from a gate result).
type CheckOutput struct {
	Conclusion  string // success, failure or neutral
	Title       string // one line, at most MaxTitleRunes characters
	Summary     string // Markdown, at most MaxSummaryBytes bytes
	Annotations []*github.CheckRunAnnotation
}

// failOutput is the output of a run the Finaliser completes.
func failOutput(reason string) CheckOutput {
	if strings.TrimSpace(reason) == "" {
		reason = "swarm-gate stopped before reporting this check"
	}
	t := reason
	if !strings.HasPrefix(t, "could not evaluate") {
		t = "could not evaluate: " + t
	}
	summary := "swarm-gate could not report this check, so it fails closed.\n\n" + mdtext.CodeBlock(reason)
	return CheckOutput{Conclusion: ConclusionFailure, Title: mdtext.OneLine(t, MaxTitleRunes),
		Summary: mdtext.Truncate(summary, MaxSummaryBytes, "the logs of this run")}
}

// cancelOutput is the output of a run completed as cancelled.
func cancelOutput(reason string) CheckOutput {
	if strings.TrimSpace(reason) == "" {
		reason = "the job was cancelled before swarm-gate reported this check"
	}
	summary := "The job was cancelled before swarm-gate reported this check, so it carries no verdict (a required check that was cancelled blocks merging, as a failure does); re-run the job to evaluate it.\n\n" + mdtext.CodeBlock(reason)
	return CheckOutput{Conclusion: ConclusionCancelled, Title: mdtext.OneLine("cancelled: "+reason, MaxTitleRunes),
		Summary: mdtext.Truncate(summary, MaxSummaryBytes, "the logs of this run")}
}
