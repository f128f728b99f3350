package run

import (
	"os"
	"path/filepath"
	"strings"
)

// toolchainEnv returns the environment that points every known toolchain's
// caches into cache (git-agent's own, per repository; DESIGN.md "caches")
// so that builds work in the sandbox with zero config and the user's own
// caches are never written. modDownload, when not empty, is the user's Go
// module download cache (bound read-only by the caller): Go fetches modules
// the user already has from it through a file:// GOPROXY, then from the
// network when network is on.
func toolchainEnv(cache, modDownload string, networkOn bool) []string {
	proxy := "off"
	if networkOn {
		proxy = os.Getenv("GOPROXY")
		if proxy == "" {
			proxy = "https://proxy.golang.org,direct"
		}
	}
	if modDownload != "" {
		proxy = "file://" + modDownload + "," + proxy
	}
	env := []string{
		"GOCACHE=" + filepath.Join(cache, "go-build"),
		"GOMODCACHE=" + filepath.Join(cache, "go-mod"),
		"GOPROXY=" + proxy,
		"GOTOOLCHAIN=local",
		"GOTELEMETRY=off",
		"npm_config_cache=" + filepath.Join(cache, "npm"),
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
		"PIP_CACHE_DIR=" + filepath.Join(cache, "pip"),
		"PIP_DISABLE_PIP_VERSION_CHECK=1",
		"CARGO_HOME=" + filepath.Join(cache, "cargo"),
		"XDG_CACHE_HOME=" + filepath.Join(cache, "xdg"),
		"TMPDIR=/tmp",
	}
	if !networkOn {
		env = append(env, "GOSUMDB=off")
	}
	return env
}

// userModDownload returns the user's Go module download cache
// ($GOMODCACHE/cache/download, else $GOPATH/pkg/mod/cache/download, else
// ~/go/pkg/mod/cache/download) when it exists, else "".
func userModDownload() string {
	dir := os.Getenv("GOMODCACHE")
	if dir == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		dir = filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")
	}
	dl := filepath.Join(dir, "cache", "download")
	if fi, err := os.Stat(dl); err == nil && fi.IsDir() {
		if real, err := filepath.EvalSymlinks(dl); err == nil {
			return real
		}
	}
	return ""
}

// cacheDirs lists the directories toolchainEnv names, for creating them
// before the sandbox starts (a bind needs its source to exist).
func cacheDirs(cache string) []string {
	var out []string
	for _, d := range []string{"go-build", "go-mod", "npm", "pip", "cargo", "xdg"} {
		out = append(out, filepath.Join(cache, d))
	}
	return out
}
