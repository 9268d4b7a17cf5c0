"""``python -m benchmax.cli``: what the processes BenchMax starts for itself run."""

from benchmax.cli.main import main

raise SystemExit(main())
