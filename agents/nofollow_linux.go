package agents

import "syscall"

// noFollow makes open fail on a symlink.
const noFollow = syscall.O_NOFOLLOW
