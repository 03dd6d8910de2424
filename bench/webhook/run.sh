#!/usr/bin/env bash
# Load-tests swarm-gate's webhook intake (see bench/webhook/README.md): starts
# `bench/webhook -serve` (the webhook server with a no-op Evaluator) under
# /usr/bin/time -v, replays GitHub's example deliveries at each rate, stops
# the server and prints every run's JSON, the server's summary and its peak
# RSS.
#
#   bench/webhook/run.sh                 # 500/s, then as fast as it goes
#   WH_RATES="100 500 1000" bench/webhook/run.sh
#
# Environment (all optional):
#   WH_RATES        rates to run, deliveries/s; "max" = 100000/s, closed loop (default "500 max")
#   WH_DURATION     each run's length (default 10s)
#   WH_CONCURRENCY  requests in flight (default 64)
#   WH_PRS          pull request numbers to spread over (default 16)
#   WH_ADDR         server address (default 127.0.0.1:18080)
#   WH_PAYLOADS     example deliveries (default ../shared/github/webhooks)
#   WH_WORK         scratch folder (default a new /tmp/swarm-gate-webhook-bench.*)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rates=${WH_RATES:-500 max}
duration=${WH_DURATION:-10s}
concurrency=${WH_CONCURRENCY:-64}
prs=${WH_PRS:-16}
addr=${WH_ADDR:-127.0.0.1:18080}
payloads=${WH_PAYLOADS:-$root/../shared/github/webhooks}
work=${WH_WORK:-$(mktemp -d /tmp/swarm-gate-webhook-bench.XXXXXX)}

[ -d "$payloads" ] || { echo "no example deliveries at $payloads: clone ../shared beside the repo or set WH_PAYLOADS" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is missing at /usr/bin/time (apt-get install time)" >&2; exit 2; }

(cd "$root" && go build -o "$work/webhook-bench" ./bench/webhook)
SWARM_GATE_WEBHOOK_SECRET="bench-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
export SWARM_GATE_WEBHOOK_SECRET

/usr/bin/time -v -o "$work/server.time" "$work/webhook-bench" -serve "$addr" >"$work/server.out" 2>"$work/server.log" &
timepid=$!
for _ in $(seq 100); do
	grep -q '^serving' "$work/server.out" 2>/dev/null && break
	sleep 0.1
done
grep -q '^serving' "$work/server.out" || { echo "server did not start: $(cat "$work/server.log")" >&2; exit 1; }
serverpid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$work/server.out")

echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
for rate in $rates; do
	r=$rate
	[ "$rate" = max ] && r=100000
	echo "## rate $rate"
	"$work/webhook-bench" -url "http://$addr/webhook" -payloads "$payloads" -rate "$r" \
		-duration "$duration" -concurrency "$concurrency" -prs "$prs" | tee "$work/run-$rate.json"
done

kill -INT "$serverpid"
wait "$timepid" || true
echo "## server"
tail -n 1 "$work/server.out"
grep -E 'Maximum resident set size|Percent of CPU|Elapsed|User time|System time' "$work/server.time"
echo "(logs and results in $work)"
