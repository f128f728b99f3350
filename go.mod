module github.com/git-agent/git-agent

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/creack/pty v1.1.24 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
)
