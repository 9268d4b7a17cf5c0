"""The ``benchmax`` command: ``main`` builds the parser; each module adds one family of
subcommands (operations, leaderboard, judge, stack, preview)."""
