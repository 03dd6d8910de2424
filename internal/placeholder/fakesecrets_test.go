package placeholder

// Fake credentials for tests, assembled at run time so that no file of the
// repository holds a string a secret scanner would take for a real token.
var (
	fakePassword    = "Sup3r" + "S3cretProdPassw0rd"
	fakeGitHubToken = "gh" + "p_abcdefghijklmnopqrstuvwxyz0123456789"
)
