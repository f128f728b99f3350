package refs

import (
	"fmt"
	"unicode/utf8"
)

// Output log cap: a log longer than MaxOutputLog keeps its first
// OutputHead bytes and its last OutputTail bytes, with one line between
// them saying how many bytes were cut.
const (
	MaxOutputLog = 1 << 20   // 1 MiB
	OutputHead   = 256 << 10 // 256 KiB
	OutputTail   = 768 << 10 // 768 KiB
)

// CapOutput returns log unchanged when it is at most MaxOutputLog bytes;
// otherwise its head (OutputHead bytes), the line "\n[… N bytes cut …]\n"
// and its tail (OutputTail bytes). Both cut points move back to the start
// of a UTF-8 sequence (by at most 3 bytes) so no character is split; N is
// the number of bytes actually left out.
func CapOutput(log []byte) []byte {
	if len(log) <= MaxOutputLog {
		return log
	}
	head := runeStart(log, OutputHead)
	tail := runeStart(log, len(log)-OutputTail)
	marker := fmt.Sprintf("\n[… %d bytes cut …]\n", tail-head)
	out := make([]byte, 0, head+len(marker)+len(log)-tail)
	out = append(out, log[:head]...)
	out = append(out, marker...)
	return append(out, log[tail:]...)
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in,
// by at most 3 bytes; bytes that are not UTF-8 leave i where it is.
func runeStart(b []byte, i int) int {
	for j := i; j > 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(b[j]) {
			return j
		}
	}
	return i
}
