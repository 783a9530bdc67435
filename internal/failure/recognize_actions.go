package failure

// actions's failures (filled in by the actions recogniser work).

var actionsFamily = family{
	tool: ToolActions,
}
