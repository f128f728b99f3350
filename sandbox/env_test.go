package sandbox

import (
	"slices"
	"testing"
)

func TestScrubEnv(t *testing.T) {
	tests := []struct {
		kv   string
		pass []string
		keep bool
	}{
		{"PATH=/usr/bin", nil, true},
		{"HOME=/root", nil, true},
		{"LANG=C.UTF-8", nil, true},
		{"TERM=xterm", nil, true},
		{"GOFLAGS=-mod=mod", nil, true},
		{"GIT_AUTHOR_NAME=A U Thor", nil, true},
		{"GIT_COMMITTER_EMAIL=a@example.com", nil, true},
		{"ANTHROPIC_BASE_URL=http://127.0.0.1:9", nil, true},
		{"GITHUB_TOKEN=ghp_x", nil, false},
		{"github_token=ghp_x", nil, false},
		{"MY_SECRET=x", nil, false},
		{"DB_PASSWORD=x", nil, false},
		{"MYSQL_PASSWD=x", nil, false},
		{"ANTHROPIC_API_KEY=sk", nil, false},
		{"ANTHROPIC_API_KEY=sk", []string{"ANTHROPIC_API_KEY"}, true},
		{"anthropic_api_key=sk", []string{"ANTHROPIC_API_KEY"}, true},
		{"OPENAI_APIKEY=sk", nil, false},
		{"SERVICE_KEY=x", nil, false},
		{"GOOGLE_APPLICATION_CREDENTIALS=/k.json", nil, false},
		{"AWS_PROFILE=dev", nil, false},
		{"AWS_REGION=eu-west-1", nil, false},
		{"AZURE_CLIENT_ID=x", nil, false},
		{"HTTP_AUTHORIZATION=x", nil, false},
		{"ANTHROPIC_AUTH_TOKEN=x", nil, false},
		{"DATABASE_URL=postgres://u:p@h/db", nil, false},
		{"SENTRY_DSN=https://x", nil, false},
		{"SSH_AUTH_SOCK=/run/user/0/ssh", nil, false},
		{"SSH_AGENT_PID=12", nil, false},
		{"GPG_AGENT_INFO=x", nil, false},
		{"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/x", nil, false},
		{"DISPLAY=:0", nil, false},
		{"WAYLAND_DISPLAY=wayland-0", nil, false},
		{"XAUTHORITY=/root/.Xauthority", nil, false},
		{"XDG_RUNTIME_DIR=/run/user/0", nil, false},
		{"KRB5CCNAME=FILE:/tmp/krb", nil, false},
		{"NPM_TOKEN=x", nil, false},
		{"GIT_DIR=/repo/.git", nil, false},
		{"GIT_WORK_TREE=/repo", nil, false},
		{"GIT_INDEX_FILE=/i", nil, false},
		{"GIT_OBJECT_DIRECTORY=/o", nil, false},
		{"GIT_ALTERNATE_OBJECT_DIRECTORIES=/o", nil, false},
		{"GIT_COMMON_DIR=/c", nil, false},
		{"GIT_CONFIG_GLOBAL=/c", nil, false},
		{"GIT_CONFIG_PARAMETERS='core.x=1'", nil, false},
		{"GIT_CONFIG_KEY_0=core.hooksPath", nil, false},
		{"GIT_EXEC_PATH=/x", nil, false},
		{"GIT_SSH_COMMAND=ssh -i k", nil, false},
		{"GIT_ASKPASS=/x", nil, false},
		{"LD_PRELOAD=/x.so", nil, false},
		{"LD_LIBRARY_PATH=/x", nil, false},
		{"NOEQUALS", nil, false},
		{"=x", nil, false},
	}
	for _, tc := range tests {
		got := ScrubEnv([]string{tc.kv}, tc.pass)
		if kept := len(got) == 1; kept != tc.keep {
			t.Errorf("ScrubEnv(%q, pass=%v): kept=%v, want %v", tc.kv, tc.pass, kept, tc.keep)
		}
	}
	in := []string{"B=2", "API_TOKEN=x", "A=1"}
	if got := ScrubEnv(in, nil); !slices.Equal(got, []string{"B=2", "A=1"}) {
		t.Errorf("order not kept: %q", got)
	}
}

func TestPrependPath(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
	}{
		{[]string{"A=1", "PATH=/usr/bin:/bin"}, []string{"A=1", "PATH=" + InitDir + ":/usr/bin:/bin"}},
		{[]string{"PATH=" + InitDir + ":/usr/bin", "A=1"}, []string{"A=1", "PATH=" + InitDir + ":/usr/bin"}},
		{[]string{"PATH=/a:" + InitDir + "::/b"}, []string{"PATH=" + InitDir + ":/a:/b"}},
		{[]string{"A=1"}, []string{"A=1", "PATH=" + InitDir + ":/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"}},
	}
	for _, tc := range tests {
		if got := PrependPath(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("PrependPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
