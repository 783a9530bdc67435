package failure

import (
	"encoding/json"
	"testing"
)

// TestClassText checks the class's text form: every failure class by its
// name, None (no failure) as "", and "" read back as None.
func TestClassText(t *testing.T) {
	for c, want := range map[Class]string{None: "", Unknown: "unknown", Transient: "transient", Policy: "policy", Structural: "structural", Absent: "absent"} {
		b, err := json.Marshal(c)
		if err != nil || string(b) != `"`+want+`"` {
			t.Errorf("json.Marshal(%d) = %s, %v; want %q", int(c), b, err, want)
		}
		var back Class = Policy + 1 // neither None nor the class
		if err := json.Unmarshal(b, &back); err != nil || back != c {
			t.Errorf("json.Unmarshal(%s) = %d, %v; want %d", b, int(back), err, int(c))
		}
	}
	var zero Class
	if zero != None {
		t.Errorf("the zero class is %d, want None", int(zero))
	}
}

// TestParseClassRefusesNone checks that no failure is not a class a rule can
// name: "" and "none" are refused, the names are read case-blind.
func TestParseClassRefusesNone(t *testing.T) {
	for _, s := range []string{"", "none", "None"} {
		if c, err := ParseClass(s); err == nil {
			t.Errorf("ParseClass(%q) = %d, want an error", s, int(c))
		}
	}
	if c, err := ParseClass("Transient"); err != nil || c != Transient {
		t.Errorf("ParseClass(Transient) = %d, %v", int(c), err)
	}
	if _, err := ParseClass("bogus"); err == nil || err.Error() != `unknown failure class "bogus" (want one of unknown, transient, policy, structural, absent)` {
		t.Errorf("ParseClass(bogus) error = %v", err)
	}
}
