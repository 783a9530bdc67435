package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"testing"
)

// sink is an io.Writer recording every write; Close is recorded so tests
// can check that Writer.Close leaves it open.
type sink struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	closed bool
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.buf.Write(p)
}

func (s *sink) Close() error { s.closed = true; return nil }

func (s *sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func mustWrite(t testing.TB, w *Writer, p string) {
	t.Helper()
	n, err := w.Write([]byte(p))
	if err != nil || n != len(p) {
		t.Fatalf("Write(%q) = %d, %v; want %d, nil", p, n, err, len(p))
	}
}

// splitInputs are lines holding every kind of secret, each with and without
// a final terminator.
var splitInputs = []string{
	"push https://x-access-token:" + ghToken + "@github.com/o/r.git done\n",
	"curl -H 'Authorization: Bearer abc.def.ghi' https://api\r\n",
	"env " + ghToken + " and " + b64("x-access-token:"+ghToken) + "\r10%\r",
	"X-Api-Key: k3y-v4lue",
	`{"token": "k3y-v4lue", "n": 1}` + "\n",
	"remote: basic " + b64("bob:"+ghToken) + "\r\n",
	"retry Bearer abc.def.ghi-1 now\n",
	"cut " + ghToken[:10] + Cut + " and " + Cut + ghToken[6:] + "\n",
	"tail " + ghToken,
}

func TestWriterSplitAtEveryPoint(t *testing.T) {
	r := New(Options{Env: testEnv})
	for _, in := range splitInputs {
		want := r.String(in)
		if strings.Contains(want, ghToken) || strings.Contains(want, "k3y-v4lue") || strings.Contains(want, "abc.def") {
			t.Fatalf("String leaks: %q", want)
		}
		for i := 0; i <= len(in); i++ {
			var out sink
			w := r.Writer(&out)
			mustWrite(t, w, in[:i])
			mustWrite(t, w, in[i:])
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != want {
				t.Fatalf("split at %d of %q:\n got %q\nwant %q", i, in, got, want)
			}
		}
	}
}

func TestWriterSplitThreeWays(t *testing.T) {
	r := New(Options{Env: testEnv})
	for _, in := range splitInputs {
		want := r.String(in)
		for i := 0; i <= len(in); i++ {
			for j := i; j <= len(in); j++ {
				var out sink
				w := r.Writer(&out)
				mustWrite(t, w, in[:i])
				mustWrite(t, w, in[i:j])
				mustWrite(t, w, in[j:])
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if got := out.String(); got != want {
					t.Fatalf("split at %d,%d of %q:\n got %q\nwant %q", i, j, in, got, want)
				}
			}
		}
	}
}

func TestWriterByteAtATime(t *testing.T) {
	r := New(Options{Env: testEnv})
	in := strings.Join(splitInputs, "\n")
	var out sink
	w := r.Writer(&out)
	for i := range len(in) {
		mustWrite(t, w, in[i:i+1])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), r.String(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestWriterCarriageReturnIsLive(t *testing.T) {
	r := New(Options{Env: testEnv})
	var out sink
	w := r.Writer(&out)
	steps := []struct{ write, want string }{
		{"  0  1024k    0     0\r", "  0  1024k    0     0\r"},
		{" 42  1024k", "  0  1024k    0     0\r"},
		{"   430k\r", "  0  1024k    0     0\r 42  1024k   430k\r"},
		{"100 " + ghToken + "\r", "  0  1024k    0     0\r 42  1024k   430k\r100 ***\r"},
	}
	for _, s := range steps {
		mustWrite(t, w, s.write)
		if got := out.String(); got != s.want {
			t.Fatalf("after %q: got %q, want %q", s.write, got, s.want)
		}
	}
}

func TestWriterCloseEmitsPartialLine(t *testing.T) {
	r := New(Options{Env: testEnv})
	var out sink
	w := r.Writer(&out)
	mustWrite(t, w, "line\npartial "+ghToken+" no newline")
	if got := out.String(); got != "line\n" {
		t.Fatalf("before Close: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "line\npartial *** no newline"; got != want {
		t.Errorf("after Close: got %q, want %q", got, want)
	}
	if out.closed {
		t.Error("Close closed the underlying writer")
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Close: %v, want fs.ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestWriterFlush(t *testing.T) {
	r := New(Options{Env: testEnv})
	var out sink
	w := r.Writer(&out)
	mustWrite(t, w, "prompt> ")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "prompt> " {
		t.Fatalf("after Flush: %q", got)
	}
	// A header value cut by Flush: its rest is dropped up to the line end.
	mustWrite(t, w, "\nAuthorization: Bearer abc")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, w, "def")
	mustWrite(t, w, "ghi\r\nnext\n")
	if got, want := out.String(), "prompt> \nAuthorization: Bearer ***\r\nnext\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// cleanCorpus is text without secrets, including CRLF, bare CR, blank lines,
// non-ASCII and a trailing partial line.
const cleanCorpus = "Cloning into 'repo'...\r\n" +
	"remote: Enumerating objects: 42, done.\r\n" +
	"Receiving objects:  50% (21/42)\rReceiving objects: 100% (42/42), done.\n" +
	"\n\n" +
	"2024-01-02T10:22:01.123Z INFO  fetched https://github.com/o/r (user@example.com)\n" +
	"--- FAIL: TestX (0.01s)\n    x_test.go:12: got 1, want 2\n" +
	"Content-Type: application/json\r\n" +
	"{\"ok\":true,\"url\":\"https://api.github.com/repos/o/r\"}\n" +
	"naïve ☃ 日本語 \t tabs\n" +
	"trailing text without newline"

func TestWriterCleanTextIsByteIdentical(t *testing.T) {
	r := New(Options{Env: testEnv, Values: []string{"explicit-mask"}})
	for _, size := range []int{1, 2, 3, 7, 64, 1 << 20} {
		var out sink
		w := r.Writer(&out)
		for in := cleanCorpus; len(in) > 0; {
			n := min(size, len(in))
			mustWrite(t, w, in[:n])
			in = in[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != cleanCorpus {
			t.Errorf("chunk %d: output differs:\n got %q\nwant %q", size, got, cleanCorpus)
		}
	}
}

func TestWriterLongPartialLine(t *testing.T) {
	r := New(Options{Env: testEnv})
	filler := strings.Repeat("0123456789abcdef", 16<<10) // 256 KiB
	for _, pos := range []int{0, 1000, maxPartial - 700, maxPartial - 5, maxPartial + 3, 3 * maxPartial} {
		in := filler[:pos] + " " + ghToken + " https://u:pass-1@host/ " + filler[pos:] + "\n"
		want := r.String(in)
		for _, chunk := range []int{4093, 32 << 10} {
			var out sink
			w := r.Writer(&out)
			for s := in; len(s) > 0; {
				n := min(chunk, len(s))
				mustWrite(t, w, s[:n])
				s = s[n:]
				if pending := len(w.buf); pending > maxPartial+chunk {
					t.Fatalf("pending partial line grew to %d bytes", pending)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != want {
				t.Errorf("secret at %d, chunk %d: output differs (len %d vs %d); leaks token: %v",
					pos, chunk, len(got), len(want), strings.Contains(got, ghToken))
			}
			if out.writes < 2 {
				t.Errorf("secret at %d, chunk %d: long line not streamed (%d writes)", pos, chunk, out.writes)
			}
		}
	}
}

func TestWriterLongLineKeepsConstructsWhole(t *testing.T) {
	r := New(Options{})
	// Each secret outgrows the kept-back tail while the line crosses 64 KiB.
	long := strings.Repeat("p", 3*minKeep)
	pad := strings.Repeat("x", maxPartial-1000)
	for _, tc := range []struct{ in, want string }{
		{pad + " https://user:" + long + "@host/ end\n", pad + " https://user:***@host/ end\n"},
		{pad + " Authorization: Bearer " + long + "\r\n", pad + " Authorization: Bearer ***\r\n"},
		{pad + " -H 'Private-Token: " + long + "' end\n", pad + " -H 'Private-Token: ***' end\n"},
		{pad + " -H X-Api-Key:" + long + " end\n", pad + " -H X-Api-Key:*** end\n"},
	} {
		for _, chunk := range []int{100, 4093} {
			var out sink
			w := r.Writer(&out)
			for s := tc.in; len(s) > 0; {
				n := min(chunk, len(s))
				mustWrite(t, w, s[:n])
				s = s[n:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("chunk %d: got ...%q, want ...%q", chunk, got[max(0, len(got)-80):], tc.want[len(tc.want)-80:])
			}
		}
	}
}

func TestWriterHugeHeaderValueDropped(t *testing.T) {
	r := New(Options{})
	var out sink
	w := r.Writer(&out)
	mustWrite(t, w, "ok\nAuthorization: Bearer ")
	val := strings.Repeat("x", 4<<10)
	for range 64 { // 256 KiB of value
		mustWrite(t, w, val)
	}
	mustWrite(t, w, "\r\nnext\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "ok\nAuthorization: Bearer ***\r\nnext\n"; got != want {
		t.Errorf("got %.200q, want %q", got, want)
	}
}

func TestWriterConcurrent(t *testing.T) {
	r := New(Options{Env: testEnv})
	var out sink
	w := r.Writer(&out)
	const goroutines, lines = 8, 300
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				if i%50 == 0 {
					r.Add(fmt.Sprintf("added-%d-%d", g, i))
				}
				mustWrite(t, w, fmt.Sprintf("g%d line %d token %s\n", g, i, ghToken))
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, ghToken) {
		t.Error("token leaked")
	}
	if n := strings.Count(got, " token ***\n"); n != goroutines*lines {
		t.Errorf("%d masked lines, want %d", n, goroutines*lines)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func TestWriterErrors(t *testing.T) {
	boom := errors.New("boom")
	w := New(Options{}).Writer(failWriter{boom})
	if n, err := w.Write([]byte("partial")); n != 7 || err != nil {
		t.Fatalf("buffered Write = %d, %v", n, err)
	}
	if _, err := w.Write([]byte("\n")); !errors.Is(err, boom) {
		t.Fatalf("Write error = %v, want boom", err)
	}
	if _, err := w.Write([]byte("more\n")); !errors.Is(err, boom) {
		t.Errorf("error not sticky: %v", err)
	}
	if err := w.Close(); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want boom", err)
	}
	w = New(Options{}).Writer(shortWriter{})
	if _, err := w.Write([]byte("line\n")); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("short write: %v", err)
	}
}

// benchEnv is a CI-like environment with a handful of secrets.
func benchEnv() []string {
	return []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=/home/runner", "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_TOKEN=ghs_16C7e42F292c6912E7710c838347Ae178B4a",
		"ACTIONS_RUNTIME_TOKEN=eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiIsIng1dCI6Imp",
		"NPM_TOKEN=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
		"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"DOCKER_PASSWORD=dckr_pat_2b3e36beeb386dfdaacb9b46004",
	}
}

// benchCorpus is about 1 MiB of typical relayed output: build and test logs,
// git and curl progress, HTTP headers and JSON, with a rare secret.
func benchCorpus() []byte {
	lines := []string{
		"2024-01-02T10:22:01.1234567Z ##[group]Run go test ./...\n",
		"ok  \tgithub.com/retrywise/retrywise/internal/retry\t0.123s\tcoverage: 87.5% of statements\n",
		"--- FAIL: TestBackoff (0.01s)\n",
		"    backoff_test.go:42: got 3 attempts, want 4\n",
		"remote: Counting objects: 100% (1234/1234), done.\n",
		"Receiving objects:  37% (456/1234), 1.20 MiB | 2.40 MiB/s\r",
		"  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n",
		"100 12.3M  100 12.3M    0     0  45.6M      0 --:--:-- --:--:-- --:--:-- 45.6M\r",
		"< HTTP/2 200\r\n< content-type: application/json; charset=utf-8\r\n< x-ratelimit-remaining: 4999\r\n",
		`{"id":123,"name":"retrywise","full_name":"retrywise/retrywise","html_url":"https://github.com/retrywise/retrywise"}` + "\n",
		"npm WARN deprecated request@2.88.2: request has been deprecated, see https://github.com/request/request/issues/3142\n",
		"Step 3/12 : RUN apt-get update && apt-get install -y ca-certificates\n",
		"error: failed to push some refs to 'https://github.com/retrywise/retrywise.git'\n",
	}
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(lines[i%len(lines)])
		if i%997 == 0 {
			b.WriteString("fetch https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r\n")
		}
	}
	return b.Bytes()
}

func BenchmarkWriter(b *testing.B) {
	r := New(Options{Env: benchEnv()})
	data := benchCorpus()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w := r.Writer(io.Discard)
		for p := data; len(p) > 0; {
			n := min(32<<10, len(p))
			if _, err := w.Write(p[:n]); err != nil {
				b.Fatal(err)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzWriterMatchesString checks that however input is split across writes,
// the Writer's output equals String applied to the whole input.
func FuzzWriterMatchesString(f *testing.F) {
	for _, in := range append(splitInputs, cleanCorpus) {
		f.Add(in, uint16(len(in)/3), uint16(len(in)/2))
	}
	r := New(Options{Env: testEnv, Values: []string{"abcdef", "defghi"}})
	f.Fuzz(func(t *testing.T, in string, i, j uint16) {
		a, b := min(int(i), len(in)), min(int(j), len(in))
		if a > b {
			a, b = b, a
		}
		var out sink
		w := r.Writer(&out)
		mustWrite(t, w, in[:a])
		mustWrite(t, w, in[a:b])
		mustWrite(t, w, in[b:])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := out.String(), r.String(in); got != want {
			t.Errorf("split %d,%d of %q:\n got %q\nwant %q", a, b, in, got, want)
		}
	})
}
