"""Benchmarks, run as ``python -m bench.NAME`` (``make bench`` runs them all)."""
