package netproxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// Proxy is the filtering forward proxy. Build it with New; serve it with
// Serve or as an http.Handler.
type Proxy struct {
	allow    Allowlist
	resolver Resolver
	upstream func(*url.URL) (*url.URL, error)
	log      *Log
	dialer   net.Dialer
	rp       *httputil.ReverseProxy
}

// Options configure New. Zero values mean: the system resolver, the
// host's HTTPS_PROXY/HTTP_PROXY/NO_PROXY (http.ProxyFromEnvironment), and no
// log.
type Options struct {
	// Resolver resolves allowed names (tests use a fixed table).
	Resolver Resolver
	// Upstream returns the upstream proxy for a target URL
	// (scheme "https" for CONNECT, "http" for plain requests), or nil.
	Upstream func(*url.URL) (*url.URL, error)
	// Log receives one JSON line per decision.
	Log *Log
}

// New returns a proxy enforcing allow.
func New(allow Allowlist, o Options) *Proxy {
	p := &Proxy{allow: allow, resolver: o.Resolver, upstream: o.Upstream, log: o.Log}
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	if p.upstream == nil {
		p.upstream = func(u *url.URL) (*url.URL, error) {
			return http.ProxyFromEnvironment(&http.Request{URL: u})
		}
	}
	tr := &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) { return p.upstream(r.URL) },
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if d, ok := ctx.Value(decisionKey{}).(Decision); ok {
				if u, _ := p.upstream(&url.URL{Scheme: "http", Host: addr}); u == nil {
					return p.dialChecked(ctx, d)
				}
			}
			return p.dialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     false,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 5 * time.Minute,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL = r.In.URL
			r.Out.Host = "" // the checked URL's host, never a client-sent Host header
			r.Out.Header.Del("Proxy-Authorization")
			r.Out.Header.Del("Proxy-Connection")
		},
		Transport: tr,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "git-agent proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	return p
}

type decisionKey struct{}

// Serve accepts connections on l until it is closed or ctx is done, and
// returns after every handler has returned... or nearly: hijacked tunnels
// are closed when ctx is done.
func (p *Proxy) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err := srv.Serve(l)
	if err == http.ErrServerClosed {
		return nil
	}
	return err
}

// ServeHTTP handles one proxy request: CONNECT authority, or an
// absolute-form URL with scheme http. Anything else (origin-form requests,
// other schemes) is refused with 400.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var authority string
	switch {
	case r.Method == http.MethodConnect:
		authority = r.URL.Host
	case r.URL.IsAbs() && r.URL.Scheme == "http" && r.URL.Host != "":
		authority = r.URL.Host
		if r.URL.Port() == "" {
			authority = net.JoinHostPort(r.URL.Hostname(), "80")
		}
	default:
		p.log.Write(Entry{Method: r.Method, Target: r.RequestURI, Reason: "not a proxy request"})
		http.Error(w, "git-agent proxy: only CONNECT and absolute-form http:// requests are served", http.StatusBadRequest)
		return
	}
	d := p.allow.Check(r.Context(), p.resolver, authority)
	p.log.Write(Entry{Method: r.Method, Target: authority, Host: d.Host, Port: d.Port, Allowed: d.Allowed, Reason: d.Reason})
	if !d.Allowed {
		Refuse(w, d.Host)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, d)
		return
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), decisionKey{}, d)))
}

// Refuse writes the policy refusal: 403 with body
// "blocked by git-agent policy: host X\n".
func Refuse(w http.ResponseWriter, host string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Git-Agent-Policy", "blocked")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "blocked by git-agent policy: host %s\n", host)
}

// tunnel answers an allowed CONNECT: it connects (directly to the checked
// addresses, or through the upstream proxy), says 200, and relays bytes.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, d Decision) {
	target := net.JoinHostPort(d.Host, d.Port)
	up, err := p.upstream(&url.URL{Scheme: "https", Host: target})
	var conn net.Conn
	if err == nil && up != nil {
		conn, err = p.dialUpstream(r.Context(), up, target)
	} else if err == nil {
		conn, err = p.dialChecked(r.Context(), d)
	}
	if err != nil {
		http.Error(w, "git-agent proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		conn.Close()
		http.Error(w, "git-agent proxy: cannot hijack", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		conn.Close()
		return
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		client.Close()
		conn.Close()
		return
	}
	if n := buf.Reader.Buffered(); n > 0 {
		b, _ := buf.Reader.Peek(n)
		conn.Write(b)
	}
	Relay(r.Context(), client, conn)
}

// dialChecked connects to the first of d's checked addresses that answers.
func (p *Proxy) dialChecked(ctx context.Context, d Decision) (net.Conn, error) {
	var last error
	for _, ip := range d.Addrs {
		c, err := p.dialer.DialContext(ctx, "tcp", net.JoinHostPort(ip.String(), d.Port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("no address for %s", d.Host)
	}
	return nil, last
}

// dialUpstream opens a tunnel to target through the http:// proxy up.
func (p *Proxy) dialUpstream(ctx context.Context, up *url.URL, target string) (net.Conn, error) {
	if up.Scheme != "http" && up.Scheme != "" {
		return nil, fmt.Errorf("upstream proxy %s: only http:// upstream proxies are supported", up.Redacted())
	}
	hostport := up.Host
	if up.Port() == "" {
		hostport = net.JoinHostPort(up.Hostname(), "80")
	}
	c, err := p.dialer.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	req := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
	if up.User != nil {
		pw, _ := up.User.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(up.User.Username()+":"+pw)) + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("upstream proxy refused CONNECT %s: %s", target, resp.Status)
	}
	if br.Buffered() > 0 {
		return &bufConn{Conn: c, r: br}, nil
	}
	return c, nil
}

// bufConn is a net.Conn whose first bytes come from a bufio.Reader.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// Relay copies a↔b, half-closing each direction (CloseWrite) when its
// source ends, until both directions end or ctx is done; then it closes
// both. The proxy relays CONNECT tunnels with it, and the in-sandbox bridge
// its connections to the proxy's socket.
func Relay(ctx context.Context, a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	half := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			dst.Close()
		}
	}
	go half(a, b)
	go half(b, a)
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			a.Close()
			b.Close()
		case <-done:
		}
	}()
	wg.Wait()
	close(done)
	a.Close()
	b.Close()
}
