package sandbox

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
)

// TestServeBridge: bytes written to the TCP side reach the unix socket and
// the answer comes back, with half-close passed through.
func TestServeBridge(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	u, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	go func() {
		c, err := u.Accept()
		if err != nil {
			return
		}
		b, _ := io.ReadAll(c) // until the client half-closes
		c.Write(append([]byte("echo "), b...))
		c.Close()
	}()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go serveBridge(context.Background(), l, sock)
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("hello"))
	c.(*net.TCPConn).CloseWrite()
	got, _ := io.ReadAll(c)
	if string(got) != "echo hello" {
		t.Errorf("through the bridge: %q, want %q", got, "echo hello")
	}
}
