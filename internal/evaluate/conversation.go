package evaluate

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/commands"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// summaryMarker is the hidden first line of the sticky pull request
// summary comment: the next run finds the comment by it (in a comment by
// swarm-gate's own login only) and updates it in place.
const summaryMarker = "<!-- swarm-gate:summary -->"

// stickyComment creates or updates the pull request summary comment of
// an evaluation, as the policy's comment key says (DESIGN.md section 3:
// from the base branch; the default, on-failure, when the policy was not
// read), and returns the lines to add to the aggregate's summary (none
// when all went well). It never fails the checks: a comment that cannot be
// posted (a token without `pull-requests: write`) is a warning and a line
// in the aggregate's summary.
//
// It does nothing without a pull request (Conversation.pr 0), without a
// token, when the check runs were refused as forbidden (a fork's read-only
// token: the workflow_run poster posts the checks and the comment), or
// once the context is done.
func (th *thread) stickyComment(ctx context.Context, rep *report.Report, results []gates.Result, cs *Runs) []string {
	number := th.c.pr
	if number == 0 || th.API == nil || cs.Status == Forbidden || cs.Status == NoToken || ctx.Err() != nil {
		return nil
	}
	policy := rep.Comment
	if policy == "" {
		policy = gates.CommentOnFailure
	}
	if policy == gates.CommentOff {
		return nil
	}
	fail := func(what string, err error) []string {
		th.warnf("swarm-gate: %s the summary comment of pull request #%d: %v%s; the checks are not affected", what, number, err, PermissionHint(err, "pull-requests: write"))
		return []string{fmt.Sprintf("The pull request summary comment could not be posted (%s): %s. The checks above are not affected; give the workflow `pull-requests: write` (the App: `issues: write`) for the comment.", what, mdtext.Inline(ghapi.Brief(err)))}
	}
	list, err := th.comments(ctx, number)
	if err != nil {
		return fail("reading", err)
	}
	var existing *int64
	var existingBody string
	if c, ok := th.findSummary(list); ok {
		existing, existingBody = &c.ID, c.Body
		th.commentDetails(c.HTMLURL)
	}
	overall := report.Overall(results)
	if rep.Error != "" {
		overall = gates.Error
	}
	if existing == nil && policy == gates.CommentOnFailure && overall == gates.Passed {
		return nil
	}
	body := commentBody(rep, results, cs, overall, th.fullReport())
	if existing != nil {
		if body == existingBody {
			return nil
		}
		if _, err := th.API.UpdateComment(ctx, th.Repo, *existing, body); err != nil {
			return fail("updating", err)
		}
		th.logger().Info("summary comment updated", "pr", number, "id", *existing)
		return nil
	}
	if err := th.createComment(ctx, number, body); err != nil {
		return fail("creating", err)
	}
	if c, ok := th.findSummary(th.c.lists[number]); ok {
		th.commentDetails(c.HTMLURL) // the aggregate, completed next, links it
	}
	th.logger().Info("summary comment created", "pr", number)
	return nil
}

// findSummary is the newest of swarm-gate's own comments in list that
// still starts with the marker: one edited by someone else (the marker
// gone) or deleted is not found, and a new one is created.
func (th *thread) findSummary(list []commands.Comment) (commands.Comment, bool) {
	for i := len(list) - 1; i >= 0; i-- {
		c := list[i]
		if strings.EqualFold(c.Author, th.botLogin()) && strings.HasPrefix(c.Body, summaryMarker) {
			return c, true
		}
	}
	return commands.Comment{}, false
}

// presetCommentDetails makes the summary comment that already exists on
// pull request number the details_url of the check runs posted from now
// on, where there is no workflow run to link (the App); it reads the
// comments the run lists anyway for the override records.
func (th *thread) presetCommentDetails(ctx context.Context, number int) {
	if th.c.RunURL != "" || number == 0 || th.API == nil {
		return
	}
	if list, ok := th.c.lists[number]; ok {
		if c, ok := th.findSummary(list); ok {
			th.commentDetails(c.HTMLURL)
		}
	}
}

// commentDetails sets the check runs' details_url to the summary
// comment's page u when there is no workflow run (the App).
func (th *thread) commentDetails(u string) {
	if th.c.RunURL != "" || u == "" || th.API == nil {
		return
	}
	th.API.SetDetailsURL(u)
}

// fullReport names where the whole report is, for the comment's last line
// when it is cut.
func (th *thread) fullReport() string {
	if th.c.CommentReport != "" {
		return th.c.CommentReport
	}
	return "the check runs linked above"
}

// commentBody is the summary comment: the marker, the verdict and phase,
// one line per check with its first failing finding and a link to its
// run, the next step of each failure, and the pre-existing findings in a
// collapsed <details>. It is cut to ghapi.MaxCommentRunes characters,
// ending with where the full report is.
func commentBody(rep *report.Report, results []gates.Result, cs *Runs, overall gates.Outcome, full string) string {
	var b strings.Builder
	b.WriteString(summaryMarker + "\n")
	switch overall {
	case gates.Passed:
		fmt.Fprintf(&b, "### swarm-gate: %s all checks pass\n\n", report.Badge(gates.Passed))
	case gates.Failed:
		fmt.Fprintf(&b, "### swarm-gate: %s failed\n\n", report.Badge(gates.Failed))
	default:
		fmt.Fprintf(&b, "### swarm-gate: %s could not evaluate\n\n", report.Badge(gates.Error))
	}
	if rep.Error != "" {
		fmt.Fprintf(&b, "swarm-gate could not evaluate commit `%s`, so every check fails closed: %s\n\n", gitsha.Short(cs.SHA), mdtext.Inline(mdtext.FirstLine(rep.Error)))
	} else {
		fmt.Fprintf(&b, "%s · head `%s`\n\n", report.UpperFirst(report.PhaseText(rep)), gitsha.Short(rep.Head))
	}
	var next, pre []string
	for _, g := range results {
		name := mdtext.Code(g.Name)
		if u := cs.URL(g.Name); u != "" {
			name = "[" + name + "](" + u + ")"
		}
		line := fmt.Sprintf("- %s %s %s: %s", report.Badge(g.Outcome), name, g.Outcome, mdtext.Inline(mdtext.FirstLine(g.Title)))
		for _, f := range g.Findings {
			if f.Delta == gates.DeltaPreExisting {
				pre = append(pre, fmt.Sprintf("- %s %s", mdtext.Code(g.Name), findingText(f)))
				continue
			}
			if g.Outcome == gates.Failed && f.Severity == gates.SeverityError && !strings.Contains(line, " — first finding: ") {
				line += " — first finding: " + findingText(f)
			}
		}
		b.WriteString(line + "\n")
		if g.Outcome == gates.Failed || g.Outcome == gates.Error {
			if s := nextStep(g); s != "" {
				next = append(next, fmt.Sprintf("- %s: %s", mdtext.Code(g.Name), s))
			}
		}
	}
	if len(next) > 0 {
		b.WriteString("\n**What to do next**\n\n" + strings.Join(next, "\n") + "\n")
	}
	if len(pre) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%s already on the base branch (not blocking)</summary>\n\n%s\n\n</details>\n", mdtext.Count(len(pre), "pre-existing finding"), strings.Join(pre, "\n"))
	}
	if u := cs.URL(AggregateCheck); u != "" {
		fmt.Fprintf(&b, "\n_The [swarm-gate check](%s) carries the verdict; this comment is updated on every push._\n", u)
	}
	return cutComment(b.String(), full)
}

// findingText is a finding as "`path:line` message" on one line.
func findingText(f gates.Finding) string {
	where := f.Path
	if where != "" && f.Line > 0 {
		where = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	msg := mdtext.Inline(mdtext.FirstLine(f.Message))
	if where == "" {
		return msg
	}
	return mdtext.Code(where) + " " + msg
}

// nextStep is the first "Next step: ..." sentence of a failed result's
// summary or findings (the gates write them), else a pointer to the
// findings of its check run.
func nextStep(g gates.Result) string {
	if s, ok := report.NextStep(g); ok {
		return mdtext.Inline(s)
	}
	if g.Outcome == gates.Error {
		return "swarm-gate could not evaluate this check; see its check run for why, fix that and re-run"
	}
	// The gate's findings say how to fix each; the check run lists them.
	return "fix what each finding of its check run says, then push"
}

// cutComment cuts body to ghapi.MaxCommentRunes characters (GitHub
// refuses longer ones), at a line end, with a last line naming full.
func cutComment(body, full string) string {
	if utf8.RuneCountInString(body) <= ghapi.MaxCommentRunes {
		return body
	}
	tail := "\n\n… the comment is cut here (GitHub takes at most 65,536 characters); the full report is in " + full + ".\n"
	keep := ghapi.MaxCommentRunes - utf8.RuneCountInString(tail)
	runes := []rune(body)[:keep]
	cut := string(runes)
	if i := strings.LastIndex(cut, "\n"); i > 0 {
		cut = cut[:i]
	}
	return cut + tail
}

// OpenComment makes pr (0: none) the pull request of the summary comment
// that Comment posts; an existing summary comment becomes the details_url
// of the check runs posted from now on when there is no workflow run.
func (d *Deps) OpenComment(ctx context.Context, pr int) {
	th := d.thread(Settings{})
	th.c.pr = pr
	th.presetCommentDetails(ctx, pr)
}

// Comment is the Commenter of d's conversation: it creates or updates
// the summary comment on the pull request OpenComment named
// (stickyComment).
func (d *Deps) Comment(ctx context.Context, rep *report.Report, results []gates.Result, cs *Runs) []string {
	return d.thread(Settings{}).stickyComment(ctx, rep, results, cs)
}
