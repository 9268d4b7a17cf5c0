"""BenchMax: a public feed of community-run AI Tests."""
