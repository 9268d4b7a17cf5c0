"""Words and addresses that more than one layer shows: the live feed page and the first paint
say the same heading, and the security page links the file the API serves."""

from __future__ import annotations

FEED_TITLE = "What AI models really did"
FEED_INTRO = (
    "Community-run AI Tests: one prompt, the declared setup, and the evidence. "
    "Reviews come later and never gate publication."
)
# (icon, name, what): the newcomers' strip on the feed, in the live page and the first paint.
HOW_IT_WORKS = (
    ("message-square-text", "The prompt", "exactly what was asked"),
    ("settings-2", "The declared setup", "model, harness and reasoning, as the contributor says"),
    ("file-check", "The evidence", "the output, screenshots and logs that came back"),
)
SECURITY_TXT_PATH = "/.well-known/security.txt"
