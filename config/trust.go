package config

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// ContentHash returns "sha256:<hex>" of data: the identity of a project
// config for trust.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// configHome returns $XDG_CONFIG_HOME when absolute, else ~/.config, else
// "" when neither is known.
func configHome() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}

// UserConfigPath returns $XDG_CONFIG_HOME/git-agent/config.toml, or
// ~/.config/git-agent/config.toml when XDG_CONFIG_HOME is unset or not
// absolute; "" when no home directory is known. The file may not exist.
func UserConfigPath() string {
	if d := configHome(); d != "" {
		return filepath.Join(d, "git-agent", "config.toml")
	}
	return ""
}

// TrustStore is the user's record of trusted project configs: a text file
// with one "sha256:<hex> <repoKey>" line per trusted (repository, content)
// pair. repoKey is the repository's common dir (absolute path).
type TrustStore struct {
	// Path is the store's file; DefaultTrustStore gives the usual one.
	Path string
}

// DefaultTrustStore returns the store at $XDG_CONFIG_HOME/git-agent/trust
// (or ~/.config/git-agent/trust).
func DefaultTrustStore() TrustStore {
	if d := configHome(); d != "" {
		return TrustStore{Path: filepath.Join(d, "git-agent", "trust")}
	}
	return TrustStore{}
}

// Trusted reports whether (repoKey, hash) was added. A missing store file
// means nothing is trusted; an unreadable one is an ErrIO error.
func (s TrustStore) Trusted(repoKey, hash string) (bool, error) {
	lines, err := s.read()
	if err != nil {
		return false, err
	}
	want := hash + " " + repoKey
	for _, l := range lines {
		if l == want {
			return true, nil
		}
	}
	return false, nil
}

// Add records (repoKey, hash) as trusted. It rewrites the store atomically
// (temporary file in the same directory, fsync, rename) with mode 0600,
// creating the directory with 0700. Adding an existing pair is a no-op.
// Concurrent Adds may lose one of the pairs (the last rename wins); the
// caller runs Add only from "git agent trust". Errors are ErrIO, or
// ErrUsage for a key or hash containing a newline.
func (s TrustStore) Add(repoKey, hash string) error {
	if strings.ContainsAny(repoKey+hash, "\n\r") || strings.Contains(hash, " ") || repoKey == "" || hash == "" {
		return errfmt.New(errfmt.ErrUsage, "invalid trust entry", "recording trust in "+s.Path,
			"pass a repository path and a content hash without newlines")
	}
	lines, err := s.read()
	if err != nil {
		return err
	}
	entry := hash + " " + repoKey
	for _, l := range lines {
		if l == entry {
			return nil
		}
	}
	lines = append(lines, entry)
	return s.write(lines)
}

func (s TrustStore) ioErr(err error, doing string) error {
	return errfmt.Wrap(errfmt.ErrIO, err, "cannot "+doing+" the trust store", doing+" "+s.Path,
		"check the permissions of "+s.Path)
}

// read returns the store's non-empty lines.
func (s TrustStore) read() ([]string, error) {
	if s.Path == "" {
		return nil, errfmt.New(errfmt.ErrIO, "no trust store path (no home directory)",
			"reading the trust store", "set HOME or XDG_CONFIG_HOME")
	}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.ioErr(err, "read")
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, s.ioErr(err, "read")
	}
	return out, nil
}

func (s TrustStore) write(lines []string) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s.ioErr(err, "write")
	}
	tmp, err := os.CreateTemp(dir, ".trust-*")
	if err != nil {
		return s.ioErr(err, "write")
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	_, err = tmp.WriteString(strings.Join(lines, "\n") + "\n")
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.Path)
	}
	if err != nil {
		return s.ioErr(err, "write")
	}
	return nil
}

// CheckTrust decides whether project layer f (parsed from data) may be
// used. It returns nil when f widens nothing or when (repoKey,
// ContentHash(data)) is in s; otherwise an *errfmt.Error with code
// ErrUntrusted whose What names the first widening key as
// "path:line:col: <key>: <why>" and whose remedy is
// "review <path>, then run: git agent trust". Store read failures are
// returned as they are (ErrIO).
func CheckTrust(f *File, s TrustStore, repoKey string, data []byte) error {
	ws := widenings(f)
	if len(ws) == 0 {
		return nil
	}
	ok, err := s.Trusted(repoKey, ContentHash(data))
	if err != nil || ok {
		return err
	}
	w := ws[0]
	what := f.Where(w.key) + ": " + w.key + ": " + w.why + "; a project config may only narrow the policy"
	if len(ws) > 1 {
		what += " (and " + strconv.Itoa(len(ws)-1) + " more widening keys)"
	}
	return errfmt.New(errfmt.ErrUntrusted, what,
		"loading the project config of "+repoKey,
		"review "+f.Path+", then run: git agent trust")
}
