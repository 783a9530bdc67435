package environ

import (
	"maps"
	"slices"
	"testing"
)

var tests = []struct {
	name string
	env  []string
	want map[string]string
}{
	{"nil", nil, map[string]string{}},
	{"pairs", []string{"HOME=/home/u", "PATH=/bin:/usr/bin"}, map[string]string{"HOME": "/home/u", "PATH": "/bin:/usr/bin"}},
	{"last wins", []string{"TOKEN=abc", "HOST=h", "TOKEN=def"}, map[string]string{"TOKEN": "def", "HOST": "h"}},
	{"empty value", []string{"EMPTY=", "EMPTY2=x", "EMPTY2="}, map[string]string{"EMPTY": "", "EMPTY2": ""}},
	{"value with =", []string{"GIT_CONFIG_VALUE_0=a=b=c"}, map[string]string{"GIT_CONFIG_VALUE_0": "a=b=c"}},
	{"no = skipped", []string{"MALFORMED", "A=1", "A"}, map[string]string{"A": "1"}},
	{"case kept", []string{"http_proxy=lower", "HTTP_PROXY=upper"}, map[string]string{"http_proxy": "lower", "HTTP_PROXY": "upper"}},
	{"empty name", []string{`=C:=C:\`, "B=2"}, map[string]string{"": `C:=C:\`, "B": "2"}},
	{"prefix is not the name", []string{"AB=1"}, map[string]string{"AB": "1"}},
}

func TestMap(t *testing.T) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Map(tt.env); !maps.Equal(got, tt.want) {
				t.Errorf("Map(%q) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every name Map finds, and some it does not, such as a prefix
			// of a name, an entry without "=" and a different case.
			names := []string{"A", "MALFORMED", "http_PROXY", "TOKEN=abc", "", "NONE"}
			for n := range tt.want {
				names = append(names, n)
			}
			for _, n := range names {
				want, wantOK := tt.want[n]
				if got, ok := Lookup(tt.env, n); got != want || ok != wantOK {
					t.Errorf("Lookup(%q, %q) = %q, %v; want %q, %v", tt.env, n, got, ok, want, wantOK)
				}
			}
		})
	}
}

func TestWithout(t *testing.T) {
	env := []string{"A=1", "GITHUB_OUTPUT=/o", "B=2", "GITHUB_ENV=/e", "GITHUB_OUTPUT=/o2", "NOEQ"}
	got := Without(env, "GITHUB_OUTPUT", "GITHUB_ENV")
	if want := []string{"A=1", "B=2", "NOEQ"}; !slices.Equal(got, want) {
		t.Errorf("Without = %q, want %q", got, want)
	}
	if env[1] != "GITHUB_OUTPUT=/o" {
		t.Error("Without changed its argument")
	}
}
