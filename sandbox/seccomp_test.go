package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
)

// TestTerminalFilter runs the assembled program in x/net/bpf's VM over
// seccomp_data records. The VM loads big-endian words, so the records are
// built big-endian and the program is decoded from native order.
func TestTerminalFilter(t *testing.T) {
	const x8664, i386, aarch64, arm = 0xc000003e, 0x40000003, 0xc00000b7, 0x40000028
	tests := []struct {
		goarch string
		arch   uint32
		nr     uint32
		req    uint64
		want   uint32
	}{
		{"amd64", x8664, 16, ioctlTIOCSTI, retErrno | ePERM},
		{"amd64", x8664, 16, ioctlTIOCLINUX, retErrno | ePERM},
		{"amd64", x8664, 16, 0xffffffff00000000 | ioctlTIOCSTI, retErrno | ePERM}, // only the low word counts
		{"amd64", x8664, 16, 0x5413, retAllow},                                    // TIOCGWINSZ
		{"amd64", x8664, 0x40000000 | 514, ioctlTIOCSTI, retErrno | ePERM},        // x32
		{"amd64", x8664, 0, ioctlTIOCSTI, retAllow},                               // read(2) with that number as count
		{"amd64", i386, 54, ioctlTIOCSTI, retErrno | ePERM},
		{"amd64", i386, 16, ioctlTIOCSTI, retAllow}, // i386's 16 is lchown
		{"amd64", aarch64, 29, ioctlTIOCSTI, retAllow},
		{"arm64", aarch64, 29, ioctlTIOCSTI, retErrno | ePERM},
		{"arm64", aarch64, 29, 0x5401, retAllow}, // TCGETS
		{"arm64", arm, 54, ioctlTIOCLINUX, retErrno | ePERM},
		{"arm64", x8664, 16, ioctlTIOCSTI, retAllow},
	}
	for _, tc := range tests {
		raw, err := TerminalFilter(tc.goarch)
		if err != nil {
			t.Fatal(err)
		}
		var prog []bpf.Instruction
		for i := 0; i+8 <= len(raw); i += 8 {
			ri := bpf.RawInstruction{Op: binary.NativeEndian.Uint16(raw[i:]), Jt: raw[i+2], Jf: raw[i+3], K: binary.NativeEndian.Uint32(raw[i+4:])}
			prog = append(prog, ri.Disassemble())
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			t.Fatalf("%s: %v", tc.goarch, err)
		}
		data := make([]byte, 64)
		binary.BigEndian.PutUint32(data[offNr:], tc.nr)
		binary.BigEndian.PutUint32(data[offArch:], tc.arch)
		binary.BigEndian.PutUint32(data[offArg1:], uint32(tc.req)) // low word at the lower offset, as on little endian
		binary.BigEndian.PutUint32(data[offArg1+4:], uint32(tc.req>>32))
		got, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(got) != tc.want {
			t.Errorf("%s arch %#x nr %d req %#x: got %#x, want %#x", tc.goarch, tc.arch, tc.nr, tc.req, uint32(got), tc.want)
		}
	}
	if _, err := TerminalFilter("riscv64"); err == nil {
		t.Error("riscv64: no error for an unknown architecture")
	}
}
