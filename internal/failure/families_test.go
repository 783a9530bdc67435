package failure_test

// The core's tests classify whole logs, which quote every tool (a corpus
// case, --tool auto's detection): they run with the tool families
// registered, as the program does.
import _ "github.com/retrywise/retrywise/internal/failure/tools"
