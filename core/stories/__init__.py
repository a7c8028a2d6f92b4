"""Stories: conversations with expected tool calls, responses and data, recorded live once and
replayed with no LLM and no planner in CI (`datasmith stories record | replay`, a pytest plugin)."""
