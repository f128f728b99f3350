package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// PathBinds returns read-only binds that make the entries of path (a PATH
// value, colon-separated) usable inside the sandbox when they lie in a
// hidden directory (anything Visible reports false for: HOME, /root, /tmp,
// /srv, …), so toolchains such as ~/.pyenv/shims, ~/go/bin or
// ~/.cargo/bin keep working. For an entry HOME/<top>/... it binds
// HOME/<top> (pyenv's shims need pyenv's libexec), except when <top> is
// .local, .config or .cache, where it binds only the entry. HOME itself is
// never bound. Other hidden entries are bound as themselves. Each bind's Dst
// is the path as written; its Src has symlinks resolved on the host.
//
// It returns the binds in PATH order without duplicates or binds already
// covered by an earlier one, and missing: the hidden entries that do not
// exist on the host (the caller warns about them). Relative and empty
// entries are ignored.
func PathBinds(path string, home string) (binds []Bind, missing []string) {
	return pathBinds(path, home, filepath.EvalSymlinks)
}

// pathBinds is PathBinds with the symlink resolver as a parameter, so the
// rules are testable without a filesystem. resolve returns an error for a
// missing path.
func pathBinds(path, home string, resolve func(string) (string, error)) (binds []Bind, missing []string) {
	home = filepath.Clean(home)
	for _, e := range strings.Split(path, ":") {
		if e == "" || !filepath.IsAbs(e) {
			continue
		}
		e = filepath.Clean(e)
		target := e
		if h := homeOf(e, home); h != "" {
			if e == h {
				continue
			}
			top := strings.SplitN(strings.TrimPrefix(e, h+"/"), "/", 2)[0]
			if top != ".local" && top != ".config" && top != ".cache" {
				target = h + "/" + top
			}
		}
		real, err := resolve(e)
		if err != nil {
			if !Visible(e) {
				missing = append(missing, e)
			}
			continue
		}
		if Visible(e) && Visible(real) {
			continue
		}
		if target != e {
			if real, err = resolve(target); err != nil {
				missing = append(missing, e)
				continue
			}
		}
		if covered(binds, target) {
			continue
		}
		binds = append(binds, Bind{Src: real, Dst: target, Mode: RO})
	}
	return binds, missing
}

// homeOf returns the home directory that PATH entry e lies in: home
// itself, /root, or /home/<user> (a toolchain such as pyenv installed for
// root is found there even when $HOME points elsewhere), or "".
func homeOf(e, home string) string {
	if home != "/" && home != "." && under(e, home) {
		return home
	}
	if under(e, "/root") {
		return "/root"
	}
	if rest, ok := strings.CutPrefix(e, "/home/"); ok && rest != "" {
		return "/home/" + strings.SplitN(rest, "/", 2)[0]
	}
	return ""
}

// covered reports whether p is at or under the Dst of one of binds.
func covered(binds []Bind, p string) bool {
	for _, b := range binds {
		if under(p, b.Dst) {
			return true
		}
	}
	return false
}

// ResolveCommand finds the command name on path (a PATH value; a name with a
// slash is taken as a path) the way a shell would, and returns hostPath,
// the executable as found (symlinks not resolved, so tools that dispatch on
// argv[0] keep working), and binds: the read-only binds, Src = Dst, that make
// it runnable inside when it, its real target or its interpreter lie in a
// hidden directory (see Visible):
//
//   - hostPath's directory, by PathBinds' rule (HOME/<top>, or the directory
//     itself under HOME/.local, .config, .cache and outside HOME);
//   - the real target (symlinks resolved) when not covered by that: for an
//     npm-installed tool (a path through node_modules) that node_modules
//     directory (the package with its hoisted dependencies), else the file
//     itself;
//   - for a script whose "#!" line names an interpreter (directly or
//     through /usr/bin/env) that resolves into a hidden directory, that
//     interpreter's installation: the parent of its bin directory, else
//     the interpreter file.
//
// home is the user's HOME on the host. The error is an ERR_COMMAND_NOT_FOUND
// *errfmt.Error when name is not an executable file on path.
func ResolveCommand(name string, path string, home string) (hostPath string, binds []Bind, err error) {
	hostPath = lookPath(name, path)
	if hostPath == "" {
		return "", nil, errfmt.New(errfmt.ErrCommandNotFound, name+": command not found on PATH",
			"resolving the tool's command in PATH="+path,
			"install "+name+" or put its directory on PATH, then retry")
	}
	add := func(b Bind) {
		if !covered(binds, b.Dst) {
			binds = append(binds, b)
		}
	}
	dirBinds, _ := PathBinds(filepath.Dir(hostPath), home)
	for _, b := range dirBinds {
		add(b)
	}
	real, err := filepath.EvalSymlinks(hostPath)
	if err != nil {
		return hostPath, binds, nil
	}
	if !Visible(real) {
		dst := real
		if pkg := npmPackage(real); pkg != "" {
			dst = pkg
		}
		add(Bind{Src: dst, Dst: dst, Mode: RO})
	}
	if interp := shebang(real, path); interp != "" {
		if ireal, err := filepath.EvalSymlinks(interp); err == nil && !Visible(ireal) {
			inst := ireal
			if d := filepath.Dir(ireal); filepath.Base(d) == "bin" {
				inst = filepath.Dir(d)
			}
			add(Bind{Src: inst, Dst: inst, Mode: RO})
		}
	}
	return hostPath, binds, nil
}

// lookPath returns the first executable regular file named name in the
// colon-separated dirs of path ("" when none). A name with a slash is
// checked as is (made absolute).
func lookPath(name, path string) string {
	if name == "" {
		return ""
	}
	if strings.Contains(name, "/") {
		p, err := filepath.Abs(name)
		if err == nil && executable(p) {
			return p
		}
		return ""
	}
	for _, d := range strings.Split(path, ":") {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p := filepath.Join(d, name); executable(p) {
			return p
		}
	}
	return ""
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// npmPackage returns the node_modules directory holding the package of a
// file inside node_modules (the first node_modules component): npm hoists a
// package's dependencies beside it, among them the platform binaries of
// optional dependencies (@openai/codex-linux-x64), and pnpm keeps them there
// too. "" when p is not inside node_modules.
func npmPackage(p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		if c == "node_modules" && i+1 < len(parts)-1 {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

// shebang returns the host path of the interpreter named on file's "#!"
// line, looking "env NAME" up on path; "" when there is none.
func shebang(file, path string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" || !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) != "env" {
		return fields[0]
	}
	for _, a := range fields[1:] {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue // env -S, env VAR=x
		}
		return lookPath(a, path)
	}
	return ""
}
