//go:build tools

// Package tools pins staticcheck, the linter scripts/test runs after go vet;
// its go.sum lets it install without a checksum-database look-up.
package tools

import _ "honnef.co/go/tools/cmd/staticcheck"
