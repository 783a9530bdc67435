package failure

// gh's failures (filled in by the gh recogniser work).

var ghFamily = family{
	tool: ToolGH,
}
