package sast

// cRules are the plugin's C and C++ rules (src/sast/rules/c.ts), applied to
// every file of the "cpp" profile.
var cRules = []spec{
	{
		// strcpy/strcat whose destination starts with an identifier.
		id: "sast/c-buffer-overflow", sev: Critical,
		message:     "strcpy/strcat to fixed-size buffer without bounds checking",
		remediation: "Use strncpy, snprintf, or safer alternatives that include size limits.",
		pattern:     `\b(?:strcpy|strcat)\s*\(\s*[a-zA-Z_]`,
		literals:    []string{"strcpy", "strcat"}, anchor: true,
	},
	{
		id: "sast/c-gets", sev: Critical,
		message:     "gets() does not check buffer bounds - removed from C11",
		remediation: "Use fgets() with proper buffer size instead of gets().",
		pattern:     `\bgets\s*\(`,
		literals:    []string{"gets"}, anchor: true,
	},
	{
		// A format string with a %s and no % before it (so no width).
		id: "sast/c-scanf", sev: High,
		message:     "scanf without width specifier can cause buffer overflow",
		remediation: `Use width specifiers: scanf("%99s", buffer) for a 100-byte buffer.`,
		pattern:     `\bscanf\s*\(\s*["'][^%]*%s["']`,
		literals:    []string{"scanf"}, anchor: true,
	},
	{
		id: "sast/c-strlen", sev: Medium,
		message:     "strlen() called in loop condition can lead to performance issues",
		remediation: "Cache strlen result before loop or use a pointer approach.",
		pattern:     `for\s*\([^)]*strlen\s*\(`,
		literals:    []string{"strlen"},
	},
	{
		id: "sast/c-sprintf", sev: High,
		message:     "sprintf does not check buffer bounds",
		remediation: "Use snprintf which includes buffer size.",
		pattern:     `\bsprintf\s*\(\s*[a-zA-Z_]`,
		literals:    []string{"sprintf"}, anchor: true,
	},
	{
		id: "sast/c-strdup", sev: Low,
		message:     "strdup allocates memory that must be freed",
		remediation: "Ensure all strdup results are freed to prevent memory leaks.",
		pattern:     `\bstrdup\s*\(`,
		literals:    []string{"strdup"}, anchor: true,
	},
	{
		id: "sast/c-atoi", sev: Medium,
		message:     "atoi does not report errors, returns 0 for invalid input",
		remediation: "Use strtol or strtoul which provide error reporting.",
		pattern:     `\b(?:atoi|atol|atof)\s*\(`,
		literals:    []string{"ato"}, anchor: true,
	},
	{
		// As in the plugin, this matches a PHP-style "$_" argument only.
		id: "sast/c-format-string", sev: High,
		message:     "User input as format string can lead to information disclosure",
		remediation: `Never use user input as format string: printf("%s", userInput) not printf(userInput).`,
		pattern:     `printf\s*\(\s*\$_`,
		literals:    []string{"$_"},
	},
	{
		id: "sast/c-weak-random", sev: Medium,
		message:     "Using rand() for security-critical randomness",
		remediation: "Use cryptographic random: getrandom(), arc4random(), or /dev/urandom.",
		pattern:     `\brand\s*\(\s*\)`,
		literals:    []string{"rand"}, anchor: true,
	},
}
