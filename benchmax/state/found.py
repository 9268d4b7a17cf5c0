"""The vars of a page about one thing that may not exist (a Test, an account, a judge, a group).

The page shows ``once_loaded(S.loaded, S.found, …, not_found_panel())``: ``loaded`` says its
look-up ran, ``found`` whether the thing is there for this viewer.
"""

from __future__ import annotations

import reflex as rx


class FoundVars(rx.State, mixin=True):
    loaded: rx.Field[bool] = rx.field(False)
    found: rx.Field[bool] = rx.field(False)
