package sast

import "regexp"

// phpRules are the plugin's PHP rules (src/sast/rules/php.ts), three of them
// for Laravel. Most fire only when a superglobal ($_GET, $_POST, ...) is the
// first argument.
var phpRules = []spec{
	{
		id: "sast/php-unserialize", sev: Critical,
		message:     "unserialize() on untrusted data can lead to object injection",
		remediation: "Use json_decode() instead of unserialize(). If you must use unserialize, validate the input with allowed_classes.",
		pattern:     `unserialize\s*\(\s*\$_`,
		literals:    []string{"unserialize"}, anchor: true,
	},
	{
		id: "sast/php-command-injection", sev: Critical,
		message:     "exec(), system(), or shell_exec() with user input can lead to command injection",
		remediation: "Never pass user input to shell functions. Use escapeshellarg() or escapeshellcmd() for any shell commands.",
		pattern:     `(?:exec|system|shell_exec|passthru)\s*\(\s*\$_`,
		literals:    []string{"$_"},
	},
	{
		// Refined: $obj->eval(, Foo::eval( and $eval( are no call of the
		// builtin ('.' is PHP's concatenation: "a" . eval($x) is one).
		id: "sast/php-eval", sev: Critical,
		message:     "eval() allows arbitrary code execution",
		remediation: "Avoid eval(). Use a safer alternative for dynamic code execution.",
		pattern:     `\beval\s*\(`,
		literals:    []string{"eval"}, anchor: true,
	},
	{
		id: "sast/php-include", sev: High,
		message:     "include/require with user input can lead to remote/local file inclusion",
		remediation: "Never include files based on user input. Use a whitelist of allowed files.",
		pattern:     `(?:include|require|include_once|require_once)\s*\(\s*\$_`,
		literals:    []string{"$_"},
	},
	{
		id: "sast/php-xss", sev: High,
		message:     "User input in HTML output without escaping",
		remediation: "Use htmlspecialchars() or a templating engine with auto-escaping.",
		pattern:     `(?:echo|print)\s+\$_(?:GET|POST|REQUEST|COOKIE)`,
		literals:    []string{"$_"},
	},
	{
		id: "sast/php-sqli", sev: Critical,
		message:     "String concatenation in SQL query can lead to SQL injection",
		remediation: "Use prepared statements (PDO prepare/execute or mysqli prepared statements). Never concatenate user input into SQL.",
		pattern:     `mysql_query\s*\([^)]*\$_`,
		fold:        true, literals: []string{"mysql_query"}, anchor: true,
	},
	{
		id: "sast/php-file-read", sev: High,
		message:     "file_get_contents or fopen with user input can read arbitrary files",
		remediation: "Validate and sanitize file paths. Use a whitelist of allowed directories.",
		pattern:     `(?:file_get_contents|fopen|readfile|file)\s*\(\s*\$_`,
		literals:    []string{"$_"},
	},
	{
		id: "sast/php-assert", sev: Medium,
		message:     "assert() with user input can lead to code execution",
		remediation: "Avoid using assert() with dynamic input. Use proper validation instead.",
		pattern:     `assert\s*\(\s*\$_`,
		literals:    []string{"$_"},
	},
	{
		id: "sast/php-create-function", sev: High,
		message:     "create_function() allows arbitrary code execution",
		remediation: "Use anonymous functions instead of create_function().",
		pattern:     `create_function\s*\(`,
		literals:    []string{"create_function"}, anchor: true,
	},
	{
		// The pattern must follow "(" directly, so a quoted pattern (the only
		// form PHP accepts) is never flagged, as in the plugin.
		id: "sast/php-preg-replace", sev: High,
		message:     "preg_replace with /e modifier allows code execution",
		remediation: "Use preg_replace_callback instead of preg_replace with /e modifier.",
		pattern:     `preg_replace\s*\(\s*\/[^/]*\/e`,
		literals:    []string{"preg_replace"}, anchor: true,
	},
	{
		id: "sast/php-laravel-sql-injection", sev: High,
		message:     "DB::raw(), whereRaw(), selectRaw(), orderByRaw(), or havingRaw() with concatenated user input creates SQL injection risk",
		remediation: "Use parameterized queries with ? bindings instead of string concatenation.",
		pattern:     `(?:DB::raw|->whereRaw|->selectRaw|->orderByRaw|->havingRaw)\s*\(\s*(?:["'][^"']*["']\s*\.\s*\$|\$)`,
		literals:    []string{"DB::raw", "->whereRaw", "->selectRaw", "->orderByRaw", "->havingRaw"}, anchor: true,
	},
	{
		id: "sast/php-laravel-mass-assignment", sev: Medium,
		message:     "$guarded = [] disables all mass-assignment protection, allowing any attribute to be set",
		remediation: "Use $fillable to explicitly whitelist allowed attributes, or remove $guarded = [] to keep default protection.",
		pattern:     `(?:protected|public)\s+\$guarded\s*=\s*\[\s*\]`,
		literals:    []string{"$guarded"},
	},
	{
		// Dropped for the whole file when it defines a down() method.
		id: "sast/php-laravel-destructive-migration", sev: Medium,
		message:     "Destructive migration operations (drop*) without a down() method cannot be rolled back",
		remediation: "Add a down() method that reverses the migration, or use a safer alternative like soft deletes.",
		pattern:     `(?:Schema::drop(?:IfExists)?\(|->dropColumn\()`,
		literals:    []string{"Schema::drop", "->dropColumn("}, anchor: true,
		validate: func(content string) bool { return !phpDownMethod.MatchString(content) },
	},
}

var phpDownMethod = mustJS(`function\s+down\s*\(`, false)

func mustJS(pattern string, fold bool) *regexp.Regexp {
	re, err := compileJS(pattern, fold)
	if err != nil {
		panic("sast: " + err.Error())
	}
	return re
}
