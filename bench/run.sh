#!/usr/bin/env bash
# Times swarm-gate's placeholder gate against a reference pipeline on a
# synthetic pull request (see bench/README.md).
#
#   bench/run.sh                  # full size: 10,000 files, 1,000,000 added lines
#   bench/run.sh /tmp/my-repo     # reuse (or create) the repository there
#
# Environment (all optional):
#   BENCH_REPO   repository to reuse or create (same as the argument)
#   BENCH_RUNS   timed runs of each pipeline (default 3)
#   BENCH_FILES  changed files when generating (default 10000)
#   BENCH_LINES  added lines when generating (default 1000000)
#   BENCH_SEED   generator seed (default 1)
#   BENCH_WORK   scratch directory (default: a new one under /tmp, kept)
#   BENCH_SRC    swarm-gate source tree to build (default: this checkout), e.g.
#                a clean `git clone` of a commit, to time it rather than
#                uncommitted work
#   BENCH_OUT    also write the Markdown report to this file
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$(cd "${BENCH_SRC:-$root}" && pwd)
runs=${BENCH_RUNS:-3}
files=${BENCH_FILES:-10000}
lines=${BENCH_LINES:-1000000}
seed=${BENCH_SEED:-1}
work=${BENCH_WORK:-$(mktemp -d /tmp/swarm-gate-bench.XXXXXX)}
repo=${1:-${BENCH_REPO:-$work/repo}}
base=main
head=swarm/phase-1
pattern='(TODO|FIXME|XXX|HACK|TBD)'
mkdir -p "$work"

log() { printf '%s\n' "bench: $*" >&2; }
die() {
	log "$*"
	exit 1
}

# install PACKAGE: a Debian package, with sudo only when not root.
install() {
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			die "$1 is missing and installing it needs root: apt-get install $1"
		fi
	fi
	command -v apt-get >/dev/null || die "$1 is missing and there is no apt-get to install it"
	log "installing $1 (apt-get)"
	if ! "${sudo[@]}" apt-get install -y -qq "$1" >/dev/null 2>&1; then
		"${sudo[@]}" apt-get update -qq >/dev/null
		"${sudo[@]}" apt-get install -y -qq "$1" >/dev/null
	fi
}

command -v rg >/dev/null || install ripgrep
[[ -x /usr/bin/time ]] || install time
command -v go >/dev/null || die "go is not on PATH"
command -v git >/dev/null || die "git is not on PATH"

log "building swarm-gate (from $src) and the generator into $work"
(cd "$src" && go build -o "$work/swarm-gate" ./cmd/swarm-gate)
(cd "$root" && go build -o "$work/gen" ./bench/gen)
# Which swarm-gate this is: the commit, and whether the tree had changes
# (read-only: no index refresh).
if rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null); then
	if [[ -n $(GIT_OPTIONAL_LOCKS=0 git -C "$src" status --porcelain -- . ':!bench' 2>/dev/null) ]]; then
		rev="$rev with uncommitted changes"
	fi
else
	rev="not a git checkout"
fi

if [[ -d $repo/.git ]] && git -C "$repo" rev-parse -q --verify "$head^{commit}" >/dev/null; then
	log "reusing $repo"
else
	log "generating $repo ($files files, $lines added lines, seed $seed)"
	"$work/gen" -out "$repo" -files "$files" -lines "$lines" -seed "$seed" >&2
fi
repo=$(cd "$repo" && pwd)

# What the pull request adds, from the generator's manifest (or from git).
manifest=$repo/.git/swarm-gate-bench.json
field() { sed -n "s/^  \"$1\": \([0-9]*\).*/\1/p" "$manifest"; }
if [[ -f $manifest ]]; then
	added=$(field diff_added) # what git's diff adds (the generator's plan may differ by a line or two)
	placeholders=$(field placeholder_lines)
	decoys_rg=$(field decoy_lines_rg)
	changed=$(field changed_files)
else
	read -r changed added < <(git -C "$repo" diff --numstat "$base...$head" | awk '{n++; a+=$1} END {print n, a}')
	placeholders='?' decoys_rg='?'
fi

pipeline_a() { "$work/swarm-gate" check --repo "$repo" --base "$base" --head "$head" --gates swarm/placeholders --format json; }
pipeline_b() { git -C "$repo" diff "$base...$head" | rg -n "$pattern"; }
# The diff swarm-gate itself asks git for (internal/source/gitcli.go), alone:
# how much of (a) is git's own work. Informational, not part of the ratio.
pipeline_c() { git -C "$repo" diff -M -C --full-index -U1 --no-color --no-ext-diff --no-textconv "$base...$head"; }
export -f pipeline_a pipeline_b pipeline_c
export work repo base head pattern

# Warm-up: one untimed run of each (page cache, pack index), keeping the
# output for the sanity counts.
log "warming up"
rc=0
pipeline_a >"$work/check.json" 2>"$work/check.err" || rc=$?
[[ $rc -le 1 ]] || die "swarm-gate check exited $rc: $(cat "$work/check.err")"
rc=0
(set -o pipefail && pipeline_b >"$work/rg.txt") || rc=$?
[[ $rc -le 1 ]] || die "the reference pipeline exited $rc"
pipeline_c >/dev/null 2>&1

# Findings of the comment rules (what the generator plants: comments in code,
# prose TODO:/FIXME: lines in Markdown, which the prose rule reports under the
# same rule ids as warnings), by location when jq is there; other rules (code
# stubs and the like) are counted apart.
comment_rule='"rule": *"placeholder/comment-'
findings=$( (grep -o '"rule": *"placeholder/' "$work/check.json" || true) | wc -l)
findings_comment=$( (grep -o "$comment_rule" "$work/check.json" || true) | wc -l)
other_rules=''
check_where=''
if command -v jq >/dev/null; then
	sel='.gates[] | select(.name == "swarm/placeholders") | .findings[]'
	other_rules=$(jq -r "[$sel | select(.rule | startswith(\"placeholder/comment-\") | not) | .rule] | group_by(.) | map(\"\\(.[0]) \\(length)\") | join(\", \")" "$work/check.json")
	expected=$repo/.git/swarm-gate-bench-placeholders.txt
	if [[ -f $expected ]]; then
		jq -r "$sel | select(.rule | startswith(\"placeholder/comment-\")) | \"\\(.path):\\(.line)\"" "$work/check.json" | LC_ALL=C sort -u >"$work/found.txt"
		LC_ALL=C sort -u "$expected" >"$work/expected.txt"
		missed=$(LC_ALL=C comm -23 "$work/expected.txt" "$work/found.txt" | wc -l)
		extra=$(LC_ALL=C comm -13 "$work/expected.txt" "$work/found.txt" | wc -l)
		check_where="Location by location: $missed planted placeholder lines have no comment finding, $extra comment findings are on lines the generator did not plant."
		if [[ $missed -gt 0 ]]; then
			# shellcheck disable=SC2016 # the backquotes are Markdown
			check_where+=" Missed, for example: $(LC_ALL=C comm -23 "$work/expected.txt" "$work/found.txt" | head -5 | sed 's/.*/`&`/' | paste -sd' ' | sed 's/ /, /g')."
		fi
	fi
fi
scanned=$(grep -o 'Scanned [0-9]* added line' "$work/check.json" | grep -o '[0-9][0-9]*' | head -1 || true)
rg_total=$(wc -l <"$work/rg.txt")
rg_added=$(grep -c '^[0-9]*:+' "$work/rg.txt" || true)
rg_removed=$(grep -c '^[0-9]*:-' "$work/rg.txt" || true)
rg_other=$((rg_total - rg_added - rg_removed))

# timeit NAME: runs pipeline_NAME under /usr/bin/time -v, output discarded;
# appends "wall-seconds max-rss-kbytes cpu-seconds" to $work/NAME.times (CPU
# is user+sys of the whole pipeline, children included).
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

rm -f "$work"/{a,b,c}.times
load=$(cut -d' ' -f1-3 /proc/loadavg)
maxload=0
for ((i = 1; i <= runs; i++)); do
	log "run $i/$runs"
	timeit a
	timeit b
	timeit c
	maxload=$(awk -v m="$maxload" '{print ($1 > m) ? $1 : m}' /proc/loadavg)
done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { cut -d' ' -f"$2" "$work/$1.times"; }
med_a=$(col a 1 | median) med_b=$(col b 1 | median) med_c=$(col c 1 | median)
min_a=$(col a 1 | sort -n | head -1) min_b=$(col b 1 | sort -n | head -1) min_c=$(col c 1 | sort -n | head -1)
cpu_a=$(col a 3 | median) cpu_b=$(col b 3 | median) cpu_c=$(col c 3 | median)
rss() { cut -d' ' -f2 "$work/$1.times" | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}'; }
rss_a=$(rss a) rss_b=$(rss b) rss_c=$(rss c)
all() { cut -d' ' -f1 "$work/$1.times" | paste -sd' ' | sed 's/ /, /g'; }
rate() { awk -v n="$added" -v s="$1" 'BEGIN {if (s > 0) printf "%.0f", n / s; else print "-"}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
ratio=$(div "$med_a" "$med_b") ratio_min=$(div "$min_a" "$min_b") ratio_cpu=$(div "$cpu_a" "$cpu_b")
verdict_time=$(awk -v r="$ratio" 'BEGIN {print (r <= 1.5) ? "met" : "MISSED"}')
verdict_rss=$(awk -v m="$rss_a" 'BEGIN {print (m < 300) ? "met" : "MISSED"}')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

report() {
	cat <<EOF
## Run of $(date -u '+%Y-%m-%d %H:%M UTC')

Machine: $(nproc) CPUs ($cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);
$(go version | sed 's/^go version //'); $(git --version); $(rg --version | head -1).
swarm-gate: built from \`$src\` ($rev). Load average before the runs: $load;
highest 1-minute load average seen after a round: $maxload (this machine has $(nproc) CPUs: above
about 1, other work was competing with the benchmark and wall times are noisy).
Repository: \`$repo\`: $changed changed files, $added added lines; $runs timed runs of each
pipeline after one untimed warm-up run, the three pipelines taking turns.

| pipeline | median wall | min wall | wall of each run (s) | median CPU (user+sys) | max RSS | added lines/s (median wall) |
|---|---:|---:|---|---:|---:|---:|
| (a) \`swarm-gate check --gates swarm/placeholders --format json\` | ${med_a} s | ${min_a} s | $(all a) | ${cpu_a} s | ${rss_a} MB | $(rate "$med_a") |
| (b) \`git diff $base...$head \| rg -n '${pattern//|/\\|}'\` | ${med_b} s | ${min_b} s | $(all b) | ${cpu_b} s | ${rss_b} MB | $(rate "$med_b") |
| (c) git's part of (a) alone: \`git diff -M -C --full-index -U1 ...\` | ${med_c} s | ${min_c} s | $(all c) | ${cpu_c} s | ${rss_c} MB | $(rate "$med_c") |

- Ratio (a)/(b) of the median wall times: **${ratio}x** (target at most 1.5x, issue 19: $verdict_time).
  Of the fastest runs: ${ratio_min}x; of the median CPU times: ${ratio_cpu}x.
- Peak RSS of (a): **${rss_a} MB** (target under 300 MB: $verdict_rss).
- Max RSS is what \`/usr/bin/time -v\` reports: the largest single process of the
  pipeline (for (a) the larger of swarm-gate and the \`git diff\` it runs; for (b)
  of git and rg), not their sum.

Sanity check (the counts differ by design: rg sees every line of the diff text and matches
the words anywhere, swarm-gate only looks at comments on added lines):

- (a) scanned ${scanned:-?} added lines and reported **$findings** findings, **$findings_comment**
  of them from the comment rules (placeholder/comment-*); the generator put **$placeholders**
  placeholder comments on added lines.${other_rules:+ Other rules: $other_rules.}
  $check_where
- (b) matched **$rg_total** lines: $rg_added added lines (the placeholders plus $decoys_rg decoys
  with a marker word outside a comment, such as \`"TODO"\` in a string), $rg_removed removed
  lines, and $rg_other context lines (placeholders already on $base next to a change).
EOF
}
report
if [[ -n ${BENCH_OUT:-} ]]; then
	report >"$BENCH_OUT"
fi
log "scratch files in $work"
