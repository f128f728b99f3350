package errfmt

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestFormatFourLines(t *testing.T) {
	tests := []struct {
		name string
		e    *Error
		want string
	}{
		{"plain", New(ErrNoRun, "no run named x", "resolving x", "git agent ls lists runs"),
			"git-agent: error: no run named x\n  code: ERR_NO_RUN\n  context: resolving x\n  remedy: git agent ls lists runs\n"},
		{"empty fields", New(ErrInternal, "", "", ""),
			"git-agent: error: \n  code: ERR_INTERNAL\n  context: \n  remedy: \n"},
		{"wrapped", Wrap(ErrGit, errors.New("fatal: bad object"), "git failed", "running git", "retry"),
			"git-agent: error: git failed: fatal: bad object\n  code: ERR_GIT\n  context: running git\n  remedy: retry\n"},
		{"wrap nil", Wrap(ErrIO, nil, "cannot write", "writing f", "check"),
			"git-agent: error: cannot write\n  code: ERR_IO\n  context: writing f\n  remedy: check\n"},
	}
	prefixes := []string{"git-agent: error: ", "  code: ", "  context: ", "  remedy: "}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.e.Format()
			if got != tt.want {
				t.Fatalf("Format() =\n%q\nwant\n%q", got, tt.want)
			}
			if !strings.HasSuffix(got, "\n") {
				t.Fatalf("Format() does not end in a newline: %q", got)
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != 4 {
				t.Fatalf("Format() has %d lines, want 4: %q", len(lines), got)
			}
			for i, p := range prefixes {
				if !strings.HasPrefix(lines[i], p) {
					t.Errorf("line %d = %q, want prefix %q", i+1, lines[i], p)
				}
			}
		})
	}
}

func TestParseRoundTrip(t *testing.T) {
	for _, c := range Codes() {
		e := New(c, "what went wrong: "+string(c), "doing something with /tmp/a b", "do the one thing")
		got, err := Parse(e.Format())
		if err != nil {
			t.Fatalf("Parse(Format(%s)): %v", c, err)
		}
		if got.Code != e.Code || got.What != e.What || got.Context != e.Context || got.Remedy != e.Remedy {
			t.Errorf("round trip of %s = %+v, want %+v", c, got, e)
		}
		if got.ExitCode() != c.Exit() {
			t.Errorf("ExitCode() = %d, want %d", got.ExitCode(), c.Exit())
		}
	}
}

func TestParseRejects(t *testing.T) {
	good := "git-agent: error: x\n  code: ERR_IO\n  context: y\n  remedy: z\n"
	if _, err := Parse(good); err != nil {
		t.Fatalf("Parse(good) = %v", err)
	}
	tests := []struct{ name, text string }{
		{"empty", ""},
		{"three lines", "git-agent: error: x\n  code: ERR_IO\n  context: y\n"},
		{"five lines", good + "  extra: w\n"},
		{"five lines blank", "git-agent: error: x\n\n  code: ERR_IO\n  context: y\n  remedy: z\n"},
		{"wrong first prefix", "git-agent: warning: x\n  code: ERR_IO\n  context: y\n  remedy: z\n"},
		{"missing indent", "git-agent: error: x\ncode: ERR_IO\n  context: y\n  remedy: z\n"},
		{"swapped lines", "git-agent: error: x\n  code: ERR_IO\n  remedy: z\n  context: y\n"},
		{"wrong remedy prefix", "git-agent: error: x\n  code: ERR_IO\n  context: y\n  fix: z\n"},
		{"unknown code", "git-agent: error: x\n  code: ERR_NOPE\n  context: y\n  remedy: z\n"},
		{"lower-case code", "git-agent: error: x\n  code: err_io\n  context: y\n  remedy: z\n"},
		{"code with space", "git-agent: error: x\n  code: ERR_IO \n  context: y\n  remedy: z\n"},
		{"empty code", "git-agent: error: x\n  code: \n  context: y\n  remedy: z\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, err := Parse(tt.text); err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.text, e)
			}
		})
	}
}

func TestFormatFlattensControlCharacters(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\nb", "a b"},
		{"a\r\nb", "a  b"},
		{"line one\n  code: ERR_USAGE", "line one   code: ERR_USAGE"},
		{"tab\there", "tab here"},
		{"esc\x1b[31mred", "esc [31mred"},
		{"nul\x00del\x7f", "nul del "},
		{"c1\u0085next", "c1 next"},
		{"\n\nlead and trail\n", "lead and trail"},
		{"ünïcode ✓", "ünïcode ✓"},
	}
	for _, tt := range tests {
		e := &Error{Code: ErrUsage, What: tt.in, Context: tt.in, Remedy: tt.in}
		out := e.Format()
		if n := strings.Count(out, "\n"); n != 4 {
			t.Errorf("What %q: Format has %d newlines, want 4: %q", tt.in, n, out)
		}
		got, err := Parse(out)
		if err != nil {
			t.Errorf("What %q: Parse: %v", tt.in, err)
			continue
		}
		if got.What != tt.want || got.Context != tt.want || got.Remedy != tt.want {
			t.Errorf("What %q flattened to %q / %q / %q, want %q", tt.in, got.What, got.Context, got.Remedy, tt.want)
		}
		if got.Code != ErrUsage {
			t.Errorf("What %q: code %q, want ERR_USAGE", tt.in, got.Code)
		}
	}
}

func TestCatalog(t *testing.T) {
	re := regexp.MustCompile(`^ERR_[A-Z_]+$`)
	allowed := map[int]bool{ExitFailed: true, ExitRefused: true, ExitFatal: true, ExitUsage: true, ExitCanceled: true}
	codes := Codes()
	if len(codes) < 20 {
		t.Fatalf("Codes() has %d codes; the catalog lost entries", len(codes))
	}
	seen := map[Code]bool{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("code %s listed twice", c)
		}
		seen[c] = true
		if !re.MatchString(string(c)) {
			t.Errorf("code %q does not match %s", c, re)
		}
		if !allowed[c.Exit()] {
			t.Errorf("code %s has exit %d, want one of 1, 2, 128, 129, 130", c, c.Exit())
		}
	}
	for _, c := range []Code{ErrUsage, ErrNotARepo, ErrEmptyRepo, ErrImport, ErrRefRace, ErrInternal, ErrCanceled, ErrNotVerified} {
		if !seen[c] {
			t.Errorf("Codes() misses %s", c)
		}
	}
	exits := []struct {
		c    Code
		want int
	}{
		{ErrUsage, 129}, {ErrNotARepo, 128}, {ErrNotVerified, 2}, {ErrConflict, 2}, {ErrDirty, 2},
		{ErrCanceled, 130}, {ErrInternal, 128}, {Code("ERR_UNKNOWN"), 128},
	}
	for _, tt := range exits {
		if got := tt.c.Exit(); got != tt.want {
			t.Errorf("%s.Exit() = %d, want %d", tt.c, got, tt.want)
		}
	}
}

func TestAs(t *testing.T) {
	plain := errors.New("boom")
	e := As(plain)
	if e.Code != ErrInternal {
		t.Fatalf("As(plain).Code = %s, want ERR_INTERNAL", e.Code)
	}
	if e.What != "boom" || !errors.Is(e, plain) || e.ExitCode() != 128 {
		t.Fatalf("As(plain) = %+v (exit %d)", e, e.ExitCode())
	}
	if e.Context == "" || e.Remedy == "" {
		t.Fatalf("As(plain) leaves context or remedy empty: %+v", e)
	}
	orig := New(ErrDirty, "dirty", "landing", "commit first")
	wrapped := fmt.Errorf("outer: %w", orig)
	if got := As(wrapped); got != orig {
		t.Fatalf("As(wrapped) = %+v, want the inner *Error", got)
	}
	if got := As(orig); got.Code != ErrDirty || got.ExitCode() != 2 {
		t.Fatalf("As(orig) = %+v", got)
	}
	if _, err := Parse(As(plain).Format()); err != nil {
		t.Fatalf("As(plain).Format() does not parse: %v", err)
	}
}

func TestWrapUnwrap(t *testing.T) {
	cause := errors.New("cause")
	e := Wrap(ErrIO, cause, "cannot write", "c", "r")
	if e.Error() != "cannot write: cause" {
		t.Errorf("Error() = %q", e.Error())
	}
	if !errors.Is(e, cause) {
		t.Errorf("errors.Is(Wrap(cause), cause) = false")
	}
	if New(ErrIO, "x", "c", "r").Unwrap() != nil {
		t.Errorf("New(...).Unwrap() != nil")
	}
}
