package gittest

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestServerFaultsAndAuth(t *testing.T) {
	env := Env(t)
	s := NewServer(t, env)
	url, _ := s.NewRepo(t, "r.git")
	refs := url + "/info/refs?service=git-receive-pack"
	get := func() (int, error) {
		resp, err := http.Get(refs)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	s.Inject(Status502, 1)
	s.Inject(Status503, 1)
	s.Inject(Status403, 1)
	s.Inject(Reset, 1)
	for _, want := range []int{502, 503, 403} {
		if code, err := get(); err != nil || code != want {
			t.Errorf("got %d (%v), want %d", code, err, want)
		}
	}
	if _, err := get(); err == nil {
		t.Error("a reset answered")
	}
	if code, err := get(); err != nil || code != 200 {
		t.Errorf("after the faults: %d (%v), want 200 from git http-backend", code, err)
	}

	s.RequireBasicAuth("bot", "pw")
	if code, _ := get(); code != 401 {
		t.Errorf("without credentials: %d, want 401", code)
	}
	req, _ := http.NewRequest("GET", refs, nil)
	req.SetBasicAuth("bot", "pw")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), "git-receive-pack") {
		t.Errorf("with credentials: %v %v", resp, err)
	}
	resp.Body.Close()

	// a stalled request ends when its client gives up
	s.RequireBasicAuth("", "")
	s.Inject(Stall, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", refs, nil)
		_, err := http.DefaultClient.Do(req)
		done <- err
	}()
	for len(s.Requests()) == 0 || s.Requests()[len(s.Requests())-1].Fault != Stall {
		select {
		case err := <-done:
			t.Fatalf("the stalled request ended: %v", err)
		case <-s.Received():
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("a stalled request answered")
	}
}
