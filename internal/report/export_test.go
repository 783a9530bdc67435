package report

import "testing"

// Golden compares got with the golden file at path, rewriting it under -update.
func Golden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden(t, path, got)
}
