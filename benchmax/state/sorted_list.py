"""The order of a page's list of Tests, kept in the address (``?sort=``) so the view can be
shared and reopened; changing it rewrites the address in place, as the feed does."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from benchmax.services.feed import list_sort
from benchmax.services.feed_order import NEWEST

# Rewrites the address without navigating, keeping the router's own entry in history.state
# (its key and index), so Back and Forward still line up with the app's history.
REPLACE_URL = "(function(u){history.replaceState(history.state,'',u);})(%s)"


class SortedList(rx.State, mixin=True):
    """``sort`` is one of ``feed_order.LIST_SORTS``; the list's own order (``_own_sort``) is
    left out of the address."""

    sort: rx.Field[str] = rx.field(NEWEST)

    def _own_sort(self) -> str:
        return NEWEST

    def _sort_from_url(self) -> None:
        """The address's order, or the list's own when it names none (or a bad one)."""
        wanted = self.router.url.query_parameters.get("sort", "")
        self.sort = list_sort(wanted, self._own_sort())

    def _sort_query(self) -> dict[str, str]:
        """The order as the address carries it: nothing for the list's own."""
        return {"sort": self.sort} if self.sort != self._own_sort() else {}

    def _pick_sort(self, value: str) -> EventSpec:
        """Take a choice from the menu and put it in the address, other parameters kept."""
        self.sort = list_sort(value, self._own_sort())
        query = {k: v for k, v in self.router.url.query_parameters.items() if k != "sort"}
        query.update(self._sort_query())
        path = str(self.router.url.path)
        url = path + ("?" + urlencode(query, doseq=True) if query else "")
        return rx.call_script(REPLACE_URL % json.dumps(url))
