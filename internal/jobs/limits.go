package jobs

import "context"

const (
	MaxFileBytes   = 256 << 10
	MaxDepth       = 64
	MaxMappingKeys = 1000
	MaxAliasNodes  = 100000
	MaxExprBytes   = 21000
	MaxExprDepth   = 50
)

func LoadContext(ctx context.Context, path string, src []byte, cat Catalog) (*File, Errors, error) {
	f, errs := Load(path, src, cat)
	return f, errs, nil
}
