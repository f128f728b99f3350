package run

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
)

func TestSandboxNetwork(t *testing.T) {
	for _, c := range []struct {
		n     *config.Network
		want  string
		hosts string
	}{
		{nil, "on", ""},
		{&config.Network{Mode: config.NetworkOn}, "on", ""},
		{&config.Network{Mode: config.NetworkOff}, "off", ""},
		{&config.Network{Mode: config.NetworkHosts, Hosts: []string{"a.example", "127.0.0.1"}}, "off", "a.example,127.0.0.1"},
	} {
		if got := sandboxNetwork(c.n); got != c.want {
			t.Errorf("sandboxNetwork(%+v) = %q, want %q", c.n, got, c.want)
		}
		if got := strings.Join(hostList(c.n), ","); got != c.hosts {
			t.Errorf("hostList(%+v) = %q, want %q", c.n, got, c.hosts)
		}
	}
}

func TestMergeCounts(t *testing.T) {
	got := strings.Join(mergeCounts([]string{"b.example (2)", "a.example (1)"}, []string{"b.example (3)", "c.example (1)"}), "|")
	if want := "a.example (1)|b.example (5)|c.example (1)"; got != want {
		t.Errorf("mergeCounts = %q, want %q", got, want)
	}
	if got := mergeCounts(nil, nil); got != nil {
		t.Errorf("mergeCounts(nil, nil) = %q", got)
	}
}

func TestStartProxyBadHost(t *testing.T) {
	_, err := startProxy(t.Context(), t.TempDir(), []string{"a.example:443"})
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrNetProxy {
		t.Errorf("startProxy with a port: %v", err)
	}
	np, err := startProxy(t.Context(), t.TempDir(), nil)
	if np != nil || err != nil {
		t.Errorf("startProxy(nil hosts) = %v, %v", np, err)
	}
}
