#!/usr/bin/env bash
# How swarm-gate's time and peak memory scale with the size of a pull
# request, next to the git diff it runs (see bench/README.md, issue 25).
#
#   bench/scale.sh                    # generates 100k, 1M and 3M added lines
#   bench/scale.sh REPO...            # repositories bench/gen made
#
# Environment (all optional):
#   BENCH_RUNS   timed runs of each pipeline per repository (default 3)
#   BENCH_WORK   scratch directory (default: a new one under /tmp, kept)
#   BENCH_SRC    swarm-gate source tree to build (default: this checkout)
#   BENCH_BIN    a swarm-gate binary to time instead of building one
#   BENCH_OUT    also write the Markdown report to this file
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$(cd "${BENCH_SRC:-$root}" && pwd)
runs=${BENCH_RUNS:-3}
work=${BENCH_WORK:-$(mktemp -d /tmp/swarm-gate-scale.XXXXXX)}
mkdir -p "$work"
base=main
head=swarm/phase-1

log() { printf '%s\n' "bench: $*" >&2; }
die() {
	log "$*"
	exit 1
}
[[ -x /usr/bin/time ]] || die "GNU time (/usr/bin/time) is missing: apt-get install time"

bin=${BENCH_BIN:-}
if [[ -z $bin ]]; then
	log "building swarm-gate (from $src) into $work"
	(cd "$src" && go build -o "$work/swarm-gate" ./cmd/swarm-gate)
	bin=$work/swarm-gate
fi
if [[ -n ${BENCH_BIN:-} ]]; then
	rev="given with BENCH_BIN"
else
	rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
fi

repos=("$@")
if [[ ${#repos[@]} -eq 0 ]]; then
	(cd "$root" && go build -o "$work/gen" ./bench/gen)
	for spec in 1000:100000 10000:1000000 10000:3000000; do
		r=$work/repo-${spec#*:}
		if [[ ! -d $r/.git ]]; then
			log "generating $r (${spec%:*} files, ${spec#*:} added lines)"
			"$work/gen" -out "$r" -files "${spec%:*}" -lines "${spec#*:}" -seed 1 >&2
		fi
		repos+=("$r")
	done
fi

# The pipelines: git's diff alone (the floor: the diff swarm-gate runs,
# internal/source/gitcli.go), the placeholder gate, every default gate, and
# swarm/plan-freeze (which needs no diff).
run_pipeline() {
	local repo=$1 name=$2
	case $name in
	diff) git -C "$repo" diff -M -C --full-index -U1 --no-color --no-ext-diff --no-textconv "$base...$head" ;;
	placeholders) "$bin" check --repo "$repo" --base "$base" --head "$head" --gates swarm/placeholders --format json ;;
	all) "$bin" check --repo "$repo" --base "$base" --head "$head" --format json ;;
	plan-freeze) "$bin" check --repo "$repo" --base "$base" --head "$head" --gates swarm/plan-freeze --format json ;;
	esac
}
export -f run_pipeline
export bin base head
pipelines=(diff placeholders all plan-freeze)

# timeit REPO NAME: appends "wall rss-kB cpu" to $work/NAME.<repo>.times.
timeit() {
	local repo=$1 name=$2 rc=0 t
	t=$work/$name.$(basename "$repo")
	/usr/bin/time -v -o "$t.time" bash -c "run_pipeline '$repo' $name >/dev/null" 2>"$t.err" || rc=$?
	[[ $rc -le 1 ]] || die "$name on $repo exited $rc: $(tail -3 "$t.err")"
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
		/Maximum resident set size/ { kb = $2 }
		/User time \(seconds\)|System time \(seconds\)/ { cpu += $2 }
		END { printf "%.2f %d %.2f\n", s, kb, cpu }' "$t.time" >>"$t.times"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
maxload=0
rows=()
for repo in "${repos[@]}"; do
	repo=$(cd "$repo" && pwd)
	added=$(git -C "$repo" diff --numstat "$base...$head" | awk '{a += $1} END {print a}')
	files=$(git -C "$repo" diff --numstat "$base...$head" | wc -l)
	log "$repo: $files files, $added added lines; warming up"
	for p in "${pipelines[@]}"; do
		run_pipeline "$repo" "$p" >/dev/null 2>&1 || true
		rm -f "$work/$p.$(basename "$repo").times"
	done
	for ((i = 1; i <= runs; i++)); do
		log "$(basename "$repo"): run $i/$runs"
		for p in "${pipelines[@]}"; do
			timeit "$repo" "$p"
		done
		maxload=$(awk -v m="$maxload" '{print ($1 > m) ? $1 : m}' /proc/loadavg)
	done
	floor=
	for p in "${pipelines[@]}"; do
		t=$work/$p.$(basename "$repo").times
		wall=$(cut -d' ' -f1 "$t" | median)
		cpu=$(cut -d' ' -f3 "$t" | median)
		rss=$(cut -d' ' -f2 "$t" | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}')
		each=$(cut -d' ' -f1 "$t" | paste -sd' ' | sed 's/ /, /g')
		[[ -n $floor ]] || floor=$wall
		ratio=$(awk -v a="$wall" -v b="$floor" 'BEGIN {printf "%.2fx", a / b}')
		rows+=("| $(printf "%'d" "$added") | $p | $wall s | $ratio | $each | $cpu s | $rss MiB |")
	done
done

report() {
	cat <<EOF2
## Scaling run of $(date -u '+%Y-%m-%d %H:%M UTC')

Machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);
$(go version | sed 's/^go version //'); $(git --version). swarm-gate: \`$bin\` ($rev).
Load average before the runs: $load_before; highest 1-minute load average seen after a round:
$maxload. $runs timed runs of each pipeline per repository after one untimed warm-up, the
pipelines taking turns. Max RSS is the largest single process (\`/usr/bin/time -v\`), the
largest of the runs; the ratio is the median wall time over the median of \`diff\`.

Pipelines: \`diff\` = \`git diff -M -C --full-index -U1 --no-color --no-ext-diff --no-textconv
main...swarm/phase-1\` (the diff swarm-gate runs, alone); \`placeholders\` = \`swarm-gate check
--gates swarm/placeholders --format json\`; \`all\` = \`swarm-gate check --format json\` (every
default gate); \`plan-freeze\` = \`swarm-gate check --gates swarm/plan-freeze --format json\`.

| added lines | pipeline | median wall | vs diff | wall of each run | median CPU (user+sys) | max RSS |
|---:|---|---:|---:|---|---:|---:|
$(printf '%s\n' "${rows[@]}")
EOF2
}
report
if [[ -n ${BENCH_OUT:-} ]]; then
	report >"$BENCH_OUT"
fi
log "scratch files in $work"
