package pipeline

// Hostile repositories (issue 11, item 2). Each row builds a repository with
// git's plumbing (hostile_repo_test.go): the demo's base commit on main and
// its phase-1 pull request on swarm/phase-1, with the head (or base) changed
// as the row says, then runs the whole pipeline (Check) with both diff
// engines and asserts a clear verdict: the gate that depends on the damaged
// file fails or cannot evaluate, naming the file, or Check itself refuses to
// start (exit code 2) with a message naming it. No row may panic (gates.Run
// turns a gate's panic into an "internal error" result, which fails the
// row), pass silently, or read anything but git objects.
//
// | case | what it verifies |
// |---|---|
// | .swarm symlink, in the repo | `.swarm` -> a directory holding a valid .swarm/: never followed; every .swarm gate is "could not evaluate" naming `.swarm` |
// | .swarm symlink, outside | `.swarm` -> /etc: the same |
// | evidence symlink to /etc/passwd | `.swarm/evidence/1.2.json` -> /etc/passwd: swarm/evidence cannot evaluate, naming the file; the target's content is never read (a symlink is a blob holding its target path) |
// | evidence symlink outside the repo | `.swarm/evidence/1.2.json` -> ../../outside.json (and a valid evidence file at that path): not followed, so task 1.2 is not passed |
// | evidence folder symlink | `.swarm/evidence/1.2` -> a folder with a valid bundle: not followed, task 1.2 still lacks evidence (fails) |
// | plan.json symlink | every plan gate cannot evaluate, naming .swarm/plan.json |
// | .. in a changed path | `internal/export/../../secrets.go` (a tree entry ".."): git engine: swarm/scope fails with scope/unclean-path; go-git engine: Check refuses, naming the directory |
// | .. in .swarm/evidence | an entry ".." in .swarm/evidence: the folder cannot be listed (fs.WalkDir would loop on it until the stack overflowed), swarm/evidence cannot evaluate, naming it; go-git engine: Check refuses, naming the folder |
// | .. in .swarm/scopes | the same for swarm/scope |
// | NUL in a path | git cannot hold it: a tree entry's name ends at the first NUL, so a hand-written tree with one is corrupt; Check refuses (git diff fails; the go-git engine names the corrupt folder instead of skipping its files, as go-git's diff does) |
// | newline in a file name | `cmd/export/a\nb.go` (in scope) is read and lexed: its TODO is found and named |
// | newline in a folder name | `cmd/export/x\ny/z.go`: git engine reads it; go-git's diff cannot open the folder, and Check says so, naming it |
// | 4,000-byte path | 200 nested folders and a 3,600-byte file name in scope: read and lexed, its TODO found |
// | odd .swarm file names | `.swarm/evidence/1.2\n.json`, a 4,000-byte evidence name, `.swarm/scopes/scope-1.2\n.json`: ignored as the plugin ignores them; task 1.2 still lacks evidence |
// | deep JSON: plan.json | 100,000 "[": every plan gate cannot evaluate, "nesting deeper than 512 levels", naming .swarm/plan.json:1 |
// | deep JSON: evidence | the same for swarm/evidence and .swarm/evidence/1.2.json |
// | deep JSON: ledger line | a ledger line of 100,000 "[": swarm/plan-freeze cannot evaluate, naming the line |
// | deep JSON: events.jsonl | swarm/phase-wrap (the gate that reads it) cannot evaluate that step, naming .swarm/events.jsonl |
// | deep JSON: baseline | the merge base's .swarm/evidence/1/sast-baseline.json: swarm/sast cannot evaluate, naming it |
// | deep JSON: SARIF | a --sarif log of 100,000 "[": swarm/sast cannot evaluate, naming the log |
// | deep YAML: config | .github/swarm-gate.yml of 100,000 "[" on the base branch: Check refuses, naming the file |
// | invalid UTF-8: plan.json | a phase name with 0xff: read (as U+FFFD, as the plugin's JSON.parse would), the plan no longer matches the ledger: swarm/plan-freeze fails |
// | invalid UTF-8: ledger | an appended event whose plan_hash_after has a 0xff: the replay cannot explain it, swarm/plan-freeze fails naming the line |
// | invalid UTF-8: evidence | a verdict "appr\xffoved": not an approval, swarm/evidence fails naming the file |
// | invalid UTF-8: names and lines | `cmd/export/\xff.go` adding "// TODO \xff": found and named |
// | code symlinks | cmd/export/impl.go -> notes.txt fails placeholders and sast closed as not scanned; alias.go -> main.go has no finding (both engines) |
// | submodule in the change set | a gitlink in scope: placeholders and SAST fail it closed as not scanned; a gitlink outside scope: swarm/scope fails naming it |
// | submodule in .swarm | `.swarm/evidence` or `.swarm/plan.json` a gitlink: the gate cannot evaluate, "submodule" |
// | case-only rename | internal/export/CSV.go -> csv.go: swarm/scope treats both paths, and the old one is out of scope |
// | LFS pointer: plan.json | "is a Git LFS pointer ... commit .swarm/ without LFS" |
// | LFS pointer: ledger | the same for .swarm/plan-ledger.jsonl |
// | LFS pointer: source file | a .go file in scope that is an LFS pointer fails swarm/placeholders and swarm/sast closed as not scanned; a .png one has no finding |
//
// TestHostileMemory (skipped with -short) runs the big cases in a child
// process and reads its peak RSS (VmHWM): a 200 MB plan.json and a 200 MB
// ledger (refused by size before they are read), a ledger of 1,000,000
// events (415 MB: refused by size), the largest ledger within the limits
// (40,000 events, 16 MB, on both sides: read line by line and evaluated),
// a 16 MiB plan.json of 49,000 tasks (over MaxPlanTasks) and one padded
// with 8 million JSON values (over MaxJSONValues). Each must stay under
// 300 MB.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// hostileCase is one row of TestHostileRepositories.
type hostileCase struct {
	name string
	// mutate changes the demo's trees; g writes objects it needs.
	mutate func(g *hostileGit, base, head hostileTree)
	// gates to run; nil means gates.Default().
	gates []gates.Gate
	// sarif, when set, writes SARIF logs into dir for --sarif.
	sarif func(t *testing.T, dir string) []string
	// check asserts the verdict for one engine.
	check func(t *testing.T, engine string, r *report.Report, err error)
}

func TestHostileRepositories(t *testing.T) {
	lfs := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	deep := strings.Repeat("[", 100_000)
	evidence12 := `{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"sessionId":"s","timestamp":"2026-11-02T10:20:00.000Z","agent":"reviewer","verdict":"approved"}}}`
	moveSwarm := func(h hostileTree, to string) {
		for k, v := range h {
			if rest, ok := strings.CutPrefix(k, ".swarm/"); ok {
				delete(h, k)
				if to != "" {
					h[to+"/"+rest] = v
				}
			}
		}
	}
	dropPrefix := func(h hostileTree, prefix string) {
		for k := range h {
			if strings.HasPrefix(k, prefix) {
				delete(h, k)
			}
		}
	}
	swarmGates := []string{"swarm/plan-freeze", "swarm/critic", "swarm/scope", "swarm/evidence", "swarm/drift", "swarm/plan-lint"}
	planGates := swarmGates

	cases := []hostileCase{
		{name: ".swarm symlink, in the repo", mutate: func(g *hostileGit, b, h hostileTree) {
			moveSwarm(h, "state")
			h["state/evidence/1.2.json"] = file(evidence12)
			h[".swarm"] = symlink("state")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			for _, name := range swarmGates {
				wantGate(t, r, err, name, []gates.Outcome{gates.Error}, ".swarm", "symlink")
			}
		}},
		{name: ".swarm symlink, outside", mutate: func(g *hostileGit, b, h hostileTree) {
			moveSwarm(h, "")
			h[".swarm"] = symlink("/etc")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			for _, name := range swarmGates {
				wantGate(t, r, err, name, []gates.Outcome{gates.Error}, ".swarm", "symlink")
			}
		}},
		{name: "evidence symlink to /etc/passwd", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/evidence/1.2.json"] = symlink("/etc/passwd")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Error}, ".swarm/evidence/1.2.json", "symlink")
			if strings.Contains(dump(r), "root:") {
				t.Errorf("the report quotes /etc/passwd:\n%s", dump(r))
			}
		}},
		{name: "evidence symlink outside the repo", mutate: func(g *hostileGit, b, h hostileTree) {
			h["outside.json"] = file(evidence12)
			h[".swarm/evidence/1.2.json"] = symlink("../../outside.json")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Error}, ".swarm/evidence/1.2.json", "symlink")
		}},
		{name: "evidence folder symlink", mutate: func(g *hostileGit, b, h hostileTree) {
			h["elsewhere/evidence.json"] = file(`{"task_id":"1.2","entries":[{"type":"review","verdict":"approved"},{"type":"test","verdict":"pass"}]}`)
			h[".swarm/evidence/1.2"] = symlink("../../elsewhere")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Failed, gates.Error}, "1.2")
		}},
		{name: "plan.json symlink", mutate: func(g *hostileGit, b, h hostileTree) {
			h["plan-copy.json"] = h[".swarm/plan.json"]
			h[".swarm/plan.json"] = symlink("../plan-copy.json")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			for _, name := range planGates {
				wantGate(t, r, err, name, []gates.Outcome{gates.Error}, ".swarm/plan.json", "symlink")
			}
		}},
		{name: ".. in a changed path", mutate: func(g *hostileGit, b, h hostileTree) {
			h["internal/export/../../secrets.go"] = file("package secrets\n")
		}, check: func(t *testing.T, engine string, r *report.Report, err error) {
			if engine == "go-git" {
				wantCheckError(t, r, err, `"internal/export/.."`, "install git")
				return
			}
			wantGate(t, r, err, "swarm/scope", []gates.Outcome{gates.Failed}, "internal/export/../../secrets.go", "scope/unclean-path")
		}},
		{name: ".. in .swarm/evidence", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/evidence/../1.2.json"] = file(evidence12)
		}, check: func(t *testing.T, engine string, r *report.Report, err error) {
			if engine == "go-git" {
				wantCheckError(t, r, err, `".swarm/evidence/.."`)
				return
			}
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Error}, ".swarm/evidence", `".."`)
		}},
		{name: ".. in .swarm/scopes", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/scopes/../scope-1.2.json"] = file(`{"taskId":"1.2","files":["main.go"]}`)
		}, check: func(t *testing.T, engine string, r *report.Report, err error) {
			if engine == "go-git" {
				wantCheckError(t, r, err, `".swarm/scopes/.."`)
				return
			}
			wantGate(t, r, err, "swarm/scope", []gates.Outcome{gates.Error}, ".swarm/scopes", `".."`)
		}},
		{name: "NUL in a path", mutate: func(g *hostileGit, b, h hostileTree) {
			// What `git mktree` would write for a name "a\x00b.go" if it
			// took one: the name ends at the NUL, and the rest of the
			// entry shifts into the object name and the next entry.
			blob := g.blob(strings.NewReader("package export\n"))
			raw := append([]byte("100644 a\x00b.go\x00"), hexBytes(t, blob)...)
			dropPrefix(h, "internal/export/")
			h["internal/export"] = hostileEntry{mode: modeTree, oid: g.rawTree(raw)}
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantCheckError(t, r, err) // any refusal: the tree is corrupt
		}},
		{name: "a path named twice", mutate: func(g *hostileGit, b, h hostileTree) {
			// The diff shows both blobs; a lookup by path finds the first.
			benign := g.blob(strings.NewReader("package export\n"))
			hostile := g.blob(strings.NewReader("package export\n\nimport \"os/exec\"\n\nfunc Run(c string) error { return exec.Command(\"sh\", \"-c\", c).Run() }\n"))
			raw := append([]byte("100644 csv.go\x00"), hexBytes(t, benign)...)
			raw = append(append(raw, "100644 csv.go\x00"...), hexBytes(t, hostile)...)
			dropPrefix(h, "internal/export/")
			h["internal/export"] = hostileEntry{mode: modeTree, oid: g.rawTree(raw)}
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantCheckError(t, r, err, `"internal/export/csv.go" twice`)
		}},
		{name: "a file and a folder of one name", mutate: func(g *hostileGit, b, h hostileTree) {
			// git diff shows the blob x; a lookup of x finds the folder.
			inner := g.writeTree(hostileTree{"y.go": file("package x\n")})
			hostile := g.blob(strings.NewReader("package export\n\nimport \"os/exec\"\n\nfunc Run(c string) error { return exec.Command(\"sh\", \"-c\", c).Run() }\n"))
			raw := append([]byte("40000 x\x00"), hexBytes(t, inner)...)
			raw = append(append(raw, "100644 x\x00"...), hexBytes(t, hostile)...)
			dropPrefix(h, "internal/export/")
			h["internal/export"] = hostileEntry{mode: modeTree, oid: g.rawTree(raw)}
		}, check: func(t *testing.T, engine string, r *report.Report, err error) {
			if engine == "go-git" {
				wantCheckError(t, r, err, `"internal/export/x" twice`)
				return
			}
			wantGate(t, r, err, "swarm/sast", []gates.Outcome{gates.Error, gates.Failed}, "internal/export/x", "twice")
		}},
		{name: "newline in a file name", mutate: func(g *hostileGit, b, h hostileTree) {
			h["cmd/export/a\nb.go"] = file("package main // TODO: newline in my name\n")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantFinding(t, r, err, "swarm/placeholders", "cmd/export/a\nb.go", 1)
		}},
		{name: "newline in a folder name", mutate: func(g *hostileGit, b, h hostileTree) {
			h["cmd/export/x\ny/z.go"] = file("package z // TODO: newline in my folder\n")
		}, check: func(t *testing.T, engine string, r *report.Report, err error) {
			if engine == "go-git" {
				wantCheckError(t, r, err, `"cmd/export/x\ny"`, "install git")
				return
			}
			wantFinding(t, r, err, "swarm/placeholders", "cmd/export/x\ny/z.go", 1)
		}},
		{name: "4,000-byte path", mutate: func(g *hostileGit, b, h hostileTree) {
			h[longPath()] = file("package deep // TODO: a long way down\n")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantFinding(t, r, err, "swarm/placeholders", longPath(), 1)
		}},
		{name: "odd .swarm file names", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/evidence/1.2\n.json"] = file(evidence12)
			h[".swarm/evidence/"+strings.Repeat("9", 4000)+".json"] = file(evidence12)
			h[".swarm/scopes/scope-1.2\n.json"] = file(`{"taskId":"1.2","files":["main.go"]}`)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Failed}, "task 1.2")
			wantGate(t, r, err, "swarm/scope", []gates.Outcome{gates.Failed}, "main.go")
		}},
		{name: "deep JSON: plan.json", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = file(deep)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			for _, name := range planGates {
				wantGate(t, r, err, name, []gates.Outcome{gates.Error}, ".swarm/plan.json", "nesting deeper than")
			}
		}},
		{name: "deep JSON: evidence", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/evidence/1.2.json"] = file(deep)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Error}, ".swarm/evidence/1.2.json", "nesting deeper than")
		}},
		{name: "deep JSON: ledger line", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan-ledger.jsonl"] = file(string(h[".swarm/plan-ledger.jsonl"].data) + deep + "\n")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/plan-freeze", []gates.Outcome{gates.Error}, ".swarm/plan-ledger.jsonl", "line 5", "nesting deeper than")
		}},
		{name: "deep JSON: events.jsonl", gates: gates.Registry(), mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/events.jsonl"] = file(deep + "\n")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantMention(t, r, err, ".swarm/events.jsonl", "nesting deeper than")
		}},
		{name: "deep JSON: baseline", mutate: func(g *hostileGit, b, h hostileTree) {
			b[".swarm/evidence/1/sast-baseline.json"] = file(deep)
			h[".swarm/evidence/1/sast-baseline.json"] = file(deep)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/sast", []gates.Outcome{gates.Error}, ".swarm/evidence/1/sast-baseline.json", "nesting")
		}},
		{name: "deep JSON: SARIF", sarif: func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "deep.sarif")
			if err := os.WriteFile(p, []byte(deep), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{p}
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/sast", []gates.Outcome{gates.Error}, "deep.sarif")
		}},
		{name: "deep YAML: config", mutate: func(g *hostileGit, b, h hostileTree) {
			b[".github/swarm-gate.yml"] = file(deep)
			h[".github/swarm-gate.yml"] = file(deep)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantCheckError(t, r, err, ".github/swarm-gate.yml")
		}},
		{name: "invalid UTF-8: plan.json", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = file(strings.Replace(string(h[".swarm/plan.json"].data), `"name": "Export"`, "\"name\": \"Exp\xffort\"", 1))
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/plan-freeze", []gates.Outcome{gates.Failed}, ".swarm/plan.json", "Exp\uFFFDort")
		}},
		{name: "invalid UTF-8: ledger", mutate: func(g *hostileGit, b, h hostileTree) {
			l := string(h[".swarm/plan-ledger.jsonl"].data)
			last := l[strings.LastIndex(strings.TrimSuffix(l, "\n"), "\n")+1:]
			// seq 5 records a change to a plan hash with a 0xff in it:
			// no replayed plan has that hash.
			after := `"plan_hash_after":"95d8527b`
			ev := strings.NewReplacer(`"seq":4`, `"seq":5`, `"plan_hash_before":"413e21829a`, `"plan_hash_before":"95d8527b`, after, after+"\xff").Replace(last)
			h[".swarm/plan-ledger.jsonl"] = file(l + ev)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/plan-freeze", []gates.Outcome{gates.Failed}, ".swarm/plan-ledger.jsonl:5")
		}},
		{name: "invalid UTF-8: evidence", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/evidence/1.2.json"] = file(strings.Replace(evidence12, `"verdict":"approved"`, "\"verdict\":\"appr\xffoved\"", 1))
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Failed}, ".swarm/evidence/1.2.json")
		}},
		{name: "invalid UTF-8: names and lines", mutate: func(g *hostileGit, b, h hostileTree) {
			h["cmd/export/\xff\xfe.go"] = file("package main // TODO \xff\xfe\n")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantFinding(t, r, err, "swarm/placeholders", "cmd/export/\xff\xfe.go", 1)
		}},
		{name: "code symlinks", mutate: func(g *hostileGit, b, h hostileTree) {
			h["cmd/export/alias.go"] = symlink("main.go")
			h["cmd/export/impl.go"] = symlink("notes.txt")
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			// The streaming readers must leave a symlink's target in the
			// change set: a link to same-language source is fine.
			wantFinding(t, r, err, "swarm/placeholders", "cmd/export/impl.go", 1)
			wantFinding(t, r, err, "swarm/sast", "cmd/export/impl.go", 1)
			wantNoFindingOn(t, r, "cmd/export/alias.go")
		}},
		{name: "submodule in the change set", mutate: func(g *hostileGit, b, h hostileTree) {
			h["cmd/export/vendored"] = gitlink(strings.Repeat("ab", 20))
			h["third_party/lib"] = gitlink(strings.Repeat("cd", 20))
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/scope", []gates.Outcome{gates.Failed}, "third_party/lib")
			// In scope, but no gate reads another commit's files: not scanned.
			wantFinding(t, r, err, "swarm/placeholders", "cmd/export/vendored", 1)
			wantFinding(t, r, err, "swarm/sast", "cmd/export/vendored", 1)
			wantMention(t, r, err, "cmd/export/vendored is a git submodule, whose files (another commit's, which can be any repository's) no gate reads")
		}},
		{name: "submodule in .swarm: evidence", mutate: func(g *hostileGit, b, h hostileTree) {
			dropPrefix(h, ".swarm/evidence/")
			h[".swarm/evidence"] = gitlink(strings.Repeat("ab", 20))
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/evidence", []gates.Outcome{gates.Error}, ".swarm/evidence", "submodule")
		}},
		{name: "submodule in .swarm: plan.json", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = gitlink(strings.Repeat("ab", 20))
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			for _, name := range planGates {
				wantGate(t, r, err, name, []gates.Outcome{gates.Error}, ".swarm/plan.json", "submodule")
			}
		}},
		{name: "case-only rename", mutate: func(g *hostileGit, b, h hostileTree) {
			b["internal/export/CSV.go"] = h["internal/export/csv.go"]
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/scope", []gates.Outcome{gates.Failed}, "internal/export/CSV.go", "renamed away to internal/export/csv.go")
		}},
		{name: "LFS pointer: plan.json", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = file(lfs)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			for _, name := range planGates {
				wantGate(t, r, err, name, []gates.Outcome{gates.Error}, ".swarm/plan.json", "is a Git LFS pointer", "commit .swarm/ without LFS")
			}
		}},
		{name: "LFS pointer: ledger", mutate: func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan-ledger.jsonl"] = file(lfs)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			wantGate(t, r, err, "swarm/plan-freeze", []gates.Outcome{gates.Error}, ".swarm/plan-ledger.jsonl", "is a Git LFS pointer", "commit .swarm/ without LFS")
		}},
		{name: "LFS pointer: source file", mutate: func(g *hostileGit, b, h hostileTree) {
			h["cmd/export/model.go"] = file(lfs)
			h["cmd/export/logo.png"] = file(lfs)
		}, check: func(t *testing.T, _ string, r *report.Report, err error) {
			// The Go code is not in the repository: both gates fail closed.
			wantGate(t, r, err, "swarm/placeholders", []gates.Outcome{gates.Failed}, "cmd/export/model.go", "Git LFS pointer: content not in the repository")
			wantGate(t, r, err, "swarm/sast", []gates.Outcome{gates.Failed}, "cmd/export/model.go", "Git LFS pointer: content not in the repository")
			wantNoFindingOn(t, r, "cmd/export/logo.png")
		}},
	}
	base, head := demoTrees(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, h := base.clone(), head.clone()
			g := newHostileGit(t)
			if c.mutate != nil {
				c.mutate(g, b, h)
			}
			bc := g.commit("main", g.writeTree(b), "")
			g.commit("swarm/phase-1", g.writeTree(h), bc)
			var sarif []string
			if c.sarif != nil {
				sarif = c.sarif(t, t.TempDir())
			}
			for _, engine := range []string{"git", "go-git"} {
				t.Run(engine, func(t *testing.T) {
					gs := c.gates
					if gs == nil {
						gs = gates.Default()
					}
					r, err := Check(context.Background(), Options{RepoDir: g.dir, Base: "main", Head: "swarm/phase-1", DiffEngine: engine, SARIF: sarif, Gates: gs})
					if err != nil {
						t.Logf("Check refused: %s", clip(err.Error()))
					} else {
						t.Logf("verdict %s (exit %d):\n%s", r.Outcome, r.ExitCode, dump(r))
					}
					noInternalError(t, r)
					c.check(t, engine, r, err)
				})
			}
		})
	}
}

// longPath is a path of about 4,000 bytes inside the scope of task 1.2
// (cmd/export/): 200 nested folders and a 3,600-byte file name.
func longPath() string {
	return "cmd/export/" + strings.Repeat("d/", 200) + strings.Repeat("x", 3600) + ".go"
}

// noInternalError fails when a gate panicked (gates.Run reports a panic as
// an internal error).
func noInternalError(t *testing.T, r *report.Report) {
	t.Helper()
	if r == nil {
		return
	}
	for _, g := range r.Gates {
		if strings.Contains(g.Title, "internal error") || strings.Contains(g.Summary, "internal error in swarm-gate") {
			t.Errorf("%s panicked: %s", g.Name, g.Title)
		}
	}
}

// wantGate asserts that the gate's outcome is one of want and that its
// title, summary or findings mention every string in mention.
func wantGate(t *testing.T, r *report.Report, err error, name string, want []gates.Outcome, mention ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	g := gateResult(r, name)
	if g == nil {
		t.Fatalf("no %s in the report:\n%s", name, dump(r))
	}
	ok := false
	for _, o := range want {
		ok = ok || g.Outcome == o
	}
	if !ok {
		t.Errorf("%s: %s, want one of %v:\n%s", name, g.Outcome, want, dump(r))
	}
	text := gateText(g)
	for _, m := range mention {
		if !strings.Contains(text, m) {
			t.Errorf("%s does not mention %q:\n%s", name, m, text)
		}
	}
	if r.Outcome == gates.Passed || r.ExitCode == report.ExitPassed {
		t.Errorf("overall %s (exit %d): a hostile repository passed", r.Outcome, r.ExitCode)
	}
}

// wantMention asserts that some gate mentions every string in mention and
// is not passed.
func wantMention(t *testing.T, r *report.Report, err error, mention ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	for i := range r.Gates {
		g := &r.Gates[i]
		text := gateText(g)
		all := true
		for _, m := range mention {
			all = all && strings.Contains(text, m)
		}
		if all && g.Outcome != gates.Passed {
			return
		}
	}
	t.Errorf("no failing gate mentions %q:\n%s", mention, dump(r))
}

// wantCheckError asserts that Check refused to start (exit code 2) with an
// error mentioning every string in mention.
func wantCheckError(t *testing.T, r *report.Report, err error, mention ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Check evaluated (%s), want a refusal:\n%s", r.Outcome, dump(r))
	}
	for _, m := range mention {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("the error does not mention %q: %v", m, err)
		}
	}
}

// wantFinding asserts a finding of the gate at path (and line).
func wantFinding(t *testing.T, r *report.Report, err error, name, path string, line int) {
	t.Helper()
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	g := gateResult(r, name)
	if g == nil {
		t.Fatalf("no %s in the report", name)
	}
	for _, f := range g.Findings {
		if f.Path == path && f.Line == line {
			return
		}
	}
	t.Errorf("%s (%s) has no finding at %q:%d:\n%s", name, g.Outcome, clip(path), line, dump(r))
}

// wantNoFindingOn asserts that no gate reports anything on path (the
// placeholder and SAST scans must not report nonsense on it).
func wantNoFindingOn(t *testing.T, r *report.Report, path string) {
	t.Helper()
	if r == nil {
		t.Fatal("no report")
	}
	for _, g := range r.Gates {
		for _, f := range g.Findings {
			if f.Path == path && g.Name != "swarm/scope" {
				t.Errorf("%s reports on %s: %s %s", g.Name, path, f.Rule, f.Message)
			}
		}
	}
}

func gateResult(r *report.Report, name string) *gates.Result {
	if r == nil {
		return nil
	}
	for i := range r.Gates {
		if r.Gates[i].Name == name {
			return &r.Gates[i]
		}
	}
	return nil
}

// gateText is everything a gate says, for "mentions" checks.
func gateText(g *gates.Result) string {
	var b strings.Builder
	b.WriteString(g.Title + "\n" + g.Summary + "\n")
	for _, f := range g.Findings {
		b.WriteString(report.Location(f) + " " + f.Rule + " " + f.Message + "\n")
	}
	return b.String()
}

// dump renders a report for failure messages, long names clipped.
func dump(r *report.Report) string {
	if r == nil {
		return "(no report)"
	}
	var b strings.Builder
	for i := range r.Gates {
		g := &r.Gates[i]
		b.WriteString("  " + g.Name + " " + string(g.Outcome) + ": " + clip(g.Title) + "\n")
		for _, f := range g.Findings {
			b.WriteString("    " + clip(report.Location(f)) + " " + f.Rule + " " + clip(f.Message) + "\n")
		}
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
