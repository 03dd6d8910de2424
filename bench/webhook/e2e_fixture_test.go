package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// fixture is the pull requests the end-to-end benchmark evaluates: small
// repositories, each the demo repository (a critic-approved .swarm/ plan on
// main, the phase pull request's commit on swarm/phase-1), with one branch
// per pull request whose commits each add one more file on top of the
// demo's phase commit. Every push is a distinct head SHA, so that no two
// deliveries ask for the same evaluation.
type fixture struct {
	repos []*fixtureRepo
}

// fixtureRepo is one served repository.
type fixtureRepo struct {
	name         string // owner/name
	installation int64  // the App installation the repository belongs to
	dir          string // working tree (its .git is served)
	base         string // main's commit, the pull requests' base SHA
	prs          []*fixturePR
}

// fixturePR is one pull request: its branch and the head SHA after each
// push, oldest first.
type fixturePR struct {
	repo   *fixtureRepo
	number int
	branch string
	heads  []string
}

// fixtureOwner owns the benchmark's repositories.
const fixtureOwner = "bench-org"

// buildFixture makes repos repositories under dir holding prs pull requests
// in all (spread round-robin), each pushed to pushes times. Installation
// ids are firstInstallation, firstInstallation+1, ... one per repository.
// Pull request numbers start at 1 in each repository.
func buildFixture(tb testing.TB, dir string, repos, prs, pushes int, firstInstallation int64) *fixture {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skipf("skipping: building the benchmark's repositories needs git: %v", err)
	}
	f := &fixture{}
	for i := range repos {
		r := &fixtureRepo{name: fmt.Sprintf("%s/repo-%02d", fixtureOwner, i), installation: firstInstallation + int64(i),
			dir: filepath.Join(dir, fmt.Sprintf("repo-%02d", i))}
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		base, head, err := demo.Build(r.dir)
		if err != nil {
			tb.Fatalf("building %s from the demo: %v", r.name, err)
		}
		r.base = base
		f.repos = append(f.repos, r)
		n := prs / repos
		if i < prs%repos {
			n++
		}
		for k := range n {
			r.prs = append(r.prs, &fixturePR{repo: r, number: k + 1, branch: fmt.Sprintf("bench/pr-%d", k+1)})
		}
		if err := pushAll(r, head, pushes); err != nil {
			tb.Fatalf("%s: %v", r.name, err)
		}
	}
	return f
}

// pushAll writes every pull request's commits with one git fast-import:
// push p of pull request n adds cmd/export/pr<n>_<p>.go (inside the demo
// plan's scope) on top of the previous push, the first on top of the
// demo's phase commit.
func pushAll(r *fixtureRepo, demoHead string, pushes int) error {
	var stream bytes.Buffer
	mark := 0
	marks := make([][]int, len(r.prs))
	for _, pr := range r.prs {
		parent := demoHead
		for p := 1; p <= pushes; p++ {
			mark++
			marks[pr.number-1] = append(marks[pr.number-1], mark)
			msg := fmt.Sprintf("export: pull request %d, push %d\n", pr.number, p)
			content := fmt.Sprintf("package main\n\n// pr%dPush%d is the export command's record count of pull request %d, push %d.\nconst pr%dPush%d = %d\n",
				pr.number, p, pr.number, p, pr.number, p, pr.number*1000+p)
			fmt.Fprintf(&stream, "commit refs/heads/%s\nmark :%d\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s",
				pr.branch, mark, 1793000000+mark, len(msg), msg)
			if p == 1 {
				fmt.Fprintf(&stream, "from %s\n", parent)
			} else {
				fmt.Fprintf(&stream, "from :%d\n", mark-1)
			}
			fmt.Fprintf(&stream, "M 100644 inline cmd/export/pr%d_%d.go\ndata %d\n%s\n", pr.number, p, len(content), content)
		}
	}
	marksFile := filepath.Join(r.dir, ".git", "bench-marks")
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks="+marksFile)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git fast-import of the pull requests' commits: %v\n%s", err, out)
	}
	// Packed, as GitHub keeps its refs: the fake reads every loose ref
	// file to tell whether its cached ref advertisement is still good.
	pack := exec.Command("git", "pack-refs", "--all")
	pack.Dir = r.dir
	pack.Env = cmd.Env
	if out, err := pack.CombinedOutput(); err != nil {
		return fmt.Errorf("git pack-refs: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(marksFile)
	if err != nil {
		return fmt.Errorf("reading git fast-import's marks: %w", err)
	}
	shas := map[int]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		m, sha, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.Atoi(strings.TrimPrefix(m, ":"))
		if !ok || err != nil || len(sha) != 40 {
			return fmt.Errorf("%s: unexpected line %q", marksFile, sc.Text())
		}
		shas[n] = sha
	}
	for _, pr := range r.prs {
		for _, m := range marks[pr.number-1] {
			if shas[m] == "" {
				return fmt.Errorf("%s: no commit for mark %d", marksFile, m)
			}
			pr.heads = append(pr.heads, shas[m])
		}
	}
	return nil
}

// delivery is one pull_request synchronize delivery of the benchmark.
type delivery struct {
	pr   *fixturePR
	push int // index into pr.heads
	body []byte
}

// head is the commit the delivery asks to evaluate.
func (d delivery) head() string { return d.pr.heads[d.push] }

// key names the delivery's head in the results: "owner/name@sha".
func (d delivery) key() string { return d.pr.repo.name + "@" + d.head() }

// synchronizeTemplate is GitHub's example pull_request synchronize payload.
func synchronizeTemplate(tb testing.TB, payloads string) map[string]any {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(payloads, "pull_request", "synchronize.json"))
	if err != nil {
		tb.Fatalf("reading GitHub's example delivery: %v", err)
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		tb.Fatalf("GitHub's example delivery is not JSON: %v", err)
	}
	return p
}

// synchronizeBody is GitHub's example pull_request synchronize payload for
// push `push` of pr: repository, installation, number, base and head
// (SHAs, refs, repository), before/after, updated_at (a minute per push),
// and a swarm:phase-1 label (the branches are bench/pr-<n>, which do not
// name the phase).
func synchronizeBody(tb testing.TB, template map[string]any, webURL string, pr *fixturePR, push int) []byte {
	tb.Helper()
	var p map[string]any
	raw, _ := json.Marshal(template)
	if err := json.Unmarshal(raw, &p); err != nil {
		tb.Fatal(err)
	}
	r := pr.repo
	owner, name, _ := strings.Cut(r.name, "/")
	before := r.base
	if push > 0 {
		before = pr.heads[push-1]
	}
	sharedtest.SetPath(p, "number", pr.number)
	sharedtest.SetPath(p, "before", before)
	sharedtest.SetPath(p, "after", pr.heads[push])
	sharedtest.SetPath(p, "installation", map[string]any{"id": r.installation, "node_id": fmt.Sprintf("bench-installation-%d", r.installation)})
	for _, repoPath := range []string{"repository", "pull_request.head.repo", "pull_request.base.repo"} {
		sharedtest.SetPath(p, repoPath+".full_name", r.name)
		sharedtest.SetPath(p, repoPath+".name", name)
		sharedtest.SetPath(p, repoPath+".owner.login", owner)
		sharedtest.SetPath(p, repoPath+".clone_url", webURL+"/"+r.name+".git")
		sharedtest.SetPath(p, repoPath+".html_url", webURL+"/"+r.name)
	}
	sharedtest.SetPath(p, "pull_request.number", pr.number)
	sharedtest.SetPath(p, "pull_request.html_url", fmt.Sprintf("%s/%s/pull/%d", webURL, r.name, pr.number))
	sharedtest.SetPath(p, "pull_request.head.sha", pr.heads[push])
	sharedtest.SetPath(p, "pull_request.head.ref", pr.branch)
	sharedtest.SetPath(p, "pull_request.head.label", owner+":"+pr.branch)
	sharedtest.SetPath(p, "pull_request.base.sha", r.base)
	sharedtest.SetPath(p, "pull_request.base.ref", demo.BaseBranch)
	sharedtest.SetPath(p, "pull_request.base.label", owner+":"+demo.BaseBranch)
	// GitHub stamps every push: the webhook queue orders a pull request's
	// deliveries by it when they arrive out of order (each push here
	// comes a minute after the one before).
	sharedtest.SetPath(p, "pull_request.updated_at", time.Date(2026, 11, 2, 9, push, 0, 0, time.UTC).Format(time.RFC3339))
	sharedtest.SetPath(p, "pull_request.labels", []any{map[string]any{"id": 1, "node_id": "bench-label", "name": "swarm:phase-1", "color": "ededed", "default": false}})
	out, err := json.Marshal(p)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
