"""``?sort=`` on a list page: one of the menu's orders, anything else the page's own."""

from __future__ import annotations

import pytest

from benchmax.services.feed import list_sort
from benchmax.services.feed_order import LIST_SORTS, NEWEST, TOP_SCORE


@pytest.mark.parametrize("sort", LIST_SORTS)
def test_each_offered_order_is_kept(sort: str) -> None:
    assert list_sort(sort) == sort
    assert list_sort(f"  {sort.upper()} ") == sort
    assert list_sort([sort, "newest"], TOP_SCORE) == sort  # a repeated parameter: the first


@pytest.mark.parametrize("raw", ["", "relevance", "oldest", "x" * 500, [], None])
def test_anything_else_falls_back_to_the_pages_own_order(raw: object) -> None:
    assert list_sort(raw) == NEWEST
    assert list_sort(raw, TOP_SCORE) == TOP_SCORE
