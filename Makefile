# git-agent: build, test, install, demo.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
GO ?= go

.PHONY: build test vet install uninstall demo perf clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/git-agent ./cmd/git-agent

vet:
	gofmt -l . | (! grep .) || (echo "gofmt: files above need formatting" >&2; exit 1)
	$(GO) vet ./...

# The whole test suite: unit tests beside the code and the t/ scenarios
# against the built binary, with real git and real bubblewrap. The timeout
# is a bound for a hang, above go test's 10m default: t/ takes minutes on a
# loaded 2-core machine with cold caches, and CI stops at 90.
test: vet
	$(GO) test -count=1 -timeout 40m ./...

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 0755 bin/git-agent $(DESTDIR)$(BINDIR)/git-agent
	install -m 0644 doc/git-agent.1 $(DESTDIR)$(MANDIR)/git-agent.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/git-agent $(DESTDIR)$(MANDIR)/git-agent.1

# A run of the main job on a throwaway copy of a real Go module.
demo: build
	bash scripts/demo.sh

perf: build
	bash t/perf/run.sh

clean:
	rm -rf bin
