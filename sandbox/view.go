package sandbox

// View is what a sandbox shows, for people (git agent doctor): host paths
// readable, writable, and hidden (empty directories or masked files). It is
// derived from a Policy by DescribeView, purely.
type View struct {
	ReadOnly, ReadWrite, Hidden []string
}

// DescribeView lists p's binds by mode, in order (system view first).
// Symlinks, /proc and /dev are left out; a path bound twice appears under
// each mode it was bound with. For the Landlock backend the hidden paths are
// denied rather than empty, and everything not listed is denied too.
func DescribeView(p Policy) View {
	var v View
	for _, list := range [][]Bind{p.System, p.Binds} {
		for _, b := range list {
			switch b.Mode {
			case RO:
				if b.Src == b.Dst {
					v.ReadOnly = append(v.ReadOnly, b.Dst)
				} else {
					v.ReadOnly = append(v.ReadOnly, b.Dst+" (from "+b.Src+")")
				}
			case RW:
				v.ReadWrite = append(v.ReadWrite, b.Dst)
			case Tmpfs, MaskFile:
				v.Hidden = append(v.Hidden, b.Dst)
			}
		}
	}
	if p.Self != "" {
		v.ReadOnly = append(v.ReadOnly, p.Self)
	}
	return v
}
