package failure

// twine's failures (filled in by the twine recogniser work).

var twineFamily = family{
	tool: ToolTwine,
}
