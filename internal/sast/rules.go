package sast

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Language is a rule set's language, named as the plugin's language profile
// ids name them ("cpp" covers C and C++).
type Language string

// The languages with built-in Tier A rules.
const (
	Go         Language = "go"
	Python     Language = "python"
	JavaScript Language = "javascript"
	TypeScript Language = "typescript" // uses the JavaScript rules
	Rust       Language = "rust"
	Java       Language = "java"
	PHP        Language = "php"
	CPP        Language = "cpp" // C and C++
	CSharp     Language = "csharp"
)

// extensions maps a lowercased file extension to its language, as the
// plugin's language profiles (src/lang/profiles.ts) and, for extensions no
// profile claims, its older extension registry (src/lang/registry.ts) do:
//
//	.go                                    go
//	.py .pyw                               python
//	.js .jsx .mjs .cjs                     javascript
//	.ts .tsx                               typescript (JavaScript rules)
//	.rs                                    rust
//	.java                                  java
//	.php .phtml                            php (.blade.php ends in .php)
//	.c .h .cpp .hpp .cc .cxx .hxx .hh      cpp (C rules)
//	.cs .csx                               csharp
//	.kt .kts .swift .dart .rb .rake
//	.gemspec .css .sh .bash .ps1 .psm1
//	.ini .cfg .conf .regex                 known, but no Tier A rules: the
//	                                       plugin counts them as scanned
//	                                       (Semgrep covers some of them)
//
// Any other extension, and a file without one, is non-code: the plugin skips
// it as "non-code skipped".
var extensions = map[string]Language{
	".go":  Go,
	".py":  Python,
	".pyw": Python,
	".js":  JavaScript, ".jsx": JavaScript, ".mjs": JavaScript, ".cjs": JavaScript,
	".ts": TypeScript, ".tsx": TypeScript,
	".rs":   Rust,
	".java": Java,
	".php":  PHP, ".phtml": PHP,
	".c": CPP, ".h": CPP, ".cpp": CPP, ".hpp": CPP, ".cc": CPP, ".cxx": CPP, ".hxx": CPP, ".hh": CPP,
	".cs": CSharp, ".csx": CSharp,

	".kt": "kotlin", ".kts": "kotlin",
	".swift": "swift",
	".dart":  "dart",
	".rb":    "ruby", ".rake": "ruby", ".gemspec": "ruby",
	".css": "css",
	".sh":  "bash", ".bash": "bash",
	".ps1": "powershell", ".psm1": "powershell",
	".ini": "ini", ".cfg": "ini", ".conf": "ini",
	".regex": "regex",
}

// LanguageOf returns the language of a file from its extension, and false
// when the plugin would skip the file as non-code. A known language may have
// no Tier A rules (Rules returns none); such a file still counts as scanned.
func LanguageOf(path string) (Language, bool) {
	l, ok := extensions[strings.ToLower(extname(path))]
	return l, ok
}

// extname is Node's path.extname for '/'-separated paths: from the last dot
// of the last segment, or "" when that segment has no dot or only a leading
// one (".bashrc").
func extname(p string) string {
	base := p[strings.LastIndexByte(p, '/')+1:]
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return ""
	}
	return base[i:]
}

// Rule is one built-in Tier A rule: a regular expression applied to each
// line of a file, every match a finding. ScanFile reports the matches as
// the plugin does; Refine (rules_refine.go) then dismisses those in
// comments and strings (for every rule but the secret ones and go-pprof)
// and those a rule's comment says it refines.
type Rule struct {
	ID          string // "sast/go-shell-injection"
	Severity    Severity
	Message     string // the plugin's description, which it reports as the message
	Remediation string
	// Pattern is the rule's regular expression in JavaScript syntax, as the
	// rule runs it (flags apart: Fold is the "i" flag).
	Pattern string
	Fold    bool
	// Secret marks rules whose match contains a credential: their excerpt
	// must be shown only through MaskedExcerpt.
	Secret bool

	re *regexp.Regexp
	// literals are strings one of which every match contains (lowercase when
	// Fold): lines without any are not matched against re.
	literals []string
	// anchored, when set, is re anchored at its start (and without its
	// leading \b when wordStart): every match of re starts where one of the
	// literals does, so only those places are tried.
	anchored  *regexp.Regexp
	wordStart bool
	// validate is the plugin's validate(match, context) hook. Every plugin
	// validator reads only the whole file's content, so it runs once per
	// file; false drops all of the rule's matches in that file.
	validate func(content string) bool
	// at, when >= 0, is the index of the capture group where a match is
	// reported to start (emulating a zero-width prefix RE2 cannot express).
	at int
	// secret is the index of the capture group holding the credential, or -1.
	secret int
}

// ruleSet is every language's rules, compiled once.
var ruleSet = sync.OnceValue(func() map[Language][]*Rule {
	set := map[Language][]*Rule{
		Go:     compileRules(goRules),
		Python: compileRules(pythonRules),
		Rust:   compileRules(rustRules),
		Java:   compileRules(javaRules),
		PHP:    compileRules(phpRules),
		CPP:    compileRules(cRules),
		CSharp: compileRules(csharpRules),
	}
	js := compileRules(javascriptRules)
	set[JavaScript], set[TypeScript] = js, js
	return set
})

// Rules returns the Tier A rules of a language in the plugin's order (nil
// for a language without rules). The rules must not be modified.
func Rules(l Language) []*Rule { return ruleSet()[l] }

// AllRules returns every rule once, grouped by language.
func AllRules() []*Rule {
	var out []*Rule
	for _, l := range []Language{Go, Python, JavaScript, Rust, Java, PHP, CPP, CSharp} {
		out = append(out, Rules(l)...)
	}
	return out
}

// RuleByID returns the rule with that id, or nil.
func RuleByID(id string) *Rule { return rulesByID()[id] }

var rulesByID = sync.OnceValue(func() map[string]*Rule {
	m := map[string]*Rule{}
	for _, r := range AllRules() {
		m[r.ID] = r
	}
	return m
})

// spec is a rule as written in rules_<lang>.go.
type spec struct {
	id          string
	sev         Severity
	message     string
	remediation string
	pattern     string // JavaScript syntax; see compileJS
	fold        bool
	literals    []string
	// anchor declares that every match starts with one of the literals
	// (after a leading \b, if the pattern has one).
	anchor   bool
	secret   bool
	validate func(content string) bool
}

func compileRules(specs []spec) []*Rule {
	out := make([]*Rule, 0, len(specs))
	for _, s := range specs {
		re, err := compileJS(s.pattern, s.fold)
		if err != nil {
			panic(fmt.Sprintf("sast: rule %s: %v", s.id, err))
		}
		if len(s.literals) == 0 {
			panic("sast: rule " + s.id + " has no prefilter literal")
		}
		r := &Rule{
			ID: s.id, Severity: s.sev, Message: s.message, Remediation: s.remediation,
			Pattern: s.pattern, Fold: s.fold, Secret: s.secret,
			re: re, literals: s.literals, validate: s.validate,
			at: re.SubexpIndex("at"), secret: re.SubexpIndex("secret"),
		}
		if s.anchor {
			src, word := strings.CutPrefix(s.pattern, `\b`)
			r.anchored, err = compileJS(`^(?:`+src+`)`, s.fold)
			if err != nil {
				panic(fmt.Sprintf("sast: rule %s: %v", s.id, err))
			}
			r.wordStart = word
		}
		if s.secret && r.secret < 0 {
			panic("sast: secret rule " + s.id + " has no (?<secret>...) group")
		}
		for _, lit := range s.literals {
			if s.fold && lit != strings.ToLower(lit) {
				panic("sast: rule " + s.id + ": literals of a folded rule must be lowercase")
			}
		}
		out = append(out, r)
	}
	return out
}

// secretName is the name part shared by the plugin's hardcoded-secret rules
// (a name containing api_key, password, secret, token or auth, then an
// optional separator and more word characters), and secretNames its
// prefilter literals.
const secretName = `(?:api_key|password|secret|token|auth)[_-]?\w*`

var secretNames = []string{"api_key", "password", "secret", "token", "auth"}
