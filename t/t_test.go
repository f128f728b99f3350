// Package t holds git-agent's end-to-end tests: testscript scenarios
// (t/tNNNN-area-detail.txtar, named like git's own suite) run against the
// built binary with real git and real bubblewrap.
//
// Each scenario gets its own HOME, XDG directories and git identity under
// $WORK, git-agent on PATH, and these extra commands:
//
//	lastrun VAR           set $VAR to the newest run's id
//	snap NAME DIR...      record a digest of DIR's files (and .git's index, HEAD and config) as NAME
//	same NAME DIR...      fail unless DIR's digest still equals NAME's
//	httpserve VAR         start a host HTTP server on 127.0.0.1 answering
//	                      "host-secret <Host>" (a host loopback service);
//	                      set $VAR to its port
package t

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// binDir is the directory holding the git-agent binary built for the tests.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "git-agent-t-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "git-agent"), "../cmd/git-agent")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building git-agent:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestScenarios(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bwrap is not installed; CI must install bubblewrap")
		}
		t.Skip("bwrap is not installed: apt-get install -y bubblewrap")
	}
	var files []string
	all, _ := filepath.Glob("t[0-9][0-9][0-9][0-9]-*.txtar")
	for _, f := range all {
		if !isBattery(f) { // TestBattery runs those
			files = append(files, f)
		}
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		Setup:               setup,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"lastrun": lastrun, "snap": snap, "same": same, "httpserve": httpserve},
	})
}

// setup gives each scenario a private HOME, XDG dirs and git identity.
func setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	for _, d := range []string{home, filepath.Join(home, ".config", "git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	gitconfig := "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	path := binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	for k, v := range map[string]string{
		"HOME": home, "PATH": path, "XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1", "GOPATH": os.Getenv("GOPATH"), "GOMODCACHE": os.Getenv("GOMODCACHE"),
		"GOFLAGS": os.Getenv("GOFLAGS"), "TZ": "UTC", "LANG": "C.UTF-8",
	} {
		env.Setenv(k, v)
	}
	return nil
}

func lastrun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lastrun VAR")
	}
	cmd := exec.Command(filepath.Join(binDir, "git-agent"), "show", "last", "--json")
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = environ(ts)
	out, err := cmd.Output()
	if err != nil {
		ts.Fatalf("git agent show last: %v", err)
	}
	i := strings.Index(string(out), `"id": "`)
	if i < 0 {
		ts.Fatalf("no id in %s", out)
	}
	id := string(out[i+7:])
	id = id[:strings.IndexByte(id, '"')]
	ts.Setenv(args[0], id)
}

func environ(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"HOME", "PATH", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "TZ", "LANG"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// digest hashes every file under dirs (path, mode, content), following no
// symlink, in a stable order.
func digest(ts *testscript.TestScript, dirs []string) string {
	h := sha256.New()
	for _, d := range dirs {
		root := ts.MkAbs(d)
		var files []string
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() && de.Name() == ".git" {
				// The user's checkout state: index, HEAD, config, hooks.
				for _, f := range []string{"index", "HEAD", "config"} {
					if _, err := os.Lstat(filepath.Join(p, f)); err == nil {
						files = append(files, filepath.Join(p, f))
					}
				}
				return fs.SkipDir
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			ts.Fatalf("digest %s: %v", d, err)
		}
		sort.Strings(files)
		for _, p := range files {
			fi, err := os.Lstat(p)
			if err != nil {
				ts.Fatalf("%v", err)
			}
			fmt.Fprintf(h, "%s %v %d\n", strings.TrimPrefix(p, root), fi.Mode(), fi.Size())
			if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				h.Write(b)
			} else if fi.Mode()&fs.ModeSymlink != 0 {
				l, _ := os.Readlink(p)
				h.Write([]byte(l))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func snap(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: snap NAME DIR...")
	}
	ts.Setenv("SNAP_"+args[0], digest(ts, args[1:]))
}

func same(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: same NAME DIR...")
	}
	eq := ts.Getenv("SNAP_"+args[0]) == digest(ts, args[1:])
	if eq == neg {
		ts.Fatalf("digest of %v changed=%v since snap %s", args[1:], !eq, args[0])
	}
}

func httpserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpserve VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("httpserve: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "host-secret %s\n", r.Host)
	})}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], fmt.Sprint(l.Addr().(*net.TCPAddr).Port))
}
