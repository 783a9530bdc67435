package ghissue

import (
	"strings"
	"testing"
)

func TestParseModeAndEnabled(t *testing.T) {
	cases := []struct {
		in         string
		mode       Mode
		plain, act bool // Enabled outside and under act
	}{
		{"false", Off, false, false},
		{"", Off, false, false},
		{"true", On, true, false},
		{" True\n", On, true, false},
		{"TRUE", On, true, false},
		{"force", Force, true, true},
		{"Force", Force, true, true},
	}
	for _, c := range cases {
		m, err := ParseMode(c.in)
		if err != nil || m != c.mode {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", c.in, m, err, c.mode)
			continue
		}
		if ok, why := m.Enabled(false); ok != c.plain || ok == (why != "") {
			t.Errorf("%v.Enabled(false) = %v, %q; want %v with a reason only when skipped", m, ok, why, c.plain)
		}
		if ok, why := m.Enabled(true); ok != c.act || ok == (why != "") {
			t.Errorf("%v.Enabled(true) = %v, %q; want %v with a reason only when skipped", m, ok, why, c.act)
		}
	}
	if _, why := On.Enabled(true); !strings.Contains(why, "ACT=true") || !strings.Contains(why, "report-issue: force") {
		t.Errorf("reason under act %q does not say why and how to force it", why)
	}
	for _, bad := range []string{"yes", "1", "on", "forced", "true false"} {
		_, err := ParseMode(bad)
		if err == nil || !strings.Contains(err.Error(), "want false, true or force") || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("ParseMode(%q): error %v, want one naming the value and the three choices", bad, err)
		}
	}
	for m, s := range map[Mode]string{Off: "false", On: "true", Force: "force"} {
		if m.String() != s {
			t.Errorf("%d.String() = %q, want %q", m, m.String(), s)
		}
	}
}

func TestUnderAct(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "": false, "false": false, "1": false} {
		if got := UnderAct(func(k string) string {
			if k == "ACT" {
				return v
			}
			return ""
		}); got != want {
			t.Errorf("ACT=%q: %v, want %v", v, got, want)
		}
	}
}
