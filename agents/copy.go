package agents

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Copy limits: a state file larger than MaxFileBytes is skipped, and
// copying stops (with a warning) once MaxTotalBytes have been copied.
const (
	MaxFileBytes  = 16 << 20
	MaxTotalBytes = 128 << 20
)

// copier copies state trees with symlinks never followed (they are
// skipped), sockets, fifos and devices skipped, and sizes bounded.
type copier struct {
	total    int64
	warnings []string
}

// tree copies the directory src into dst (created 0700), skipping entries
// whose name relative to src is in skip. A missing src is not an error.
func (c *copier) tree(src, dst string, skip map[string]bool) error {
	fi, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		c.warnings = append(c.warnings, src+" is not a directory (a symlink?); not copied")
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			c.warnings = append(c.warnings, "cannot read "+p+": "+err.Error())
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		if skip[rel] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(out, 0o700)
		case d.Type().IsRegular():
			return c.file(p, out, 0o600)
		}
		return nil // symlinks, sockets, fifos, devices
	})
}

// file copies the regular file src to dst with mode perm, refusing
// symlinks (src is opened with O_NOFOLLOW). A missing src is not an error.
func (c *copier) file(src, dst string, perm os.FileMode) error {
	in, err := os.OpenFile(src, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.warnings = append(c.warnings, "cannot read "+src+": "+err.Error())
		return nil
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if fi.Size() > MaxFileBytes {
		c.warnings = append(c.warnings, fmt.Sprintf("%s is larger than %d MiB; not copied", src, MaxFileBytes>>20))
		return nil
	}
	if c.total+fi.Size() > MaxTotalBytes {
		c.warnings = append(c.warnings, fmt.Sprintf("agent state over %d MiB; %s not copied", MaxTotalBytes>>20, src))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, MaxFileBytes))
	c.total += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
