package failure

// npm's failures (filled in by the npm recogniser work).

var npmFamily = family{
	tool: ToolNPM,
}
