package failure

// codex's failures (filled in by the codex recogniser work).

var codexFamily = family{
	tool: ToolCodex,
}
