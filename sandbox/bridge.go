package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/git-agent/git-agent/netproxy"
)

// In-sandbox network proxy plumbing for a host list (DESIGN.md invariant
// 8). The host's proxy socket (Policy.Proxy) is bound at ProxySocket; the
// init shim listens on 127.0.0.1:ProxyPort (the sandbox's own loopback)
// and hands the listener to a child "git-agent __net-bridge" that relays
// each connection to ProxySocket.
const (
	ProxySocket = "/run/git-agent/proxy.sock"
	ProxyPort   = 3128
	// BridgeCommand makes git-agent act as the bridge: main must call
	// Bridge() when os.Args[1] == BridgeCommand.
	BridgeCommand = "__net-bridge"
	// bridgeFlag is the init shim's option that starts the bridge.
	bridgeFlag = "--net-bridge"
)

// ProxyEnv returns the variables that point every common HTTP client at
// the bridge: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (both cases) set to
// http://127.0.0.1:ProxyPort, and NO_PROXY/no_proxy empty, so that no
// address, localhost and private ranges included, bypasses the proxy.
func ProxyEnv() []string {
	u := "http://127.0.0.1:" + strconv.Itoa(ProxyPort)
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+u, lower(k)+"="+u)
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// startBridge listens on 127.0.0.1:ProxyPort and starts self as
// BridgeCommand with the listener as its fd 3, in its own process group
// (so a terminal's Ctrl-C does not reach it). It does not wait: the
// bridge lives until the sandbox's PID namespace ends.
func startBridge(self string) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(ProxyPort))
	if err != nil {
		return fmt.Errorf("network bridge: %v", err)
	}
	f, err := l.(*net.TCPListener).File()
	l.Close()
	if err != nil {
		return fmt.Errorf("network bridge: %v", err)
	}
	defer f.Close()
	cmd := exec.Command(self, BridgeCommand)
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("network bridge: %v", err)
	}
	cmd.Process.Release()
	return nil
}

// Bridge is the bridge process ("git-agent __net-bridge"): it accepts
// connections on the listener it inherited as fd 3 and relays each to the
// unix socket ProxySocket. It ignores SIGINT, SIGQUIT and SIGHUP and
// returns only when the listener fails.
func Bridge() int {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGPIPE)
	f := os.NewFile(3, "bridge-listener")
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "git-agent: network bridge:", err)
		return 1
	}
	return serveBridge(context.Background(), l, ProxySocket)
}

// serveBridge relays every connection accepted on l to the unix socket
// at sock until l fails; it returns 1 then.
func serveBridge(ctx context.Context, l net.Listener, sock string) int {
	var d net.Dialer
	for {
		c, err := l.Accept()
		if err != nil {
			return 1
		}
		go func() {
			u, err := d.DialContext(ctx, "unix", sock)
			if err != nil {
				c.Close()
				return
			}
			netproxy.Relay(context.Background(), c, u)
		}()
	}
}
