package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

func TestPathBinds(t *testing.T) {
	// The fake filesystem: existing paths, with symlinks as a map.
	exist := map[string]string{
		"/home/u/.pyenv/shims":         "/home/u/.pyenv/shims",
		"/home/u/.pyenv":               "/home/u/.pyenv",
		"/home/u/.pyenv/bin":           "/home/u/.pyenv/bin",
		"/home/u/go/bin":               "/home/u/go/bin",
		"/home/u/go":                   "/home/u/go",
		"/home/u/.local/bin":           "/home/u/.local/bin",
		"/home/u/.cargo/bin":           "/home/u/.cargo/bin",
		"/home/u/.cargo":               "/data/cargo", // a symlink
		"/home/u":                      "/home/u",
		"/usr/bin":                     "/usr/bin",
		"/usr/local/bin":               "/usr/local/bin",
		"/opt/tool/bin":                "/opt/tool/bin",
		"/srv/tools/bin":               "/srv/tools/bin",
		"/home/u/.config/composer/bin": "/home/u/.config/composer/bin",
		"/root/.pyenv/shims":           "/root/.pyenv/shims",
		"/root/.pyenv":                 "/root/.pyenv",
		"/home/other/.cargo/bin":       "/home/other/.cargo/bin",
		"/home/other/.cargo":           "/home/other/.cargo",
	}
	resolve := func(p string) (string, error) {
		if r, ok := exist[p]; ok {
			return r, nil
		}
		return "", errors.New("missing")
	}
	ro := func(src, dst string) Bind { return Bind{Src: src, Dst: dst, Mode: RO} }
	tests := []struct {
		name        string
		path        string
		wantBinds   []Bind
		wantMissing []string
	}{
		{"system only", "/usr/local/bin:/usr/bin:/opt/tool/bin", nil, nil},
		{"pyenv binds its root once", "/home/u/.pyenv/shims:/home/u/.pyenv/bin:/usr/bin",
			[]Bind{ro("/home/u/.pyenv", "/home/u/.pyenv")}, nil},
		{"go bin binds ~/go", "/home/u/go/bin", []Bind{ro("/home/u/go", "/home/u/go")}, nil},
		{".local binds only the entry", "/home/u/.local/bin", []Bind{ro("/home/u/.local/bin", "/home/u/.local/bin")}, nil},
		{".config binds only the entry", "/home/u/.config/composer/bin",
			[]Bind{ro("/home/u/.config/composer/bin", "/home/u/.config/composer/bin")}, nil},
		{"symlinked top resolved", "/home/u/.cargo/bin:/home/u/.cargo/bin", []Bind{ro("/data/cargo", "/home/u/.cargo")}, nil},
		{"home itself never", "/home/u:/home/u/", nil, nil},
		{"hidden outside home", "/srv/tools/bin", []Bind{ro("/srv/tools/bin", "/srv/tools/bin")}, nil},
		{"missing reported", "/home/u/.nvm/bin:/tmp/nope:/usr/nope", nil, []string{"/home/u/.nvm/bin", "/tmp/nope"}},
		{"relative and empty ignored", "bin::./x", nil, nil},
		{"root's pyenv when HOME is elsewhere binds its root", "/root/.pyenv/shims",
			[]Bind{ro("/root/.pyenv", "/root/.pyenv")}, nil},
		{"another user's home binds the top dir", "/home/other/.cargo/bin",
			[]Bind{ro("/home/other/.cargo", "/home/other/.cargo")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, m := pathBinds(tc.path, "/home/u", resolve)
			if !reflect.DeepEqual(b, tc.wantBinds) {
				t.Errorf("binds = %v, want %v", b, tc.wantBinds)
			}
			if !reflect.DeepEqual(m, tc.wantMissing) {
				t.Errorf("missing = %v, want %v", m, tc.wantMissing)
			}
		})
	}
}

func TestResolveCommand(t *testing.T) {
	dir := t.TempDir() // under /tmp: hidden inside
	home := filepath.Join(dir, "home")
	write := func(p, s string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	// An nvm-style node with a globally installed npm package.
	nodeRoot := filepath.Join(dir, "nodejs")
	write(filepath.Join(nodeRoot, "bin/node"), "#!/bin/sh\n", 0o755)
	pkg := filepath.Join(nodeRoot, "lib/node_modules/@acme/agent")
	write(filepath.Join(pkg, "package.json"), "{}", 0o644)
	write(filepath.Join(pkg, "dist/package.json"), "{}", 0o644)
	write(filepath.Join(pkg, "dist/cli.js"), "#!/usr/bin/env node\n", 0o755)
	bin := filepath.Join(home, ".npm-global/bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(filepath.Join(pkg, "dist/cli.js"), filepath.Join(bin, "agent")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(home, ".local/bin/plain"), "#!/bin/sh\n", 0o755)
	path := bin + ":" + filepath.Join(home, ".local/bin") + ":" + filepath.Join(nodeRoot, "bin") + ":/usr/bin:/bin"

	ro := func(p string) Bind { return Bind{Src: p, Dst: p, Mode: RO} }
	tests := []struct {
		name      string
		cmd       string
		wantPath  string
		wantBinds []Bind
	}{
		{"npm package and its interpreter", "agent", filepath.Join(bin, "agent"),
			[]Bind{ro(filepath.Join(home, ".npm-global")), ro(filepath.Join(nodeRoot, "lib/node_modules")), ro(nodeRoot)}},
		{"script under .local", "plain", filepath.Join(home, ".local/bin/plain"),
			[]Bind{ro(filepath.Join(home, ".local/bin"))}},
		{"system command", "sh", "/usr/bin/sh", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, binds, err := ResolveCommand(tc.cmd, path, home)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.wantPath {
				t.Errorf("hostPath = %q, want %q", got, tc.wantPath)
			}
			if !reflect.DeepEqual(binds, tc.wantBinds) {
				t.Errorf("binds = %v\nwant %v", binds, tc.wantBinds)
			}
		})
	}
	_, _, err := ResolveCommand("no-such-tool", path, home)
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrCommandNotFound {
		t.Errorf("missing command: got %v, want ERR_COMMAND_NOT_FOUND", err)
	}
}
