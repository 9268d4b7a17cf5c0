"""A button the browser presses by itself while its tab is visible.

Live pages (``/operations``, the wizard's processing panel) stay current this way with no
loop on the server; ``assets/autorefresh.js`` does the pressing and stops when the tab closes.
"""

from __future__ import annotations

from typing import Any

import reflex as rx


def autorefresh_button(
    *children: rx.Component | str, every_seconds: float, **props: Any
) -> rx.Component:
    return rx.fragment(
        rx.button(
            *children,
            custom_attrs={"data-autorefresh-ms": str(int(every_seconds * 1000))},
            **props,
        ),
        rx.script(src="/autorefresh.js"),
    )
