package teamrules

// The team rules' tests classify tools' output beside the rules: they run
// with the tool families registered, as the program does.
import _ "github.com/retrywise/retrywise/internal/failure/tools"
