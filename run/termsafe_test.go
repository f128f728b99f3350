package run

import "testing"

func TestTerminalSafe(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"text and layout kept", "a\tb\r\nc\bd ünï\n", "a\tb\r\nc\bd ünï\n"},
		{"SGR colours kept", "\x1b[1;31mred\x1b[0m", "\x1b[1;31mred\x1b[0m"},
		{"erase and cursor moves kept", "\x1b[2K\x1b[1A\x1b[10G", "\x1b[2K\x1b[1A\x1b[10G"},
		{"OSC 52 clipboard dropped (BEL)", "a\x1b]52;c;ZWNobyBwd25lZA==\x07b", "ab"},
		{"OSC title dropped (ST)", "a\x1b]0;title\x1b\\b", "ab"},
		{"DCS DECRQSS dropped", "a\x1bP$qm\x1b\\b", "ab"},
		{"APC dropped", "a\x1b_payload\x1b\\b", "ab"},
		{"device status query dropped", "a\x1b[6nb", "ab"},
		{"window report query dropped", "a\x1b[21tb", "ab"},
		{"private mode dropped", "a\x1b[?1049hb", "ab"},
		{"CSI with intermediate dropped", "a\x1b[1 qb", "ab"},
		{"two-byte escapes dropped", "a\x1bcb\x1b7c", "abc"},
		{"unterminated OSC dropped to the end", "a\x1b]52;c;QUFB", "a"},
		{"trailing ESC dropped", "a\x1b", "a"},
		{"other C0 and DEL dropped", "a\x00\x07\x0e\x7fb", "ab"},
		{"C1 CSI as UTF-8 dropped", "a\u009b6nb", "a6nb"},
		{"raw 0x9b becomes U+FFFD", "a\x9b6nb", "a\uFFFD6nb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(TerminalSafe([]byte(tt.in))); got != tt.want {
				t.Errorf("TerminalSafe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
