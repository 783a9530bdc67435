package failure

// cargo's failures (filled in by the cargo recogniser work).

var cargoFamily = family{
	tool: ToolCargo,
}
