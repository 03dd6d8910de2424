package sast

// javascriptRules are the plugin's JavaScript and TypeScript rules
// (src/sast/rules/javascript.ts as of commit 7ddb88a5). Newer plugin versions
// replace several of them with a binding classifier (and add low-severity
// "-review" rules); that classifier parses the whole file and is not
// reproduced here.
var javascriptRules = []spec{
	{
		// Refined: x.eval() (but window.eval, globalThis.eval), $eval and a
		// method definition eval(x) { are no call of the builtin.
		id: "sast/js-eval", sev: High,
		message:     "Dangerous use of eval() detected - allows arbitrary code execution",
		remediation: "Avoid using eval(). If you must parse dynamic content, use JSON.parse() or a proper parser instead.",
		pattern:     `\beval\s*\(`,
		literals:    []string{"eval"}, anchor: true,
	},
	{
		id: "sast/js-dangerous-function", sev: High,
		message:     "Dangerous use of new Function() detected - allows arbitrary code execution",
		remediation: "Avoid using new Function(). Use a safer alternative like JSON.parse() or a proper expression parser.",
		pattern:     `\bnew\s+Function\s*\(`,
		literals:    []string{"Function"},
	},
	{
		// exec( with a string or template literal as the first argument; the
		// plugin's validator accepts every match. Refined: x.exec( in a file
		// that uses no child_process (RegExp's, a database's exec) is
		// dismissed, and a constant command is low.
		id: "sast/js-command-injection", sev: Critical,
		message:     "Potential command injection via child_process.exec() with unsanitized input",
		remediation: "Never pass user input directly to exec(). Use execFile() with arguments array or sanitize input thoroughly.",
		pattern:     "exec\\s*\\(\\s*[`'\"]",
		literals:    []string{"exec"}, anchor: true,
	},
	{
		id: "sast/js-set-timeout-string", sev: High,
		message:     "setTimeout/setInterval called with string argument - similar to eval()",
		remediation: `Use function references instead of strings: setTimeout(() => ..., 1000) instead of setTimeout("...", 1000)`,
		pattern:     "(?:setTimeout|setInterval)\\s*\\(\\s*['\"`]",
		literals:    []string{"setTimeout", "setInterval"}, anchor: true,
	},
	{
		// Refined: a string literal without interpolation or concatenation
		// (td.innerHTML = '&nbsp;') and a comparison (==) are dismissed.
		id: "sast/js-innerhtml", sev: Medium,
		message:     "Potential XSS via innerHTML - user input may be injected into DOM",
		remediation: "Use textContent instead of innerHTML, or sanitize input with a library like DOMPurify.",
		pattern:     `\.innerHTML\s*=`,
		literals:    []string{".innerHTML"}, anchor: true,
	},
	{
		// Refined as js-innerhtml: one literal argument is dismissed.
		id: "sast/js-document-write", sev: Medium,
		message:     "document.write() can introduce XSS vulnerabilities",
		remediation: "Use DOM manipulation methods (createElement, appendChild, textContent) instead.",
		pattern:     `document\.write\s*\(`,
		literals:    []string{"document.write"}, anchor: true,
	},
	{
		id: "sast/js-postmessage", sev: Medium,
		message:     "postMessage event listener without origin validation",
		remediation: "Always validate the origin in postMessage event handlers: event.origin === expectedOrigin",
		pattern:     `addEventListener\s*\(\s*['"]message['"]`,
		literals:    []string{"addEventListener"}, anchor: true,
	},
	{
		id: "sast/js-hardcoded-secret", sev: Critical,
		message:     "Potential hardcoded API key, password, or token detected",
		remediation: "Move secrets to environment variables or a secure secrets manager.",
		pattern:     secretName + `\s*[:=]\s*['"](?<secret>[a-zA-Z0-9_-]{20,})['"]`,
		fold:        true, literals: secretNames, secret: true, anchor: true,
	},
}
