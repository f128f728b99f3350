package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
)

// TestLandlockFilter runs the program in x/net/bpf's VM over seccomp_data
// records (big-endian words, as the VM loads them; see TestTerminalFilter).
func TestLandlockFilter(t *testing.T) {
	const x8664, i386, aarch64, arm = 0xc000003e, 0x40000003, 0xc00000b7, 0x40000028
	const deny, allow = retErrno | ePERM, retAllow
	const nonblock = 0x800
	tests := []struct {
		name       string
		goarch     string
		off        bool
		arch, nr   uint32
		a0, a1, a2 uint32
		want       uint32
	}{
		{"udp", "amd64", true, x8664, 41, afInet, 2, 0, deny},
		{"udp6", "amd64", true, x8664, 41, afInet6, 2 | nonblock, 17, deny},
		{"udp network on", "amd64", false, x8664, 41, afInet, 2, 0, allow},
		{"tcp", "amd64", true, x8664, 41, afInet, sockStream, 0, allow},
		{"tcp nonblock", "amd64", true, x8664, 41, afInet6, sockStream | nonblock, ipprotoTCP, allow},
		{"mptcp", "amd64", true, x8664, 41, afInet, sockStream, 262, deny},
		{"sctp", "amd64", true, x8664, 41, afInet, sockStream, 132, deny},
		{"raw", "amd64", true, x8664, 41, afInet, 3, 1, deny},
		{"packet", "amd64", true, x8664, 41, 17, 3, 0, deny},
		{"vsock", "amd64", true, x8664, 41, 40, sockStream, 0, deny},
		{"unix", "amd64", true, x8664, 41, afUnix, 2, 0, allow},
		{"netlink", "amd64", true, x8664, 41, afNetlink, 3, 0, allow},
		{"x32 udp", "amd64", true, x8664, 0x40000000 | 41, afInet, 2, 0, deny},
		{"i386 socketcall", "amd64", true, i386, 102, 1, 0, 0, deny},
		{"i386 socketcall on", "amd64", false, i386, 102, 1, 0, 0, allow},
		{"i386 udp", "amd64", true, i386, 359, afInet, 2, 0, deny},
		{"io_uring", "amd64", true, x8664, 425, 0, 0, 0, deny},
		{"io_uring on", "amd64", false, x8664, 425, 0, 0, 0, allow},
		{"read", "amd64", true, x8664, 0, afInet, 2, 0, allow},
		{"tiocsti", "amd64", false, x8664, 16, 0, ioctlTIOCSTI, 0, deny},
		{"tiocsti off", "amd64", true, x8664, 16, 0, ioctlTIOCSTI, 0, deny},
		{"tioclinux", "amd64", true, i386, 54, 0, ioctlTIOCLINUX, 0, deny},
		{"tiocgwinsz", "amd64", true, x8664, 16, 0, 0x5413, 0, allow},
		{"arm64 udp", "arm64", true, aarch64, 198, afInet, 2, 0, deny},
		{"arm64 tcp", "arm64", true, aarch64, 198, afInet, sockStream, 0, allow},
		{"arm udp", "arm64", true, arm, 281, afInet6, 2, 0, deny},
		{"arm64 tiocsti", "arm64", false, aarch64, 29, 0, ioctlTIOCSTI, 0, deny},
		{"foreign arch", "arm64", true, x8664, 41, afInet, 2, 0, allow},
	}
	for _, tc := range tests {
		raw, err := LandlockFilter(tc.goarch, tc.off)
		if err != nil {
			t.Fatal(err)
		}
		var prog []bpf.Instruction
		for _, r := range raw {
			prog = append(prog, r.Disassemble())
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		data := make([]byte, 64)
		binary.BigEndian.PutUint32(data[offNr:], tc.nr)
		binary.BigEndian.PutUint32(data[offArch:], tc.arch)
		binary.BigEndian.PutUint32(data[offArg0:], tc.a0)
		binary.BigEndian.PutUint32(data[offArg1:], tc.a1)
		binary.BigEndian.PutUint32(data[offArg2:], tc.a2)
		got, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(got) != tc.want {
			t.Errorf("%s: got %#x, want %#x", tc.name, uint32(got), tc.want)
		}
	}
	if _, err := LandlockFilter("riscv64", true); err == nil {
		t.Error("riscv64: no error for an unknown architecture")
	}
}

func TestSeccompSelfTest(t *testing.T) {
	for _, c := range []struct {
		status string
		ok     bool
	}{
		{"Name:\tx\nSeccomp:\t2\n", true},
		{"Seccomp:\t0\n", false},
		{"Name:\tx\n", false},
	} {
		f := t.TempDir() + "/status"
		writeFile(t, f, c.status)
		if err := seccompSelfTest(f); (err == nil) != c.ok {
			t.Errorf("%q: got %v, want ok=%v", c.status, err, c.ok)
		}
	}
}
