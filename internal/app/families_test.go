package app

// The tests run with the tool families' recognisers registered, as the
// program runs (cmd/retrywise imports them).
import _ "github.com/retrywise/retrywise/internal/failure/tools"
