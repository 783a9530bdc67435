package failure

// goreleaser's failures (filled in by the goreleaser recogniser work).

var goreleaserFamily = family{
	tool: ToolGoreleaser,
}
