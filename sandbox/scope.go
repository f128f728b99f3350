package sandbox

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// scopeFlag is the init shim's option that scopes abstract unix sockets
// and signals with Landlock before the exec (BwrapArgs adds it when the
// network is "on": the sandbox then shares the host's network namespace,
// where host programs listen on abstract sockets).
const scopeFlag = "--scope-ipc"

// ScopeABI is the first Landlock ABI with IPC scopes
// (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, LANDLOCK_SCOPE_SIGNAL).
const ScopeABI = 6

// ScopesAvailable reports whether the kernel can scope abstract unix
// sockets and signals (Landlock ABI ≥ ScopeABI).
func ScopesAvailable() bool { return LandlockABI() >= ScopeABI }

// ScopeNote returns the line a run with network "on" under bwrap prints
// first when the kernel cannot scope IPC, else "".
func ScopeNote(network string) string {
	if network != "on" || ScopesAvailable() {
		return ""
	}
	return fmt.Sprintf("network on: abstract unix sockets and signals to host processes are NOT scoped (Landlock ABI %d < %d); host programs listening on abstract sockets are reachable", LandlockABI(), ScopeABI)
}

// scopeIPC puts the calling process (all its threads) and everything it
// will exec into a Landlock domain that cannot connect to abstract unix
// sockets created outside it nor signal processes outside it
// (go-landlock's RestrictScoped at ABI 6: file and network access are not
// touched). On a kernel without scopes it does nothing (ScopeNote said
// so).
func scopeIPC() error {
	if !ScopesAvailable() {
		return nil
	}
	if err := landlock.V6.RestrictScoped(); err != nil {
		return fmt.Errorf("cannot scope abstract sockets and signals with Landlock: %w", err)
	}
	return nil
}
