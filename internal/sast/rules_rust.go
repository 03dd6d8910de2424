package sast

// rustRules are the plugin's Rust rules (src/sast/rules/rust.ts).
var rustRules = []spec{
	{
		// Also matches a typed constant: `const API_TOKEN: &str = "..."`.
		id: "sast/rust-hardcoded-secret", sev: Critical,
		message:     "Potential hardcoded API key, password, or token detected",
		remediation: "Move secrets to environment variables or a secrets manager; do not commit credentials.",
		pattern:     secretName + `\s*(?::\s*&?str)?\s*(?:=|:)\s*["'](?<secret>[a-zA-Z0-9_-]{10,})["']`,
		fold:        true, literals: secretNames, secret: true, anchor: true,
	},
	{
		id: "sast/rust-command-injection", sev: Critical,
		message:     "std::process::Command invokes a shell interpreter, which can enable command injection when user input is passed as arguments.",
		remediation: "Invoke the target binary directly and pass arguments separately; avoid sh -c, bash -c, cmd /C, and powershell -Command with user input.",
		pattern:     `Command::new\s*\(\s*["'](?:sh|bash|cmd|powershell|pwsh)["']\s*\)`,
		literals:    []string{"Command::new"}, anchor: true,
	},
	{
		id: "sast/rust-unsafe-block", sev: Medium,
		message:     "Unsafe blocks bypass Rust safety checks and require careful manual validation.",
		remediation: "Minimize unsafe code and document invariants with a SAFETY comment.",
		pattern:     `\bunsafe\s*\{`,
		literals:    []string{"unsafe"}, anchor: true,
	},
}
