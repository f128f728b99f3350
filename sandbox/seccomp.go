package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/net/bpf"
)

// Terminal ioctls the seccomp filter refuses (asm-generic/ioctls.h, the
// same on x86 and arm64): TIOCSTI pushes bytes into a terminal's input
// queue, so an agent holding the terminal could type commands into the
// user's shell after it exits; TIOCLINUX can do the same through the
// virtual console's selection buffer.
const (
	ioctlTIOCSTI   = 0x5412
	ioctlTIOCLINUX = 0x541C
)

// seccomp_data offsets (linux/seccomp.h): nr, arch, instruction pointer,
// then args[6] as 64-bit words; the ioctl request is args[1], an unsigned
// int, so its low word (little endian) is all that matters.
const (
	offNr   = 0
	offArch = 4
	offArg1 = 16 + 8*1
)

// seccomp return values (linux/seccomp.h).
const (
	retAllow = 0x7fff0000
	retErrno = 0x00050000
	ePERM    = 1
)

// archIoctl is one (audit architecture, ioctl syscall number) pair.
type archIoctl struct {
	arch uint32
	nr   []uint32
}

// ioctlSyscalls returns the architectures a process on goarch can issue
// system calls for, each with its ioctl numbers (x86_64 also has x32 and
// the i386 compat entry points; arm64 the 32-bit arm ones). It returns nil
// for an architecture git-agent does not know.
func ioctlSyscalls(goarch string) []archIoctl {
	const (
		auditArch64 = 0x80000000 // __AUDIT_ARCH_64BIT
		auditLE     = 0x40000000 // __AUDIT_ARCH_LE
		x32Bit      = 0x40000000 // __X32_SYSCALL_BIT
	)
	switch goarch {
	case "amd64":
		return []archIoctl{
			{auditArch64 | auditLE | 62, []uint32{16, x32Bit | 514}}, // AUDIT_ARCH_X86_64: ioctl, x32 ioctl
			{auditLE | 3, []uint32{54}},                              // AUDIT_ARCH_I386
		}
	case "arm64":
		return []archIoctl{
			{auditArch64 | auditLE | 183, []uint32{29}}, // AUDIT_ARCH_AARCH64
			{auditLE | 40, []uint32{54}},                // AUDIT_ARCH_ARM
		}
	}
	return nil
}

// TerminalFilter returns the classic BPF program, as the bytes bwrap's
// --seccomp takes (struct sock_filter[] in native byte order), that makes
// ioctl(fd, TIOCSTI, …) and ioctl(fd, TIOCLINUX, …) fail with EPERM and
// allows every other system call (DESIGN.md invariant 9, defence in depth:
// the agent's terminal is git-agent's pty, never the user's). It returns an
// error for an architecture other than amd64 and arm64.
func TerminalFilter(goarch string) ([]byte, error) {
	arches := ioctlSyscalls(goarch)
	if arches == nil {
		return nil, fmt.Errorf("sandbox: no seccomp filter for %s", goarch)
	}
	// Layout: for each arch, "if arch == A { if nr in N goto check }";
	// then allow; check: deny the two requests, else allow.
	var prog []bpf.Instruction
	var toCheck []int // indexes of jumps whose true branch goes to check
	prog = append(prog, bpf.LoadAbsolute{Off: offArch, Size: 4})
	for _, a := range arches {
		// Skip this arch's block when the architecture differs.
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.arch, SkipFalse: uint8(1 + len(a.nr) + 1)})
		prog = append(prog, bpf.LoadAbsolute{Off: offNr, Size: 4})
		for _, nr := range a.nr {
			toCheck = append(toCheck, len(prog))
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr})
		}
		prog = append(prog, bpf.RetConstant{Val: retAllow})
		// The next arch test needs arch in A again.
		prog = append(prog, bpf.LoadAbsolute{Off: offArch, Size: 4})
	}
	prog[len(prog)-1] = bpf.RetConstant{Val: retAllow}
	check := len(prog)
	for _, i := range toCheck {
		j := prog[i].(bpf.JumpIf)
		j.SkipTrue = uint8(check - i - 1)
		prog[i] = j
	}
	prog = append(prog,
		bpf.LoadAbsolute{Off: offArg1, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: ioctlTIOCSTI, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: ioctlTIOCLINUX, SkipTrue: 1},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retErrno | ePERM},
	)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("sandbox: assembling the seccomp filter: %v", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, r := range raw {
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// hostTerminalFilter is TerminalFilter for the running architecture.
func hostTerminalFilter() ([]byte, error) { return TerminalFilter(runtime.GOARCH) }

// filterPipe returns the read end of a pipe holding the host's
// TerminalFilter, whole (it is far below the pipe's capacity) and with the
// write end closed, for bwrap's --seccomp.
func filterPipe() (*os.File, error) {
	prog, err := hostTerminalFilter()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(prog)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}
