package failure

// docker's failures (filled in by the docker recogniser work).

var dockerFamily = family{
	tool: ToolDocker,
}
