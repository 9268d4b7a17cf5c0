"""A moment on a page: the relative time, with the exact time on hover and for machines."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.services.dates import Stamp


def time_ago(moment: ObjectVar[Stamp], **props: Any) -> rx.Component:
    """``<time datetime=… title="01 Dec 2026, 09:30 UTC">5 min ago</time>``; build the
    ``Stamp`` with ``services.dates.stamp`` in the state."""
    return rx.el.time(
        moment.relative,
        date_time=moment.iso,
        title=moment.exact,
        class_name="time-ago",
        **props,
    )


def time_ago_or(moment: ObjectVar[Stamp], missing: str = "—", **props: Any) -> rx.Component:
    """``time_ago``, or ``missing`` for a moment that has not happened (an empty ``Stamp``)."""
    return rx.cond(moment.iso != "", time_ago(moment, **props), missing)
