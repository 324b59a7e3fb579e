"""The base system prompts of the profiles, one module each."""
