package sast

// csharpRules are the plugin's C# rules (src/sast/rules/csharp.ts).
var csharpRules = []spec{
	{
		// Dropped for the whole file when it sets UseShellExecute = false
		// anywhere (the safe ProcessStartInfo pattern). Refined to low when
		// every argument is a literal or constant.
		id: "sast/cs-command-injection", sev: Critical,
		message:     "Process.Start allows command injection",
		remediation: "Use ProcessStartInfo with Arguments property, or sanitize input thoroughly.",
		pattern:     `Process\.Start`,
		literals:    []string{"Process.Start"}, anchor: true,
		validate: func(content string) bool { return !csNoShellExecute.MatchString(content) },
	},
	{
		id: "sast/cs-sqli", sev: Critical,
		message:     "String concatenation in SQL query can lead to SQL injection",
		remediation: "Use parameterized queries or an ORM. Never concatenate user input into SQL.",
		pattern:     `\.Execute.*\+`,
		literals:    []string{".Execute"}, anchor: true,
	},
	{
		id: "sast/cs-xss", sev: High,
		message:     "User input in HTML response without encoding",
		remediation: "Use HttpUtility.HtmlEncode() or a templating engine with auto-escaping.",
		pattern:     `Response\.Write\s*\(\s*(?:Request|Form|QueryString)`,
		fold:        true, literals: []string{"response.write"}, anchor: true,
	},
	{
		id: "sast/cs-deserialization", sev: Critical,
		message:     "BinaryFormatter can deserialize malicious objects",
		remediation: "Use System.Text.Json or Newtonsoft.Json for serialization. Never use BinaryFormatter.",
		pattern:     `BinaryFormatter`,
		literals:    []string{"BinaryFormatter"}, anchor: true,
	},
	{
		id: "sast/cs-hardcoded-secret", sev: Critical,
		message:     "Potential hardcoded API key, password, or token detected",
		remediation: "Move secrets to configuration or environment variables.",
		pattern:     secretName + `\s*=\s*["'](?<secret>[a-zA-Z0-9_-]{10,})["']`,
		fold:        true, literals: secretNames, secret: true, anchor: true,
	},
	{
		id: "sast/cs-path-traversal", sev: High,
		message:     "File path from user input used without validation",
		remediation: "Use Path.GetFullPath and validate the result stays within expected directory.",
		pattern:     `File\.(?:Read|Write|Open|AllLines)\s*\(\s*(?:Request|Form|QueryString)`,
		fold:        true, literals: []string{"file."}, anchor: true,
	},
	{
		id: "sast/cs-xml-xxe", sev: High,
		message:     "XML reader without XXE protection",
		remediation: "Disable DTD processing: XmlReaderSettings.DtdProcessing = DtdProcessing.Prohibit",
		pattern:     `XmlReader\.Create\s*\(`,
		literals:    []string{"XmlReader.Create"}, anchor: true,
	},
	{
		id: "sast/cs-weak-random", sev: Medium,
		message:     "Using Random class for cryptographic randomness",
		remediation: "Use RandomNumberGenerator or cryptographic random: System.Security.Cryptography.RandomNumberGenerator",
		pattern:     `new\s+Random\s*\(`,
		literals:    []string{"Random"},
	},
	{
		// The whole quoted connection string is treated as the secret.
		id: "sast/cs-hardcoded-connection-string", sev: High,
		message:     "Hardcoded database connection string with credentials",
		remediation: "Store connection strings in configuration files with encryption or use Azure Key Vault.",
		pattern:     `ConnectionString\s*=\s*["'](?<secret>[^"']*(?:uid|user|password|pwd)[^"']*)["']`,
		fold:        true, literals: []string{"connectionstring"}, secret: true, anchor: true,
	},
	{
		id: "sast/cs-weak-encryption", sev: High,
		message:     "Using weak encryption like DES or RC4",
		remediation: "Use AES-256 or stronger. Avoid DES, RC4, and other deprecated algorithms.",
		pattern:     `DESCryptoServiceProvider`,
		literals:    []string{"DESCryptoServiceProvider"}, anchor: true,
	},
	{
		id: "sast/cs-ssl-validation-bypass", sev: Critical,
		message:     "ServicePointManager or WebRequest with disabled certificate validation",
		remediation: "Never disable certificate validation in production.",
		pattern:     `ServerCertificateValidationCallback\s*=\s*(?:AcceptAll|true)`,
		literals:    []string{"ServerCertificateValidationCallback"}, anchor: true,
	},
}

var csNoShellExecute = mustJS(`UseShellExecute\s*=\s*false`, true)
