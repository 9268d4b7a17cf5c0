"""One pass over a text that says which cheap literals it holds, for the secret and injection
checks.

Both checks begin by asking whether anything in a text could match at all, and for nearly
all evidence the answer is no: source code and logs hold no key-length runs, no PEM or
service-account markers and no injection trigger words. Asked one by one those questions
cost a pass each over every byte (``str.lower`` and an RE2 set for the triggers, a bytes
search that slows down on long words for the runs, an ``in`` per marker); a single RE2 set
of all of them answers at once. The answer for the last text asked about is kept, so the
secret check and the injection check of one evidence text share one pass.

Only ASCII text gets hints. There bytes are characters, case folding is ASCII folding and
normalisation changes nothing, so a literal is present in the set's sense exactly when the
exact checks would find it. Any other text returns ``None`` and takes the exact path.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache

import re2

# A key is a run of at least this many of these characters (base64, base64url, hex, ids).
MIN_RUN = 20
RUN_CHARACTERS = frozenset((string.ascii_letters + string.digits + "_-+/").encode())
# Lower-case literals, at least one of which every prompt-injection signal contains.
INJECTION_TRIGGERS = (
    "ignore", "disregard", "forget", "<|", "inst]", "<<sys>>", "system", "you are now",
    "from now on", "act as", "instruction", "judge", "grade", "evaluator", "reviewer", "score",
)  # fmt: skip
# Case-sensitive literals that a whole-document secret (a PEM key, a service-account JSON)
# cannot be without.
PEM_MARKER = "PRIVATE KEY"
SERVICE_ACCOUNT_MARKERS = ('"service_account"', '"private_key"')
DOCUMENT_MARKERS = (PEM_MARKER, *SERVICE_ACCOUNT_MARKERS)


@dataclass(frozen=True, slots=True)
class TextHints:
    triggers: tuple[str, ...]  # the injection triggers present, in INJECTION_TRIGGERS order
    markers: frozenset[str]  # the document markers present
    long_run: bool  # whether any run of MIN_RUN key characters exists


def _hint_set() -> re2._Set:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # ASCII bytes in, ASCII bytes compared
    hints = re2.Set.SearchSet(options)
    for trigger in INJECTION_TRIGGERS:
        hints.Add("(?i)" + re.escape(trigger))
    for marker in DOCUMENT_MARKERS:
        hints.Add(re.escape(marker))
    run_class = "".join(re.escape(chr(byte)) for byte in sorted(RUN_CHARACTERS))
    hints.Add(f"[{run_class}]{{{MIN_RUN}}}")
    hints.Compile()
    return hints


_HINT_SET = _hint_set()
_MARKERS_FROM = len(INJECTION_TRIGGERS)
_LONG_RUN = _MARKERS_FROM + len(DOCUMENT_MARKERS)


# One entry: the secret and injection checks of one evidence text ask about the same string
# one after the other. The cache is thread-safe, and finds the very same string by identity
# before comparing anything.
@lru_cache(maxsize=1)
def text_hints(text: str) -> TextHints | None:
    """What ``text`` holds of the literals above, or ``None`` when it is not ASCII."""
    return _scan(text) if text.isascii() else None


def _scan(text: str) -> TextHints:
    found = sorted(_HINT_SET.Match(text.encode("ascii")) or ())
    return TextHints(
        triggers=tuple(INJECTION_TRIGGERS[index] for index in found if index < _MARKERS_FROM),
        markers=frozenset(
            DOCUMENT_MARKERS[index - _MARKERS_FROM]
            for index in found
            if _MARKERS_FROM <= index < _LONG_RUN
        ),
        long_run=_LONG_RUN in found,
    )
