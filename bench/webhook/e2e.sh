#!/usr/bin/env bash
# Runs the GitHub App server's end-to-end benchmark (BenchmarkAppEndToEnd in
# e2e_test.go, see bench/webhook/README.md): builds swarm-gate and the
# benchmark, then runs each scenario once, in a process of its own, against
# `swarm-gate serve` in a child process and the fake GitHub (internal/ghfake)
# in the benchmark's, with the deliveries sent from a third process, and
# prints the benchmark's lines and one JSON object per scenario.
#
#   bench/webhook/e2e.sh                          # burst, paced, coalesce
#   E2E_SCENARIOS=burst bench/webhook/e2e.sh      # one of them
#   E2E_WORKDIR=/dev/shm bench/webhook/e2e.sh     # the server's work dir on a tmpfs
#   E2E_FAKE_NICE=10 bench/webhook/e2e.sh         # the fake GitHub at a lower priority
#   E2E_ARGS="-e2e.rate 300 -e2e.prs 600" bench/webhook/e2e.sh
#
# Environment (all optional):
#   E2E_SCENARIOS  the scenarios to run, by name, separated by spaces
#                  (default: burst paced coalesce)
#   E2E_WORKDIR    the server's SWARM_GATE_WORK_DIR and TMPDIR (default: the
#                  benchmark's temporary directory, under $TMPDIR or /tmp)
#   E2E_FAKE_NICE  the fake GitHub's nice value while the deliveries are sent
#                  (-e2e.fake-nice; default 0: the fake, the server and the
#                  sender at one priority). A positive value gives the server
#                  and the sender the CPU first, as if GitHub ran elsewhere.
#   E2E_ARGS       more -e2e.* flags (see bench/webhook/README.md)
#   E2E_BIN        the swarm-gate binary to measure (default: build ./cmd/swarm-gate)
#   E2E_WORK       scratch folder (default a new /tmp/swarm-gate-e2e-bench.*)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scenarios=${E2E_SCENARIOS-burst paced coalesce}
[ -n "${scenarios// /}" ] || { echo "E2E_SCENARIOS is empty: name burst, paced or coalesce, or unset it for all three" >&2; exit 2; }
fake_nice=${E2E_FAKE_NICE:-0}
case $fake_nice in
[0-9] | 1[0-9]) ;;
*) echo "E2E_FAKE_NICE=$fake_nice: want a nice value from 0 to 19" >&2; exit 2 ;;
esac
for sc in $scenarios; do
	case $sc in burst | paced | coalesce) ;; *) echo "E2E_SCENARIOS: unknown scenario $sc (want burst, paced or coalesce)" >&2; exit 2 ;; esac
done
work=${E2E_WORK:-$(mktemp -d /tmp/swarm-gate-e2e-bench.XXXXXX)}
mkdir -p "$work"

[ -d "$root/../shared/github" ] || { echo "no ../shared/github beside the repository: clone ../shared (GitHub's OpenAPI subset and example deliveries)" >&2; exit 2; }
command -v git >/dev/null || { echo "git is missing: the fake GitHub serves the repositories with git upload-pack" >&2; exit 2; }

bin=${E2E_BIN:-$work/swarm-gate}
[ -n "${E2E_BIN:-}" ] || (cd "$root" && go build -o "$bin" ./cmd/swarm-gate)
(cd "$root/bench/webhook" && go test -c -o "$work/webhook.test" .)

echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3), $(git --version), $(date -u +%FT%TZ)"
workdir_flag=()
[ -n "${E2E_WORKDIR:-}" ] && workdir_flag=(-e2e.workdir "$E2E_WORKDIR")
for sc in $scenarios; do
	# One process per scenario: a process that lowered its priority for one
	# scenario cannot raise it back for the next without privileges.
	# shellcheck disable=SC2086 # E2E_ARGS is a list of flags
	(cd "$root/bench/webhook" && "$work/webhook.test" -test.run '^$' -test.bench "AppEndToEnd/^${sc}\$" -test.benchtime 1x \
		-test.timeout 30m -e2e.bin "$bin" -e2e.out "$work/results.jsonl" -e2e.fake-nice "$fake_nice" "${workdir_flag[@]}" ${E2E_ARGS:-}) |
		grep -v '^ *e2e_test.go:[0-9]*: {"scenario"' | tee -a "$work/bench.txt"
done
echo "## results (one JSON object per scenario)"
cat "$work/results.jsonl"
echo "(benchmark output and results in $work)"
