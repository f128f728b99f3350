// Command fakeapi serves a scripted fake model API (see package fakeapi)
// until interrupted: fakeapi -script FILE [-log FILE] [-url FILE]. It
// prints its URL on stdout (and writes it to -url when given).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/git-agent/git-agent/t/fakeapi"
)

func main() {
	script := flag.String("script", "", "the script file")
	logPath := flag.String("log", "", "append a JSON line per request to this file")
	urlPath := flag.String("url", "", "write the server's URL to this file")
	flag.Parse()
	if err := run(*script, *logPath, *urlPath); err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(1)
	}
}

func run(script, logPath, urlPath string) error {
	src, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	steps, err := fakeapi.ParseScript(string(src))
	if err != nil {
		return err
	}
	var log io.Writer
	if logPath != "" {
		f, err := fakeapi.LogFile(logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		log = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := fakeapi.Start(ctx, steps, log)
	if err != nil {
		return err
	}
	if urlPath != "" {
		if err := os.WriteFile(urlPath, []byte(s.URL+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Println(s.URL)
	<-ctx.Done()
	return nil
}
