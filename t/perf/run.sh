#!/usr/bin/env bash
# t/perf: the cost of a no-op run against the bare tools it is built from,
# measured in the same run on the same repository:
#   git agent run --no-verify true     (worktree, scratch repo, sandbox, snapshot, record, notes)
#   git worktree add + remove, and bwrap true with the same namespaces
# Prints milliseconds (median of N) and the ratio. A benchmark, not a test:
# it asserts nothing about speed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
N=${N:-7}
[ -x "$root/bin/git-agent" ] || (cd "$root" && make build >/dev/null)
export PATH="$root/bin:$PATH"

mod=${PERF_MODULE:-golang.org/x/sys}
src=$(cd "$root" && go mod download "$mod" 2>/dev/null && go list -m -f '{{.Dir}}' "$mod" 2>/dev/null || true)
work=$(mktemp -d "${TMPDIR:-/tmp}/git-agent-perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_DATA_HOME="$work/home/.local/share" XDG_CACHE_HOME="$work/home/.cache" XDG_CONFIG_HOME="$work/home/.config"
mkdir -p "$HOME"
git config --global user.name perf; git config --global user.email perf@example.com
if [ -n "$src" ]; then cp -r "$src" "$work/repo"; else git clone -q "$root" "$work/repo"; fi
chmod -R u+w "$work/repo"
cd "$work/repo"
[ -d .git ] || { git init -q; git add -A; git commit -qm import; }
files=$(git ls-files | wc -l)

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

bare() {
  git -c core.hooksPath=/dev/null worktree add -q --detach "$work/wt" HEAD
  bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-net --cap-drop ALL \
    --disable-userns --die-with-parent --ro-bind / / --proc /proc --dev /dev true
  git worktree remove --force "$work/wt"
}
run() { git agent run --no-verify true; }

git agent run --no-verify true >/dev/null 2>&1   # warm caches
b=$(for i in $(seq "$N"); do ms bare; done | median)
r=$(for i in $(seq "$N"); do ms run; done | median)
echo "repo: $mod ($files files), median of $N"
echo "bare: git worktree add + bwrap true + worktree remove   ${b} ms"
echo "git agent run --no-verify true                          ${r} ms"
awk -v r="$r" -v b="$b" 'BEGIN { printf "ratio: %.2fx\n", (b > 0 ? r / b : 0) }'
