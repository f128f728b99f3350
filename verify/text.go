package verify

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Tail returns the last n bytes of b as a string, advanced to the first
// UTF-8 rune start so no rune is cut in half (so it may be up to 3 bytes
// shorter than n). n <= 0 gives "".
func Tail(b []byte, n int) string {
	if n <= 0 {
		return ""
	}
	if len(b) <= n {
		return string(b)
	}
	start := len(b) - n
	for i := 0; i < utf8.UTFMax && start < len(b) && !utf8.RuneStart(b[start]); i++ {
		start++
	}
	return string(b[start:])
}

// Clip returns the first n bytes of s, cut back to a UTF-8 rune boundary,
// with "…" appended when anything was cut (so the result may be up to 3
// bytes longer than n). It is how git-agent bounds agent-written fields.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:max(n, 0)]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// ansiRE matches terminal escape sequences: CSI (ESC [ ... final), OSC
// (ESC ] ... BEL or ESC \), C1 CSI, and other ESC sequences (ESC, any
// intermediate bytes, one final byte: "ESC ( B", "ESC 7").
var ansiRE = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(\x07|\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]`)

// StripControl makes agent- or check-written text safe for a terminal:
// it removes ANSI escape sequences, then drops every control character
// (C0, DEL, C1, including '\r') except '\n' and '\t'. Invalid UTF-8 bytes
// become U+FFFD.
func StripControl(s string) string {
	s = ansiRE.ReplaceAllString(strings.ToValidUTF8(s, "\uFFFD"), "")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// safeRE matches words that need no shell quoting.
var safeRE = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// ShellJoin joins argv into one string a POSIX shell would split back into
// the same words: safe words as they are, others in single quotes.
func ShellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case a == "":
			parts[i] = "''"
		case safeRE.MatchString(a):
			parts[i] = a
		default:
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}
