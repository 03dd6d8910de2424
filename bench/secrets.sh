#!/usr/bin/env bash
# Times swarm/sast, which now runs the secret scan (gitleaks' default rules
# on every added line), against `git diff | rg` for secret-like words on the
# same synthetic pull request (see bench/README.md, "The secret scan").
#
#   bench/secrets.sh /tmp/sgb-full   # a repository bench/run.sh or bench/gen made
#
# Environment (all optional): BENCH_RUNS (default 5), BENCH_WORK (scratch
# directory, default a new one under /tmp), BENCH_SRC (swarm-gate tree to
# build, default this checkout), BENCH_OUT (also write the report there).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$(cd "${BENCH_SRC:-$root}" && pwd)
runs=${BENCH_RUNS:-5}
work=${BENCH_WORK:-$(mktemp -d /tmp/swarm-gate-secrets.XXXXXX)}
repo=${1:?usage: bench/secrets.sh REPO (generate one with bench/run.sh or go run ./bench/gen -out REPO)}
base=main
head=swarm/phase-1
# The words most of gitleaks' rules key on, case-insensitively.
pattern='(?i)(key|token|secret|passw|auth|akia|-----begin)'
mkdir -p "$work"
die() {
	printf 'bench: %s\n' "$*" >&2
	exit 1
}
command -v rg >/dev/null || die "rg is missing: bench/run.sh installs it (apt-get install ripgrep)"
[[ -x /usr/bin/time ]] || die "GNU time is missing: apt-get install time"
git -C "$repo" rev-parse -q --verify "$head^{commit}" >/dev/null || die "$repo has no $head: generate it with bench/run.sh $repo"
repo=$(cd "$repo" && pwd)
(cd "$src" && go build -o "$work/swarm-gate" ./cmd/swarm-gate)
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?')

pipeline_a() { "$work/swarm-gate" check --repo "$repo" --base "$base" --head "$head" --gates swarm/sast --format json; }
pipeline_b() { git -C "$repo" diff "$base...$head" | rg -n "$pattern"; }
export -f pipeline_a pipeline_b
export work repo base head pattern

rc=0
pipeline_a >"$work/check.json" 2>"$work/check.err" || rc=$?
[[ $rc -le 1 ]] || die "swarm-gate check exited $rc: $(cat "$work/check.err")"
(set -o pipefail && pipeline_b >"$work/rg.txt") || [[ $? -le 1 ]] || die "the reference pipeline failed"

timeit() {
	local name=$1 rc=0
	/usr/bin/time -v -o "$work/$name.time" bash -c "set -o pipefail; pipeline_$name >/dev/null" 2>"$work/$name.err" || rc=$?
	[[ $rc -le 1 ]] || die "pipeline $name exited $rc: $(cat "$work/$name.err")"
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
		/Maximum resident set size/ { kb = $2 }
		/User time \(seconds\)|System time \(seconds\)/ { cpu += $2 }
		END { printf "%.2f %d %.2f\n", s, kb, cpu }' "$work/$name.time" >>"$work/$name.times"
}
rm -f "$work"/{a,b}.times
load=$(cut -d' ' -f1-3 /proc/loadavg)
maxload=0
for ((i = 1; i <= runs; i++)); do
	timeit a
	timeit b
	maxload=$(awk -v m="$maxload" '{print ($1 > m) ? $1 : m}' /proc/loadavg)
done
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { cut -d' ' -f"$2" "$work/$1.times"; }
med_a=$(col a 1 | median) med_b=$(col b 1 | median)
cpu_a=$(col a 3 | median) cpu_b=$(col b 3 | median)
rss_a=$(col a 2 | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}')
all() { col "$1" 1 | paste -sd' ' | sed 's/ /, /g'; }
ratio=$(awk -v a="$med_a" -v b="$med_b" 'BEGIN {printf "%.2f", a / b}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r <= 3.0) ? "met" : "MISSED"}')
secrets=$( (grep -o '"rule": *"secret/' "$work/check.json" || true) | wc -l)
scanned=$(grep -o -m1 '[0-9]* added lines of [0-9]* text files for secrets' "$work/check.json" | head -1 || true)
# The stages in process (bench/profile), once: the ChangeSet, the
# placeholder scan and the secret scan alone, so that the secret scan's own
# cost is apart from the Tier A rules that (a) also runs.
stages=$(cd "$src" && go run -tags benchprofile ./bench/profile -repo "$repo" -split=false 2>&1 | grep -E '^[0-9] ' | sed 's/   heap.*//' || true)
report() {
	cat <<EOR
## Secret scan, run of $(date -u '+%Y-%m-%d %H:%M UTC') at $rev

Machine: $(nproc) CPUs, $(go version | sed 's/^go version //'), $(rg --version | head -1). Load average
before: $load; highest 1-minute load after a round: $maxload. $runs timed runs each, taking turns,
after one warm-up. Command: \`BENCH_RUNS=$runs bench/secrets.sh $repo\`.

| pipeline | median wall | wall of each run (s) | median CPU | max RSS |
|---|---:|---|---:|---:|
| (a) \`swarm-gate check --gates swarm/sast --format json\` (Tier A rules and the secret scan) | ${med_a} s | $(all a) | ${cpu_a} s | ${rss_a} MB |
| (b) \`git diff $base...$head \| rg -n '$pattern'\` | ${med_b} s | $(all b) | ${cpu_b} s | - |

- Ratio (a)/(b) of the median wall times: **${ratio}x** (target at most 3x: $verdict).
- (a) scanned ${scanned:-?} and reported $secrets secret findings; (b) matched $(wc -l <"$work/rg.txt") lines.

Stages in process, one run of \`bench/profile\` after the timed runs (wall seconds):

\`\`\`
$stages
\`\`\`
EOR
}
report
[[ -z ${BENCH_OUT:-} ]] || report >"$BENCH_OUT"
