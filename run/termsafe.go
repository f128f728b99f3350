package run

import (
	"strings"
	"unicode/utf8"
)

// TerminalSafe returns the agent's recorded terminal output b with what
// could act on the reader's terminal removed, for "git agent logs": the
// output is the agent's, and replaying it raw would let the agent send
// the user's terminal escape sequences long after the run (set the
// clipboard with OSC 52, retitle the window, or make the terminal answer a
// query — DECRQSS, device status, window reports — into the user's input).
// It keeps printable text, newline, carriage return, tab and backspace,
// and the CSI sequences that only paint: SGR colours and erase/cursor
// moves (final byte one of "mKJABCDGH", parameters digits and ';' only).
// Every other escape sequence is dropped whole (OSC, DCS, APC, PM and SOS
// strings up to their ST or BEL), so are the other C0 and C1 controls and
// DEL; invalid UTF-8 becomes U+FFFD (a lone 0x9b is CSI to an 8-bit
// terminal).
func TerminalSafe(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			i = escape(b, i, &out)
			continue
		case c == '\n' || c == '\r' || c == '\t' || c == '\b':
			out = append(out, c)
		case c < 0x20 || c == 0x7f:
		case c < 0x80:
			out = append(out, c)
		default:
			r, n := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && n <= 1:
				out = utf8.AppendRune(out, utf8.RuneError)
			case r >= 0x80 && r <= 0x9f:
			default:
				out = append(out, b[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return out
}

// escape handles the escape sequence at b[i] (ESC), appending it to out
// when TerminalSafe keeps it, and returns the index after it.
func escape(b []byte, i int, out *[]byte) int {
	if i+1 >= len(b) {
		return len(b)
	}
	switch b[i+1] {
	case '[':
		j := i + 2
		for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
			j++
		}
		if j >= len(b) {
			return len(b)
		}
		params, final := b[i+2:j], b[j]
		if final >= 0x40 && final <= 0x7e && strings.IndexByte("mKJABCDGH", final) >= 0 &&
			strings.Trim(string(params), "0123456789;") == "" {
			*out = append(*out, b[i:j+1]...)
		}
		if final < 0x40 || final > 0x7e {
			return j // not a CSI final byte: drop the sequence so far
		}
		return j + 1
	case ']', 'P', '_', '^', 'X':
		for j := i + 2; j < len(b); j++ {
			if b[j] == 0x07 {
				return j + 1
			}
			if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
				return j + 2
			}
		}
		return len(b)
	}
	return i + 2
}
