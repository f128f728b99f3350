package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/netproxy"
)

// NetworkLogName is the proxy's decision log (JSON lines, netproxy.Entry)
// in the run's runtime dir.
const NetworkLogName = "network.jsonl"

// sandboxNetwork returns the sandbox's network for n: "on" when unset or
// on, else "off" (a host list runs in its own namespace behind the proxy).
func sandboxNetwork(n *config.Network) string {
	if n == nil || n.Mode == config.NetworkOn {
		return "on"
	}
	return "off"
}

// netProxy is a running host-side proxy for one sandboxed step.
type netProxy struct {
	// sock is the host path of the proxy's unix socket.
	sock string
	// log counts and records its decisions.
	log    *netproxy.Log
	cancel context.CancelFunc
	wg     sync.WaitGroup
	file   *os.File
}

// startProxy starts the filtering proxy for hosts with its socket in dir,
// appending its decisions to dir/network.jsonl. It returns nil and no
// error when hosts is empty. Errors are ERR_NET_PROXY (a bad host entry, or
// the socket could not be made).
func startProxy(ctx context.Context, dir string, hosts []string) (*netProxy, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	where := "starting the network proxy for " + dir
	allow, err := netproxy.ParseAllowlist(hosts)
	if err != nil {
		return nil, errfmt.Wrap(errfmt.ErrNetProxy, err, "bad network host list", where,
			`write network = ["api.example.com", "203.0.113.7"]: names or IP addresses, no ports or schemes`)
	}
	f, err := os.OpenFile(filepath.Join(dir, NetworkLogName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, errfmt.Wrap(errfmt.ErrNetProxy, err, "cannot create "+NetworkLogName, where, "check that "+dir+" is writable")
	}
	l, sock, err := netproxy.Listen(dir)
	if err != nil {
		f.Close()
		return nil, errfmt.Wrap(errfmt.ErrNetProxy, err, "cannot create the proxy's socket", where, "check that "+dir+" is writable")
	}
	ctx, cancel := context.WithCancel(ctx)
	np := &netProxy{sock: sock, log: netproxy.NewLog(f), cancel: cancel, file: f}
	p := netproxy.New(allow, netproxy.Options{Log: np.log})
	np.wg.Add(1)
	go func() {
		defer np.wg.Done()
		p.Serve(ctx, l)
	}()
	return np, nil
}

// stop ends the proxy (open tunnels included), removes its socket and
// returns the one-line summary of its decisions. A nil proxy returns "".
func (np *netProxy) stop() string {
	if np == nil {
		return ""
	}
	np.cancel()
	np.wg.Wait()
	os.Remove(np.sock)
	np.file.Close()
	return np.log.Line()
}

// denied returns the hosts the proxy refused, "host (N)" each.
func (np *netProxy) denied() []string {
	if np == nil {
		return nil
	}
	_, d := np.log.Summary()
	return d
}

// hostList returns n's hosts for a host list, else nil.
func hostList(n *config.Network) []string {
	if n == nil || n.Mode != config.NetworkHosts {
		return nil
	}
	return n.Hosts
}

// mergeCounts adds the "host (N)" counts of b to those of a and returns
// the sorted result.
func mergeCounts(a, b []string) []string {
	m := map[string]int{}
	var order []string
	for _, s := range append(append([]string(nil), a...), b...) {
		h, n := s, 1
		if i := strings.LastIndex(s, " ("); i >= 0 && strings.HasSuffix(s, ")") {
			if v, err := strconv.Atoi(s[i+2 : len(s)-1]); err == nil {
				h, n = s[:i], v
			}
		}
		if _, seen := m[h]; !seen {
			order = append(order, h)
		}
		m[h] += n
	}
	sort.Strings(order)
	var out []string
	for _, h := range order {
		out = append(out, fmt.Sprintf("%s (%d)", h, m[h]))
	}
	return out
}

// execProxy starts a proxy for "git agent exec" with its socket and log in
// a new private temporary directory, removed when the proxy stops. It
// returns nil for an empty host list.
func execProxy(ctx context.Context, hosts []string) (*execNetProxy, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "git-agent-exec-net-")
	if err != nil {
		return nil, errfmt.Wrap(errfmt.ErrNetProxy, err, "cannot create a directory for the proxy", "starting git agent exec", "check that $TMPDIR is writable")
	}
	np, err := startProxy(ctx, dir, hosts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &execNetProxy{netProxy: np, dir: dir}, nil
}

// execNetProxy is a netProxy that owns its directory.
type execNetProxy struct {
	*netProxy
	dir string
}

// stop stops the proxy, removes its directory and returns the summary.
func (e *execNetProxy) stop() string {
	line := e.netProxy.stop()
	os.RemoveAll(e.dir)
	return line
}

// checkHosts returns ERR_CONFIG when n is a host list the proxy would not
// accept (an entry with a port, scheme or wildcard), before a run is made.
func checkHosts(n *config.Network) error {
	hosts := hostList(n)
	if len(hosts) == 0 {
		return nil
	}
	if _, err := netproxy.ParseAllowlist(hosts); err != nil {
		return errfmt.Wrap(errfmt.ErrConfig, err, "bad network host list", "reading the network setting",
			`write network = ["api.example.com", "203.0.113.7"]: names or IP addresses, no ports or schemes`)
	}
	return nil
}
