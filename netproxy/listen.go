package netproxy

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// SocketName is the proxy socket's file name in the run's runtime dir.
const SocketName = "proxy.sock"

// Listen creates the unix socket dir/SocketName (mode 0600; an old one is
// removed first) and returns its listener and path. Paths longer than a
// sockaddr_un holds (108 bytes) are bound through /proc/self/fd/N/, so a
// deep runtime dir works. Closing the listener does not remove the file;
// the caller does.
func Listen(dir string) (*net.UnixListener, string, error) {
	path := filepath.Join(dir, SocketName)
	os.Remove(path)
	bindPath := path
	if len(path) >= 100 {
		d, err := os.Open(dir)
		if err != nil {
			return nil, "", err
		}
		defer d.Close()
		bindPath = fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), SocketName)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: bindPath, Net: "unix"})
	if err != nil {
		return nil, "", err
	}
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, "", err
	}
	return l, path, nil
}
