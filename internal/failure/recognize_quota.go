package failure

// A quota spent for a period ("too many versions in the last 24 hours",
// "try again in 5 days", a daily or monthly cap, billing) is policy: the
// answer is already decided for longer than any run lasts. Code
// quota-exhausted, with the reset in the reason when the text gives it.

var quotaMatchers = []matcher{}
