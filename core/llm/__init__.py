"""Everything that talks to an LLM: templates, the leaky bucket, the litellm client."""
