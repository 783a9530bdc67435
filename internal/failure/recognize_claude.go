package failure

// claude's failures (filled in by the claude recogniser work).

var claudeFamily = family{
	tool: ToolClaude,
}
