package failure

// EvidenceLine returns the first line of s, trimmed and cut to the evidence length (300 bytes, cuts marked with redact.Cut), safe to quote as evidence.
func EvidenceLine(s string) string { return evidenceLine(firstLine(s), 0) }
