"""The prompt key: which Tests gave the same prompt, kept on the Test row by the ORM itself.

Two prompts are "the same" when they differ only in Unicode form, invisible characters, line
endings, trailing or repeated spaces, surrounding blank space or letter case. The key is the
SHA-256 of the normalised text, so a group can be found with one indexed equality.

The rules are versioned (``PROMPT_KEY_VERSION``, stored beside the key): changing them later
means a new version and a migration that recomputes every row still on the old one. Rules of
version 1, in order:

1. Unicode NFKC (full-width letters, ligatures and no-break spaces fold to plain ones);
2. drop every format (Cf: zero-width spaces and joiners, bidi controls, soft hyphens),
   private-use (Co) and unassigned (Cn) character;
3. CRLF and lone CR become LF;
4. strip spaces and tabs at the end of every line;
5. collapse each run of horizontal white space inside a line to one space;
6. trim the whole text;
7. casefold.

The key is set on every write path by a mapper event rather than by each service, so a Test
created by the wizard, the API, the demo seed, a factory or a restore can never miss it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any

from sqlalchemy import event, inspect

from benchmax.models.test import Test

PROMPT_KEY_VERSION = 1
_DROPPED_CATEGORIES = frozenset({"Cf", "Co", "Cn"})
_HORIZONTAL_SPACE = re.compile(r"[^\S\n]+")


def normalise_prompt(text: str) -> str:
    """The prompt as compared for grouping; see the module docstring for the rules."""
    folded = unicodedata.normalize("NFKC", text)
    visible = "".join(ch for ch in folded if unicodedata.category(ch) not in _DROPPED_CATEGORIES)
    lines = visible.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    collapsed = "\n".join(_HORIZONTAL_SPACE.sub(" ", line.rstrip(" \t")) for line in lines)
    return collapsed.strip().casefold()


def prompt_key(text: str) -> str:
    """SHA-256 (hex) of the normalised prompt; the group every Test with this prompt shares."""
    return hashlib.sha256(normalise_prompt(text).encode("utf-8")).hexdigest()


def _set_key(_mapper: Any, _connection: Any, test: Test) -> None:
    history = inspect(test).attrs.prompt.history
    if test.prompt_key and test.prompt_key_version == PROMPT_KEY_VERSION and not history.added:
        return
    test.prompt_key = prompt_key(test.prompt or "")
    test.prompt_key_version = PROMPT_KEY_VERSION


event.listen(Test, "before_insert", _set_key)
event.listen(Test, "before_update", _set_key)
