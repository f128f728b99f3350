package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
)

// backend is an origin server on 127.0.0.1 that answers "origin <Host>".
func backend(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "origin %s", r.Host)
	}))
	t.Cleanup(s.Close)
	return s, s.Listener.Addr().String()
}

// startProxy serves a proxy for hosts on a unix socket and returns a dialer
// for it and the log's buffer.
func startProxy(t *testing.T, hosts []string, o Options) (func() net.Conn, *syncBuffer) {
	t.Helper()
	a, err := ParseAllowlist(hosts)
	if err != nil {
		t.Fatal(err)
	}
	buf := &syncBuffer{}
	o.Log = NewLog(buf)
	if o.Resolver == nil {
		o.Resolver = table{"allowed.test": {"127.0.0.1"}, "public.test": {"93.184.216.34"}}
	}
	if o.Upstream == nil {
		o.Upstream = func(*url.URL) (*url.URL, error) { return nil, nil }
	}
	l, sock, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { New(a, o).Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return func() net.Conn {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}, buf
}

type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (s *syncBuffer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Buffer.Write(b)
}

// String reads the log under the lock the proxy's goroutines write with.
func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Buffer.String()
}

// roundTrip writes a raw request on c and returns the status code and body.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, raw, method string) (int, string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodConnect && resp.StatusCode == 200 {
		return 200, ""
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

func TestProxyRequests(t *testing.T) {
	_, origin := backend(t)
	_, port, _ := net.SplitHostPort(origin)
	for _, c := range []struct {
		name   string
		hosts  []string
		raw    string
		code   int
		body   string
		tunnel bool // after CONNECT, a GET through the tunnel answers body
	}{
		{"plain to a listed literal", []string{"127.0.0.1"},
			"GET http://" + origin + "/ HTTP/1.1\r\nHost: " + origin + "\r\n\r\n", 200, "origin " + origin, false},
		{"CONNECT to a listed literal", []string{"127.0.0.1"},
			"CONNECT " + origin + " HTTP/1.1\r\nHost: " + origin + "\r\n\r\n", 200, "origin " + origin, true},
		{"plain to an unlisted name", []string{"127.0.0.1"},
			"GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", 403, "blocked by git-agent policy: host evil.test\n", false},
		{"CONNECT to an unlisted name", []string{"127.0.0.1"},
			"CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n", 403, "blocked by git-agent policy: host evil.test\n", false},
		{"listed name resolving to loopback", []string{"allowed.test"},
			"GET http://allowed.test:" + port + "/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 403, "blocked by git-agent policy: host allowed.test\n", false},
		{"CONNECT listed name resolving to loopback", []string{"allowed.test"},
			"CONNECT allowed.test:" + port + " HTTP/1.1\r\n\r\n", 403, "blocked by git-agent policy: host allowed.test\n", false},
		{"listed name resolving to a listed literal", []string{"allowed.test", "127.0.0.1"},
			"GET http://allowed.test:" + port + "/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 200, "origin allowed.test:" + port, false},
		{"unlisted literal", []string{"allowed.test"},
			"CONNECT " + origin + " HTTP/1.1\r\n\r\n", 403, "blocked by git-agent policy: host 127.0.0.1\n", false},
		{"IPv6 loopback literal not listed", []string{"127.0.0.1"},
			"CONNECT [::1]:" + port + " HTTP/1.1\r\n\r\n", 403, "blocked by git-agent policy: host ::1\n", false},
		{"Host header spoofing an allowed host", []string{"127.0.0.1"},
			"GET http://evil.test/ HTTP/1.1\r\nHost: " + origin + "\r\n\r\n", 403, "blocked by git-agent policy: host evil.test\n", false},
		{"Host header spoofing a denied host", []string{"127.0.0.1"},
			"GET http://" + origin + "/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", 200, "origin " + origin, false},
		{"CONNECT with a spoofed Host header", []string{"127.0.0.1"},
			"CONNECT evil.test:443 HTTP/1.1\r\nHost: " + origin + "\r\n\r\n", 403, "blocked by git-agent policy: host evil.test\n", false},
		{"origin-form request", []string{"127.0.0.1"},
			"GET / HTTP/1.1\r\nHost: " + origin + "\r\n\r\n", 400, "", false},
		{"https absolute-form", []string{"127.0.0.1"},
			"GET https://" + origin + "/ HTTP/1.1\r\nHost: " + origin + "\r\n\r\n", 400, "", false},
		{"plain default port on a listed name", []string{"public.test"},
			"GET http://evil.test/ HTTP/1.1\r\nHost: public.test\r\n\r\n", 403, "blocked by git-agent policy: host evil.test\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dial, _ := startProxy(t, c.hosts, Options{})
			conn := dial()
			br := bufio.NewReader(conn)
			method, _, _ := strings.Cut(c.raw, " ")
			code, body := roundTrip(t, conn, br, c.raw, method)
			if c.tunnel {
				if code != 200 {
					t.Fatalf("CONNECT: %d %s", code, body)
				}
				code, body = roundTrip(t, conn, br, "GET / HTTP/1.1\r\nHost: "+origin+"\r\n\r\n", "GET")
			}
			if code != c.code || (c.body != "" && body != c.body) {
				t.Errorf("got %d %q, want %d %q", code, body, c.code, c.body)
			}
		})
	}
}

func TestProxyLog(t *testing.T) {
	_, origin := backend(t)
	dial, log := startProxy(t, []string{"127.0.0.1"}, Options{})
	for _, raw := range []string{
		"GET http://" + origin + "/ HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT evil.test:443 HTTP/1.1\r\n\r\n",
	} {
		c := dial()
		method, _, _ := strings.Cut(raw, " ")
		roundTrip(t, c, bufio.NewReader(c), raw, method)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		got = append(got, fmt.Sprintf("%s %s %v", e.Method, e.Host, e.Allowed))
	}
	if want := "GET 127.0.0.1 true|CONNECT evil.test false"; strings.Join(got, "|") != want {
		t.Errorf("log = %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestProxyUpstream chains through an upstream proxy: allowed requests go
// to it (CONNECT by name, plain in absolute form); denied ones never do.
func TestProxyUpstream(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.RequestURI)
		mu.Unlock()
		if r.Method == http.MethodConnect {
			w.WriteHeader(200)
			c, _, _ := w.(http.Hijacker).Hijack()
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nupstream")
			c.Close()
			return
		}
		io.WriteString(w, "upstream")
	}))
	defer up.Close()
	upURL, _ := url.Parse(up.URL)
	dial, _ := startProxy(t, []string{"public.test"}, Options{Upstream: func(*url.URL) (*url.URL, error) { return upURL, nil }})

	c := dial()
	br := bufio.NewReader(c)
	if code, body := roundTrip(t, c, br, "GET http://public.test/x HTTP/1.1\r\nHost: public.test\r\n\r\n", "GET"); code != 200 || body != "upstream" {
		t.Errorf("plain: %d %q", code, body)
	}
	c = dial()
	br = bufio.NewReader(c)
	if code, _ := roundTrip(t, c, br, "CONNECT public.test:443 HTTP/1.1\r\n\r\n", "CONNECT"); code != 200 {
		t.Fatalf("CONNECT: %d", code)
	}
	if code, body := roundTrip(t, c, br, "GET / HTTP/1.1\r\nHost: public.test\r\n\r\n", "GET"); code != 200 || body != "upstream" {
		t.Errorf("through the tunnel: %d %q", code, body)
	}
	c = dial()
	if code, _ := roundTrip(t, c, bufio.NewReader(c), "CONNECT evil.test:443 HTTP/1.1\r\n\r\n", "CONNECT"); code != 403 {
		t.Errorf("denied CONNECT: %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(seen, "|"), "GET http://public.test/x|CONNECT public.test:443"; got != want {
		t.Errorf("upstream saw %q, want %q", got, want)
	}
}

func TestListenLongPath(t *testing.T) {
	dir := t.TempDir() + "/" + strings.Repeat("d", 60) + "/" + strings.Repeat("e", 60)
	if err := mkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	l, sock, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v", sock, fi, err)
	}
	if !strings.HasPrefix(sock, dir+"/") || len(sock) < 108 {
		t.Errorf("socket %s: want a path in %s longer than sockaddr_un", sock, dir)
	}
}

func mkdirAll(d string) error { return os.MkdirAll(d, 0o700) }
