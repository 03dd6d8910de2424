#!/usr/bin/env bash
# The API requests of one reconcile pass of the App (the reconciler of
# `swarm-gate serve`) over 100 open pull requests whose checks are all
# there, counted by the fake GitHub (internal/ghfake): the figures of
# bench/RESULTS.md, "The App's reconciler", and docs/app.md.
#
#   bench/reconcile.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
go test ./internal/app/ -run '^TestReconcileCost$' -count=1 -v | grep -E 'reconcile pass|^(ok|FAIL|---)'
