"""Optional LLM understanding: backends (OpenAI-compatible HTTP, local transformers) and prompts."""
