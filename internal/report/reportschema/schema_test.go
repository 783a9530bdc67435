package reportschema

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestSchemaIsStable(t *testing.T) {
	a, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, err := Schema()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatal("Schema() differs between calls")
		}
	}
	if !bytes.HasSuffix(a, []byte("}\n")) || !bytes.Contains(a, []byte(`"$id": "`+SchemaID+`"`)) {
		t.Errorf("schema lacks its $id or trailing newline:\n%s", a)
	}
}

// TestSchemaDescribesEveryProperty keeps schemaComments in step with the
// Go types: a field added without a description fails here.
func TestSchemaDescribesEveryProperty(t *testing.T) {
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Defs map[string]struct {
			Description string `json:"description"`
			Properties  map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for name, p := range doc.Properties {
		if p.Description == "" {
			t.Errorf("property %s has no description", name)
		}
	}
	for def, d := range doc.Defs {
		if d.Description == "" {
			t.Errorf("$defs/%s has no description", def)
		}
		for name, p := range d.Properties {
			if p.Description == "" {
				t.Errorf("$defs/%s property %s has no description (add it to schemaComments)", def, name)
			}
		}
	}
}
