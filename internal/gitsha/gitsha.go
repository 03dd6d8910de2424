// Package gitsha recognises git object names (SHA-1, as GitHub and go-git
// use them) wherever swarm-gate reads one: flags, the runner's environment,
// webhook payloads, API responses and comment commands.
package gitsha

// Full reports whether s is a full SHA-1 object name as git and GitHub's
// API print it: exactly 40 lower-case hex digits.
func Full(s string) bool {
	return len(s) == 40 && lowerHex(s)
}

// FullAny is Full, or a full SHA-256 object name (64 lower-case hex
// digits), for values git itself wrote (the runner's GITHUB_SHA), which
// are read before anything needs the repository.
func FullAny(s string) bool {
	return (len(s) == 40 || len(s) == 64) && lowerHex(s)
}

// Prefix reports whether s is an abbreviated object name a person may type:
// 7 to 40 hex digits, either case.
func Prefix(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Short is sha cut to 12 characters, as messages show a commit; a shorter
// string is returned as it is.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
