package failure

// aider's failures (filled in by the aider recogniser work).

var aiderFamily = family{
	tool: ToolAider,
}
