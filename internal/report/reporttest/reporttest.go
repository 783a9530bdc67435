// Package reporttest checks, in tests, that a JSON report conforms to the
// report's JSON Schema (reportschema.Schema, docs/report.schema.json).
package reporttest

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/retrywise/retrywise/internal/report/reportschema"
)

// Validate fails t, with the validation error and the document, when b is
// not a JSON report that conforms to reportschema.Schema.
func Validate(t testing.TB, b []byte) {
	t.Helper()
	sch, err := compile()
	if err != nil {
		t.Fatalf("reporttest: the report schema does not compile: %v", err)
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Errorf("reporttest: the report is not JSON: %v\n%s", err, b)
		return
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("reporttest: the report does not conform to %s:\n%v\n--- report\n%s", reportschema.SchemaID, err, b)
	}
}

// ValidateFile is Validate of the file at path.
func ValidateFile(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reporttest: %v", err)
		return
	}
	Validate(t, b)
}

// compile compiles report.Schema, asserting formats (date-time).
func compile() (*jsonschema.Schema, error) {
	b, err := reportschema.Schema()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(reportschema.SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(reportschema.SchemaID)
}
