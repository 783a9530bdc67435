package jobs

// For the external tests (schema_test.go, package jobs_test, which imports
// jobschema, itself an importer of jobs).
var (
	FakeCatalog = fakeCatalog
	JobWith     = jobWith
)

// Example and Head are test files' texts, for the external tests.
const (
	Example = example
	Head    = head
)
