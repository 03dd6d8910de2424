// Package deploy holds the deploy kit's tests: the Helm chart
// (helm/swarm-gate) rendered with the Helm SDK and decoded strictly into the
// Kubernetes API types, helm lint through the SDK's lint package, and the
// docker compose file (compose/). Only _test.go files live here, so the Helm
// and Kubernetes modules are linked into this test binary and nothing else.
package deploy
