"""Free-text search: ``query`` parses words and marks matches (no SQL), ``sql`` turns them
into each engine's full-text statements, ``maintenance`` keeps SQLite's index compact.

The names below are the parsing and marking that feeds, cards and exports share.
"""

from benchmax.services.search.query import (
    RANK_WINDOW,
    InvalidSearchCursorError,
    Segment,
    Term,
    decode_rank_cursor,
    encode_rank_cursor,
    excerpt,
    highlight,
    marked_html,
    parse,
)

__all__ = [
    "RANK_WINDOW",
    "InvalidSearchCursorError",
    "Segment",
    "Term",
    "decode_rank_cursor",
    "encode_rank_cursor",
    "excerpt",
    "highlight",
    "marked_html",
    "parse",
]
