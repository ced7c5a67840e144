"""LLM layer: one small interface over the OpenAI and Anthropic SDKs (see client.py)."""
