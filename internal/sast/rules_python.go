package sast

import "strings"

// pythonRules are the plugin's Python rules (src/sast/rules/python.ts).
var pythonRules = []spec{
	{
		id: "sast/py-pickle", sev: High,
		message:     "pickle.loads() called on potentially untrusted data - can lead to arbitrary code execution",
		remediation: "Use a safer serialization format like JSON, or validate the data source before deserializing with pickle.",
		pattern:     `pickle\.loads?\s*\(`,
		literals:    []string{"pickle."}, anchor: true,
	},
	{
		// Refined to low when the call's command is constant, as for
		// py-os-system (bandit B602).
		id: "sast/py-shell-injection", sev: Critical,
		message:     "subprocess with shell=True allows shell injection",
		remediation: "Use subprocess.run() with shell=False and pass arguments as a list. Avoid shell=True.",
		pattern:     `shell\s*=\s*True`,
		literals:    []string{"shell"}, anchor: true,
	},
	{
		// Dropped for the whole file when it mentions SafeLoader or safe_load
		// anywhere.
		id: "sast/py-yaml-unsafe", sev: High,
		message:     "yaml.load() without SafeLoader can execute arbitrary code",
		remediation: "Use yaml.safe_load() instead of yaml.load() for untrusted input.",
		pattern:     `yaml\.load\s*\(`,
		literals:    []string{"yaml.load"}, anchor: true,
		validate: func(content string) bool {
			return !strings.Contains(content, "SafeLoader") && !strings.Contains(content, "safe_load")
		},
	},
	{
		// Refined: a method named eval (PyTorch's model.eval()) or a
		// definition is no call of the builtin, and is dismissed.
		id: "sast/py-eval", sev: High,
		message:     "eval() allows arbitrary code execution",
		remediation: "Avoid eval(). Use ast.literal_eval() for safe literal evaluation or a proper parser.",
		pattern:     `\beval\s*\(`,
		literals:    []string{"eval"}, anchor: true,
	},
	{
		// Refined as py-eval (PyQt's app.exec()).
		id: "sast/py-exec", sev: High,
		message:     "exec() allows arbitrary code execution",
		remediation: "Avoid exec(). Use a safer alternative for dynamic code execution.",
		pattern:     `\bexec\s*\(`,
		literals:    []string{"exec"}, anchor: true,
	},
	{
		// Refined to low when the command is only literals and UPPER_CASE
		// constants (os.system(f"du -sh {OUT_ROOT}")): no input reaches the
		// shell, as bandit's B605 rates it.
		id: "sast/py-os-system", sev: Critical,
		message:     "os.system() passes command to shell - vulnerable to injection",
		remediation: "Use subprocess module with shell=False instead of os.system().",
		pattern:     `os\.system\s*\(`,
		literals:    []string{"os.system"}, anchor: true,
	},
	{
		// The plugin's pattern is multiline-anchored: "^" also matches after a
		// CR, LS or PS inside the line. RE2 has no lookbehind, so the
		// terminator is consumed and the finding is reported where the "at"
		// group starts.
		id: "sast/py-assert", sev: Low,
		message:     "assert statements can be disabled with -O flag, potentially hiding security checks",
		remediation: "Move security-related assertions to proper validation functions that cannot be disabled.",
		pattern:     `(?:^|[\r\x{2028}\x{2029}])(?<at>\s*assert\s+)`,
		literals:    []string{"assert"},
	},
	{
		// Refined to low when every interpolation is an identifier (after
		// FROM, JOIN, INTO, UPDATE, TABLE, COLUMN, in PRAGMA x(...)), which
		// SQL cannot bind as a parameter, or a constant; a value position
		// keeps it critical.
		id: "sast/py-sql-injection", sev: Critical,
		message:     "String concatenation in SQL query can lead to SQL injection",
		remediation: "Use parameterized queries or an ORM. Never concatenate user input into SQL strings.",
		pattern:     `execute\s*\(\s*f["']`,
		literals:    []string{"execute"}, anchor: true,
	},
	{
		id: "sast/py-hardcoded-secret", sev: Critical,
		message:     "Potential hardcoded API key, password, or token detected",
		remediation: "Move secrets to environment variables or a secure secrets manager.",
		pattern:     secretName + `\s*=\s*['"](?<secret>[a-zA-Z0-9_-]{20,})['"]`,
		fold:        true, literals: secretNames, secret: true, anchor: true,
	},
	{
		id: "sast/py-marshal", sev: High,
		message:     "marshal.loads() can execute arbitrary code",
		remediation: "Use JSON or other safe serialization formats instead of marshal.",
		pattern:     `marshal\.loads?\s*\(`,
		literals:    []string{"marshal."}, anchor: true,
	},
}
