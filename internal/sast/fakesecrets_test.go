package sast

import (
	"os"
	"strings"
)

// Fake credentials for tests, assembled at run time so that no file of the
// repository holds a string a secret scanner would take for a real token.
var (
	fakeStripeKey   = "sk_" + "live_1234567890abcdefghij"
	fakeStripeKey2  = "sk_" + "live_abcdefghijklmnop"
	fakeGitHubToken = "gh" + "p_abcdefghijklmnopqrstuvwxyz0123"
	fakeAWSKey      = "AK" + "IAABCDEFGHIJKLMNOP"
	fakeAWSKey2     = "AK" + "IAIOSFODNN7EXAMPLE"
	fakePassword    = "Sup3r" + "S3cretProdPassw0rd"
)

// readFixture reads a test fixture and puts the fake credentials in place
// of their markers ({{FAKE_STRIPE_KEY}}).
func readFixture(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return []byte(strings.ReplaceAll(string(b), "{{FAKE_STRIPE_KEY}}", fakeStripeKey)), nil
}
