package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The Landlock backend's seccomp filter. Landlock (ABI 4-7) restricts only
// TCP connect and bind, so with the network off the init shim adds this
// filter: socket(2) is refused (EPERM) for every address family except
// AF_UNIX and AF_NETLINK (host-local) and AF_INET/AF_INET6 stream sockets
// of protocol 0 or IPPROTO_TCP (which Landlock then denies connect and
// bind). That refuses UDP (DNS included), ICMP, raw and packet sockets,
// MPTCP, SCTP and AF_VSOCK. socketcall(2) (32-bit x86 and arm, whose
// arguments a filter cannot read) and io_uring_setup(2) (IORING_OP_SOCKET
// creates sockets without socket(2)) are refused too. TIOCSTI and
// TIOCLINUX are refused always, as under bwrap (TerminalFilter).

// Socket constants (linux/socket.h, linux/net.h, linux/in.h).
const (
	afUnix      = 1
	afInet      = 2
	afInet6     = 10
	afNetlink   = 16
	sockStream  = 1
	sockTypeMsk = 0xf // SOCK_NONBLOCK and SOCK_CLOEXEC are above it
	ipprotoTCP  = 6
	offArg0     = 16
	offArg2     = 16 + 8*2
)

// archSyscalls is one audit architecture with its numbers for ioctl,
// socket, and the calls refused outright when the network is off.
type archSyscalls struct {
	arch    uint32
	ioctl   []uint32
	socket  []uint32
	refused []uint32 // socketcall, io_uring_setup
}

// landlockSyscalls returns the architectures a process on goarch can issue
// system calls for (see ioctlSyscalls), nil for an unknown one.
func landlockSyscalls(goarch string) []archSyscalls {
	const x32 = 0x40000000
	const ioUringSetup = 425 // the same on every architecture (asm-generic)
	arches := ioctlSyscalls(goarch)
	if arches == nil {
		return nil
	}
	more := map[string][][2][]uint32{ // per arch in ioctlSyscalls' order: socket, refused
		"amd64": {{{41, x32 | 41}, {ioUringSetup, x32 | ioUringSetup}}, {{359}, {102, ioUringSetup}}},
		"arm64": {{{198}, {ioUringSetup}}, {{281}, {102, ioUringSetup}}},
	}[goarch]
	var out []archSyscalls
	for i, a := range arches {
		out = append(out, archSyscalls{arch: a.arch, ioctl: a.nr, socket: more[i][0], refused: more[i][1]})
	}
	return out
}

// LandlockFilter returns the Landlock backend's seccomp program for goarch
// (see above): with networkOff the socket rules, always the terminal
// rules. Unknown architectures in the filtered process's data are allowed
// (a process can only use those of its kernel, all listed). It returns an
// error for a goarch other than amd64 and arm64.
func LandlockFilter(goarch string, networkOff bool) ([]bpf.RawInstruction, error) {
	arches := landlockSyscalls(goarch)
	if arches == nil {
		return nil, fmt.Errorf("sandbox: no seccomp filter for %s", goarch)
	}
	var a asm
	a.add(bpf.LoadAbsolute{Off: offArch, Size: 4}, "", "")
	for i, s := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: s.arch}, "", next)
		a.add(bpf.LoadAbsolute{Off: offNr, Size: 4}, "", "")
		for _, nr := range s.ioctl {
			a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr}, "ioctl", "")
		}
		if networkOff {
			for _, nr := range s.socket {
				a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr}, "socket", "")
			}
			for _, nr := range s.refused {
				a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr}, "deny", "")
			}
		}
		a.add(bpf.RetConstant{Val: retAllow}, "", "")
		a.label(next)
		if i < len(arches)-1 {
			a.add(bpf.LoadAbsolute{Off: offArch, Size: 4}, "", "")
		}
	}
	a.add(bpf.RetConstant{Val: retAllow}, "", "")
	a.label("ioctl")
	a.add(bpf.LoadAbsolute{Off: offArg1, Size: 4}, "", "")
	a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: ioctlTIOCSTI}, "deny", "")
	a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: ioctlTIOCLINUX}, "deny", "")
	a.add(bpf.RetConstant{Val: retAllow}, "", "")
	if networkOff {
		a.label("socket")
		a.add(bpf.LoadAbsolute{Off: offArg0, Size: 4}, "", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: afUnix}, "allow", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: afNetlink}, "allow", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet}, "inet", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet6}, "inet", "deny")
		a.label("inet")
		a.add(bpf.LoadAbsolute{Off: offArg1, Size: 4}, "", "")
		a.add(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMsk}, "", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: sockStream}, "", "deny")
		a.add(bpf.LoadAbsolute{Off: offArg2, Size: 4}, "", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0}, "allow", "")
		a.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: ipprotoTCP}, "allow", "deny")
		a.label("allow")
		a.add(bpf.RetConstant{Val: retAllow}, "", "")
	}
	a.label("deny")
	a.add(bpf.RetConstant{Val: retErrno | ePERM}, "", "")
	return a.assemble()
}

// asm is a classic BPF program with symbolic forward jump targets.
type asm struct {
	prog   []bpf.Instruction
	jt, jf []string       // per instruction: JumpIf targets ("" falls through)
	labels map[string]int // label → instruction index
}

func (a *asm) add(i bpf.Instruction, jt, jf string) {
	a.prog = append(a.prog, i)
	a.jt, a.jf = append(a.jt, jt), append(a.jf, jf)
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the labels (forward only, at most 255 instructions
// ahead) and assembles the program.
func (a *asm) assemble() ([]bpf.RawInstruction, error) {
	skip := func(i int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		t, ok := a.labels[name]
		if !ok || t <= i || t-i-1 > 255 {
			return 0, fmt.Errorf("sandbox: seccomp filter: bad jump from %d to %q", i, name)
		}
		return uint8(t - i - 1), nil
	}
	for i, ins := range a.prog {
		j, ok := ins.(bpf.JumpIf)
		if !ok {
			continue
		}
		var err1, err2 error
		j.SkipTrue, err1 = skip(i, a.jt[i])
		j.SkipFalse, err2 = skip(i, a.jf[i])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%v%v", err1, err2)
		}
		a.prog[i] = j
	}
	raw, err := bpf.Assemble(a.prog)
	if err != nil {
		return nil, fmt.Errorf("sandbox: assembling the seccomp filter: %v", err)
	}
	return raw, nil
}

// installLandlockFilter installs LandlockFilter for the running
// architecture on the calling thread (no_new_privs must already be set:
// Landlock sets it), which the command exec'ed from it inherits.
func installLandlockFilter(networkOff bool) error {
	raw, err := LandlockFilter(runtime.GOARCH, networkOff)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("installing the seccomp filter: %v", err)
	}
	runtime.KeepAlive(filter)
	return nil
}

// seccompSelfTest returns an error unless the status file (proc(5)) says
// the thread runs under a seccomp filter (Seccomp: 2).
func seccompSelfTest(status string) error {
	b, err := os.ReadFile(status)
	if err != nil {
		return fmt.Errorf("cannot read %s: %v", status, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, _ := strings.Cut(line, ":"); k == "Seccomp" {
			if strings.TrimSpace(v) != "2" {
				return fmt.Errorf("Seccomp is %s, want 2 (filter)", strings.TrimSpace(v))
			}
			return nil
		}
	}
	return fmt.Errorf("Seccomp missing from %s", status)
}
