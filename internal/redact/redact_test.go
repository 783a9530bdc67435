package redact

import (
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"testing"
)

const ghToken = "ghp_xxxSecret123"

var testEnv = []string{
	"GITHUB_TOKEN=" + ghToken,
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=/home/runner",
	"MY_API_KEY=k3y-v4lue",
	"db_password=hunter22",
	"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
	"GIT_CREDENTIALS= padded-cred \n",
	"SHORT_TOKEN=abc",
	"CI=true",
	"DISPLAY_NAME=visible-value",
	"MALFORMED_TOKEN_NO_EQUALS",
}

// testValues are the explicit values of testStrings: some too short, one
// nested in another.
var testValues = []string{"explicit-mask", "ab", "xyz", "  ", "outer-inner-secret", "inner"}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// stringTest is a case of Redactor.String.
type stringTest struct {
	name, in, want string
}

// testStrings runs each case through one Redactor built from testEnv and
// testValues, so that every rule is checked with all the others active.
func testStrings(t *testing.T, tests []stringTest) {
	t.Helper()
	r := New(Options{Env: testEnv, Values: testValues})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestString covers what no single rule owns; each rule has its own table
// (TestStringURL, TestStringHeader, TestStringEnv, TestStringValues).
func TestString(t *testing.T) {
	testStrings(t, []stringTest{
		{"empty", "", ""},
		{"unicode untouched", "naïve ☃ 日本語\n", "naïve ☃ 日本語\n"},
	})
}

func TestAdd(t *testing.T) {
	r := New(Options{})
	const s = "late secret s3cr3t-late"
	if got := r.String(s); got != s {
		t.Fatalf("before Add: %q", got)
	}
	r.Add("s3cr3t-late", "no", "")
	if got, want := r.String(s), "late secret ***"; got != want {
		t.Errorf("after Add: got %q, want %q", got, want)
	}
	r.Add("s3cr3t-late") // duplicate is a no-op
	if got, want := r.String("no"), "no"; got != want {
		t.Errorf("short value masked: %q", got)
	}
}

func TestZeroRedactor(t *testing.T) {
	var r Redactor
	if got, want := r.String("https://tok@h/ x"), "https://***@h/ x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r.Add("zero-secret")
	if got, want := r.String("a zero-secret"), "a ***"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStringCleanInputDoesNotAllocate(t *testing.T) {
	r := New(Options{Env: testEnv})
	in := "2024-01-02T10:22:01Z ok: fetched https://github.com/o/r (3 objects) user@example.com\n"
	if got := r.String(in); got != in {
		t.Fatalf("changed: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { r.String(in) }); n != 0 {
		t.Errorf("String allocated %v times on clean input", n)
	}
}

func TestConcurrentAddAndString(t *testing.T) {
	r := New(Options{Env: testEnv})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g%2 == 0 {
					r.Add(strings.Repeat("s", 3+i%5) + "-added")
				}
				if got := r.String("t " + ghToken); got != "t ***" {
					t.Errorf("got %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkString(b *testing.B) {
	r := New(Options{Env: benchEnv()})
	corpus := string(benchCorpus())
	for _, bc := range []struct{ name, in string }{
		{"1MiB", corpus},
		{"line", "2024-01-02T10:22:01.1234567Z error: failed to push some refs to 'https://github.com/o/r.git'\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				r.String(bc.in)
			}
		})
	}
}

func TestGivenListsTheSecretsNotTheirForms(t *testing.T) {
	r := New(Options{Values: []string{"  tok_first_value  ", "ab"}})
	r.Add("line-one-secret\nline-two-secret", "tok_first_value")
	r.AddEnv([]string{"API_TOKEN=env_token_value", "HOME=/root"})
	got := r.Given()
	want := []string{"tok_first_value", "line-one-secret\nline-two-secret", "line-one-secret", "line-two-secret", "env_token_value"}
	if !slices.Equal(got, want) {
		t.Errorf("Given = %q, want %q (no derived forms, no short values, no duplicates)", got, want)
	}
	if s := r.String(`x tok_first_value "tok_first_value" %74%6F%6B%5F%66%69%72%73%74%5F%76%61%6C%75%65`); strings.Contains(s, "first") || strings.Contains(s, "%66%69") {
		t.Errorf("the given value and its derived forms still mask: %q", s)
	}
}
