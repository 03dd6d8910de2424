package sast

// goRules are the plugin's Go rules (src/sast/rules/go.ts).
//
// The secret rule's separator is a single ':' or '=': Go's short declaration
// "token := \"...\"" does not match it (':' is followed by '=', not a quote),
// exactly as in the plugin; a struct field ("Token: \"...\"") or an
// assignment ("token = \"...\"") does.
var goRules = []spec{
	{
		id: "sast/go-hardcoded-secret", sev: Critical,
		message:     "Potential hardcoded API key, password, or token detected",
		remediation: "Move secrets to environment variables using os.Getenv() or a secrets manager.",
		pattern:     secretName + `\s*[:=]\s*["'](?<secret>[a-zA-Z0-9_-]{10,})["']`,
		fold:        true, literals: secretNames, secret: true, anchor: true,
	},
	{
		id: "sast/go-weak-tls", sev: Medium,
		message:     "tls.Config with InsecureSkipVerify allows MITM attacks",
		remediation: "Set InsecureSkipVerify to false in production. Use proper certificate validation.",
		pattern:     `InsecureSkipVerify\s*:\s*true`,
		literals:    []string{"InsecureSkipVerify"}, anchor: true,
	},
	{
		// Any exec.Command call, with or without a shell. Refined to low
		// when every argument is a literal (gosec's G204 does not flag
		// those at all).
		id: "sast/go-shell-injection", sev: Critical,
		message:     "exec.Command with shell interpretation allows command injection",
		remediation: "Use exec.Command with separate arguments, avoiding shell interpretation. Never pass user input directly to command execution.",
		pattern:     `exec\.Command`,
		literals:    []string{"exec.Command"}, anchor: true,
	},
	{
		id: "sast/go-template-injection", sev: High,
		message:     "html/template used with variable content - potential XSS",
		remediation: "Ensure user input is properly escaped. Use template.HTMLEscapeString() or auto-escaping features.",
		pattern:     `template\.HTML\s*\(`,
		literals:    []string{"template.HTML"}, anchor: true,
	},
	{
		id: "sast/go-pprof", sev: Medium,
		message:     "pprof debugging endpoints can expose sensitive information",
		remediation: "Only enable pprof in development. Ensure production does not expose /debug/pprof.",
		pattern:     `net\/http\/pprof`,
		literals:    []string{"net/http/pprof"}, anchor: true,
	},
}
