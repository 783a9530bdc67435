package failure

// gemini's failures (filled in by the gemini recogniser work).

var geminiFamily = family{
	tool: ToolGemini,
}
