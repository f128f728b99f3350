package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// BwrapArgs returns the argument list for bwrap (without "bwrap" itself)
// that runs p.Argv under p. It is pure: it reads no file and no environment.
// The order follows bwrap's own (see bwrap(1)):
//
//  1. namespaces and privileges: --unshare-user --unshare-pid --unshare-ipc
//     --unshare-uts --unshare-cgroup-try, --unshare-net when Network is
//     "off", --cap-drop ALL --disable-userns --die-with-parent --new-session;
//  2. the mounts, p.System then p.Binds, in slice order, then Self bound
//     read-only at SelfPath (last, so no bind can cover it), and p.Proxy
//     read-only at ProxySocket when set;
//  3. --chdir p.Dir when set;
//  4. "--", SelfPath, InitCommand, ["--net-bridge" when p.Proxy is set,]
//     ["--scope-ipc" when Network is "on",] "--", p.Argv...
//
// The environment is not in the list: Run passes p.Env as bwrap's own
// environment so no secret ever appears in argv (invariant 7). Run adds
// --json-status-fd in front.
//
// It returns an error when Network is neither "off" nor "on", Proxy is set
// with Network "on", Argv is
// empty, System is empty (call SystemBinds), Self or a path is not absolute
// and clean, or a mode is unknown.
func BwrapArgs(p Policy) ([]string, error) {
	if len(p.Argv) == 0 || p.Argv[0] == "" {
		return nil, fmt.Errorf("sandbox: no command to run")
	}
	if len(p.System) == 0 {
		return nil, fmt.Errorf("sandbox: empty system view (use SystemBinds)")
	}
	if err := checkPath("self", p.Self); err != nil {
		return nil, err
	}
	a := []string{
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try",
	}
	switch p.Network {
	case "off":
		a = append(a, "--unshare-net")
	case "on":
		if p.Proxy != "" {
			return nil, fmt.Errorf("sandbox: a proxy needs network \"off\" (its own namespace)")
		}
	default:
		return nil, fmt.Errorf("sandbox: network %q: want \"off\" or \"on\"", p.Network)
	}
	a = append(a, "--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--new-session")
	for _, list := range [][]Bind{p.System, p.Binds} {
		for _, b := range list {
			m, err := mountArgs(b)
			if err != nil {
				return nil, err
			}
			a = append(a, m...)
		}
	}
	a = append(a, "--ro-bind", p.Self, SelfPath)
	init := []string{"--", SelfPath, InitCommand}
	if p.Proxy != "" {
		if err := checkPath("proxy socket", p.Proxy); err != nil {
			return nil, err
		}
		a = append(a, "--ro-bind", p.Proxy, ProxySocket)
		init = append(init, bridgeFlag)
	}
	if p.Network == "on" {
		init = append(init, scopeFlag)
	}
	if p.Dir != "" {
		if err := checkPath("dir", p.Dir); err != nil {
			return nil, err
		}
		a = append(a, "--chdir", p.Dir)
	}
	a = append(append(a, init...), "--")
	return append(a, p.Argv...), nil
}

// mountArgs returns the bwrap options for one Bind.
func mountArgs(b Bind) ([]string, error) {
	if err := checkPath(b.Mode.String()+" destination", b.Dst); err != nil {
		return nil, err
	}
	var perms []string
	if b.Perms != 0 {
		perms = []string{"--perms", fmt.Sprintf("%04o", b.Perms&0o7777)}
	}
	switch b.Mode {
	case RO, RW:
		if err := checkPath(b.Mode.String()+" source", b.Src); err != nil {
			return nil, err
		}
		if b.Mode == RO {
			return []string{"--ro-bind", b.Src, b.Dst}, nil
		}
		return []string{"--bind", b.Src, b.Dst}, nil
	case Tmpfs:
		return append(perms, "--tmpfs", b.Dst), nil
	case Dir:
		return append(perms, "--dir", b.Dst), nil
	case Symlink:
		if b.Src == "" || strings.ContainsRune(b.Src, 0) {
			return nil, fmt.Errorf("sandbox: symlink %s: bad target %q", b.Dst, b.Src)
		}
		return []string{"--symlink", b.Src, b.Dst}, nil
	case Proc:
		return []string{"--proc", b.Dst}, nil
	case Dev:
		return []string{"--dev", b.Dst}, nil
	case MaskFile:
		return []string{"--ro-bind", "/dev/null", b.Dst}, nil
	}
	return nil, fmt.Errorf("sandbox: %s: unknown mount mode %d", b.Dst, int(b.Mode))
}

// checkPath rejects paths bwrap would resolve against its own working
// directory or that are not in canonical form.
func checkPath(what, p string) error {
	if p == "" || !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("sandbox: %s path %q is not absolute and clean", what, p)
	}
	return nil
}
