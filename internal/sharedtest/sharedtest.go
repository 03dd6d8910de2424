// Package sharedtest decides what a test does when ../shared (the
// reference data beside the repository: the corpus, GitHub's OpenAPI
// description and webhook payloads) is absent: it skips, with a message,
// or, when SWARM_GATE_REQUIRE_SHARED=1, it fails, so that a CI that means
// to run those tests cannot pass without them.
package sharedtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// EnvRequire is the variable that turns the skips into failures.
const EnvRequire = "SWARM_GATE_REQUIRE_SHARED"

// Required reports whether SWARM_GATE_REQUIRE_SHARED is "1".
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Skip skips t because reference data from ../shared is missing (format
// and args say what and where), or fails it when Required().
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s=1 and ../shared is incomplete: %s", EnvRequire, strings.TrimPrefix(msg, "skipping: "))
		return
	}
	t.Skip(msg)
}

// SetPath assigns v at a dotted path of a decoded JSON payload (one of
// GitHub's example deliveries, say "pull_request.head.sha"), creating the
// objects on the way and replacing a value that is not an object.
func SetPath(p map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := p[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			p[k] = next
		}
		p = next
	}
	p[keys[len(keys)-1]] = v
}
