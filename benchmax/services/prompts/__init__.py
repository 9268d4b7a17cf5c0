"""Same-prompt comparison groups and the near-duplicate ("similar prompts") index."""
