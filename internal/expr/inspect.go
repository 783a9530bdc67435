package expr

import (
	"math"
	"strings"
)

// Comparison returns the operator and operands of n when it is a
// comparison (==, !=, <, <=, >, >=); ok is false for any other node.
func Comparison(n Node) (op string, l, r Node, ok bool) {
	c, ok := n.(*cmpNode)
	if !ok {
		return "", nil, nil, false
	}
	return c.op, c.l, c.r, true
}

// Literal returns the value of n when it is a literal: nil (null), a
// bool, a float64 or a string; ok is false for any other node.
func Literal(n Node) (v any, ok bool) {
	lit, ok := n.(*litNode)
	if !ok {
		return nil, false
	}
	return lit.v, true
}

// FormatLiteral writes v, a literal's value, as an expression writes it:
// a string in single quotes (a quote in it doubled), a number as the
// runner prints it, true, false or null.
func FormatLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case float64:
		if math.IsNaN(v) {
			return "NaN"
		}
		return FormatNumber(v)
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return "?"
}
