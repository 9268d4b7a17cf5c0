"""The production topology on one machine (``benchmax stack``), for tests and load runs."""
