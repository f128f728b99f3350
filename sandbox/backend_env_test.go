package sandbox

import (
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

func TestEnvBackend(t *testing.T) {
	for _, c := range []struct {
		in, want string
		code     errfmt.Code
	}{
		{"", "", ""},
		{"auto", "auto", ""},
		{"bwrap", "bwrap", ""},
		{"landlock", "landlock", ""},
		{"none", "", errfmt.ErrUsage},
		{"None", "", errfmt.ErrUsage},
		{"off", "", errfmt.ErrUsage},
	} {
		got, err := EnvBackend(c.in)
		var code errfmt.Code
		if err != nil {
			code = errfmt.As(err).Code
		}
		if got != c.want || code != c.code {
			t.Errorf("EnvBackend(%q) = %q, %v; want %q, code %q", c.in, got, err, c.want, c.code)
		}
	}
}
