#!/usr/bin/env bash
# The main job on a fresh machine: a throwaway copy of a real Go module
# (spf13/pflag, from the module cache), a scripted agent that adds a function
# and its test and commits inside the sandbox, the checks (which fail once,
# so the agent repairs its work on a second attempt), the decision log, and
# land. Nothing outside a temporary directory is touched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v bwrap >/dev/null 2>&1; then
  echo "demo: installing bubblewrap"
  if [ "$(id -u)" = 0 ]; then apt-get install -y bubblewrap; else sudo apt-get install -y bubblewrap; fi
fi
[ -x "$root/bin/git-agent" ] || (cd "$root" && make build)
export PATH="$root/bin:$PATH"

mod=github.com/spf13/pflag
# go list -m names no directory for a module that is not downloaded yet (a
# fresh machine's empty module cache): download it first.
src=$(cd "$root" && go mod download "$mod" && go list -m -f '{{.Dir}}' "$mod")
[ -n "$src" ] || { echo "demo: $mod is not in the module cache" >&2; exit 1; }
demo=$(mktemp -d "${TMPDIR:-/tmp}/git-agent-demo.XXXXXX")
export HOME="$demo/home" XDG_DATA_HOME="$demo/home/.local/share" XDG_CACHE_HOME="$demo/home/.cache" XDG_CONFIG_HOME="$demo/home/.config"
mkdir -p "$HOME"
git config --global user.name "Demo User"
git config --global user.email demo@example.com
git config --global init.defaultBranch main

echo "demo: copying $mod from $src to $demo/pflag"
cp -r "$src" "$demo/pflag"
chmod -R u+w "$demo/pflag"
cd "$demo/pflag"
git init -q
mkdir -p .git-agent
cat > .git-agent/config.toml <<'TOML'
[[checks]]
name = "build"
command = ["go", "build", "./..."]
timeout = "5m"

[[checks]]
name = "test"
command = ["go", "test", "./..."]
timeout = "5m"
TOML
git add -A
git commit -qm "pflag, as published"

# The "agent": a script that edits, commits and explains itself. On its
# first attempt it gets the count wrong (the check catches it); on the
# repair attempt it reads git-agent's feedback ($GIT_AGENT_FEEDBACK) and
# fixes it. Each attempt is a snapshot commit on the run's branch.
cat > "$demo/agent.sh" <<'AGENT'
set -e
if [ "${GIT_AGENT_ATTEMPT:-1}" = 1 ]; then
  git agent decide "add FlagSet.DefinedCount" --why "callers want the number of defined flags without VisitAll"
  cat > defined_count.go <<'GO'
package pflag

// DefinedCount returns the number of flags defined in f.
func (f *FlagSet) DefinedCount() int { return len(f.formal) - 1 }
GO
  cat > defined_count_test.go <<'GO'
package pflag

import "testing"

func TestDefinedCount(t *testing.T) {
	f := NewFlagSet("demo", ContinueOnError)
	f.Int("a", 0, "")
	f.String("b", "", "")
	if got := f.DefinedCount(); got != 2 {
		t.Fatalf("DefinedCount() = %d, want 2", got)
	}
}
GO
  git add defined_count.go defined_count_test.go
  git commit -qm "Add FlagSet.DefinedCount"
else
  echo "agent: repair attempt $GIT_AGENT_ATTEMPT; git-agent says:"
  sed 's/^/  | /' "$GIT_AGENT_FEEDBACK" | head -12
  git agent decide "count every defined flag" --why "the check said DefinedCount() = 1, want 2: an off-by-one"
  sed -i 's/len(f.formal) - 1/len(f.formal)/' defined_count.go
  go test -run TestDefinedCount .
  git commit -qam "DefinedCount: count every flag"
fi
AGENT

echo; echo "demo: git agent run sh -c <agent.sh>"
git agent run sh -c "$(cat "$demo/agent.sh")" || { echo "demo: the run did not pass"; exit 1; }
echo; echo "demo: git agent ls"; git agent ls
echo; echo "demo: git agent log last"; git agent log last
id=$(git agent show last --json | sed -n 's/^ *"id": "\(.*\)",$/\1/p' | head -1)
echo; echo "demo: git log --oneline --notes=agent/outcome agent/$id (plain git)"
git log --format='%h %s%n%N' --notes=agent/outcome "agent/$id" -3 | cut -c1-160
echo; echo "demo: git agent land last"; git agent land last
echo; git log --oneline -5
echo; echo "demo: done; everything is in $demo (remove it when you are done)"
