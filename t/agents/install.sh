#!/usr/bin/env bash
# Install the agent CLIs that the e2e tests (t/e2e_test.go) run, pinned, into
# a cache directory: t/agents/install.sh <dir>. A directory that already
# holds these exact versions is reused. Prints the directory.
set -euo pipefail
dir=${1:?usage: install.sh <dir>}
pkgs=(
  @anthropic-ai/claude-code@2.1.332
  @openai/codex@0.171.0
  @mariozechner/pi-coding-agent@0.73.1
  opencode-ai@1.18.33
)
mkdir -p "$dir"
stamp="$dir/.git-agent-pins"
want=$(printf '%s\n' "${pkgs[@]}")
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/node_modules/.bin" ]; then
  echo "$dir"
  exit 0
fi
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${pkgs[@]}" >&2
printf '%s\n' "$want" >"$stamp"
echo "$dir"
