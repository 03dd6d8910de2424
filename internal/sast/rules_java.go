package sast

// javaRules are the plugin's Java rules (src/sast/rules/java.ts).
var javaRules = []spec{
	{
		// Any .exec( call, Runtime's or not. Refined to low when the
		// command, the first argument, is a literal or constant.
		id: "sast/java-command-injection", sev: Critical,
		message:     "Runtime.exec() with unsanitized input can lead to command injection",
		remediation: "Avoid Runtime.exec(). Use ProcessBuilder with separate arguments, or validate/sanitize input thoroughly.",
		pattern:     `\.exec\s*\(`,
		literals:    []string{".exec"}, anchor: true,
	},
	{
		id: "sast/java-deserialization", sev: High,
		message:     "ObjectInputStream.readObject() can lead to deserialization vulnerabilities",
		remediation: "Use a safe serialization format like JSON. If Java serialization is required, validate the class whitelist.",
		pattern:     `readObject\s*\(\s*\)`,
		literals:    []string{"readObject"}, anchor: true,
	},
	{
		id: "sast/java-xss", sev: High,
		message:     "Unescaped user input in HTTP response can lead to XSS",
		remediation: "Use OWASP Java Encoder or similar library to encode output. Enable CSRF protection.",
		pattern:     `getWriter\(\)\.write\s*\(`,
		literals:    []string{"getWriter().write"}, anchor: true,
	},
	{
		id: "sast/java-hardcoded-secret", sev: Critical,
		message:     "Potential hardcoded API key, password, or token detected",
		remediation: "Move secrets to environment variables or a secure configuration manager.",
		pattern:     secretName + `\s*=\s*["'](?<secret>[a-zA-Z0-9_-]{5,})["']`,
		fold:        true, literals: secretNames, secret: true, anchor: true,
	},
	{
		id: "sast/java-xxe", sev: High,
		message:     "XML parser configured without XXE protection",
		remediation: `Configure XML parser to disable external entities: setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)`,
		pattern:     `DocumentBuilderFactory\.newInstance`,
		literals:    []string{"DocumentBuilderFactory.newInstance"}, anchor: true,
	},
	{
		id: "sast/java-path-traversal", sev: High,
		message:     "File path from user input used without validation",
		remediation: "Validate and sanitize file paths. Use canonical paths and allow-list validation.",
		pattern:     `new\s+File\s*\(\s*(?:request|param)`,
		fold:        true, literals: []string{"file"},
	},
	{
		// createStatement() followed anywhere later on the line by a '+'.
		id: "sast/java-sqli", sev: Critical,
		message:     "String concatenation in SQL query can lead to SQL injection",
		remediation: "Use PreparedStatement with parameterized queries. Never concatenate user input into SQL.",
		pattern:     `createStatement\s*\(\s*\).*\+`,
		literals:    []string{"createStatement"}, anchor: true,
	},
	{
		id: "sast/java-weak-crypto", sev: Medium,
		message:     "Using weak cryptographic algorithms (MD5, SHA1, DES)",
		remediation: "Use strong algorithms like AES-256, SHA-256, or stronger. Avoid MD5 and SHA-1 for security purposes.",
		pattern:     `MessageDigest\.getInstance\s*\(\s*["'](?:MD5|SHA-?1|DES)["']`,
		fold:        true, literals: []string{"messagedigest.getinstance"}, anchor: true,
	},
	{
		// Only when the anonymous TrustManager's body opens on the same line.
		id: "sast/java-trust-manager", sev: High,
		message:     "Custom TrustManager that accepts all certificates - vulnerable to MITM",
		remediation: "Use proper certificate validation. Never implement a TrustManager that accepts all certificates.",
		pattern:     `TrustManager\s*\{\s*public\s+void\s+checkClientTrusted`,
		literals:    []string{"TrustManager"}, anchor: true,
	},
}
