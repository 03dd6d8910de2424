package gates

// Fake credentials for tests, assembled at run time so that no file of the
// repository holds a string a secret scanner would take for a real token.
var (
	fakePassword    = "Sup3r" + "S3cretProdPassw0rd"
	fakeStubToken   = "stub-abcdef" + "1234567890XYZ"
	fakeGitHubToken = "gh" + "p_abcdefghijklmnopqrstuvwxyz0123456789"
	fakeGitHubShort = "gh" + "p_abcdefghijklmnopqrstuvwxyz0123"
	fakeLateral     = "Lateral-Secret-" + "Value-42xyz"
	fakeStripeKey   = "sk_" + "live_abcdefghijklmnop1234"
)
