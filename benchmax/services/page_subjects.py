"""The pages about one thing, and whether their thing is there for the viewer.

A Test, a contributor, a judge card, a catalog entry and a prompt group each have a page named
by the last part of its path. When the thing does not exist, the name is malformed, or it is
not the viewer's to see (someone else's private Test, a removed one for anyone but a
moderator), the page shows the not-found view; this module says so before the page runs, so
the server can answer that URL with 404 as well (search engines and link checkers read the
status, not the view). ``ROUTES`` is keyed by the app's own route strings, and a unit test
keeps every dynamic route in ``benchmax.benchmax.PAGES`` listed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlmodel import Session

from benchmax.models import User
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.catalog import has_catalog_page
from benchmax.services.detail_view import visible_test
from benchmax.services.judge.card import has_judge_card
from benchmax.services.moderation.policy import can_moderate
from benchmax.services.prompts.groups import has_group

# Whether the page for a name shows its thing to a viewer (None: a visitor).
Finder = Callable[[Session, str, "User | None"], bool]


def _test(session: Session, test_id: str, viewer: User | None) -> bool:
    viewer_id = viewer.id if viewer else None
    return visible_test(session, test_id, viewer_id, staff=can_moderate(viewer)) is not None


def _contributor(session: Session, handle: str, _viewer: User | None) -> bool:
    return find_user_by_handle(session, handle) is not None


def _judge(session: Session, snapshot_id: str, _viewer: User | None) -> bool:
    return has_judge_card(session, snapshot_id)


def _catalog_entry(session: Session, slug: str, _viewer: User | None) -> bool:
    return has_catalog_page(session, slug)


def _group(session: Session, key: str, _viewer: User | None) -> bool:
    return has_group(session, key)


ROUTES: dict[str, Finder] = {
    "/tests/[test_id]": _test,
    "/u/[handle]": _contributor,
    "/judges/[judge_id]": _judge,
    "/models/[slug]": _catalog_entry,
    "/prompts/[key]": _group,
}


def _pattern(route: str) -> re.Pattern[str]:
    """The paths a route serves: each ``[name]`` part is one path segment, and a trailing
    slash is the same page."""
    parts = ("([^/]+)" if part.startswith("[") else re.escape(part) for part in route.split("/"))
    return re.compile("/".join(parts) + "/?")


_PATTERNS = [(_pattern(route), finder) for route, finder in ROUTES.items()]


def subject_of(path: str) -> tuple[Finder, str] | None:
    """For a page about one thing, how to find it and its name; None for any other path."""
    for pattern, finder in _PATTERNS:
        match = pattern.fullmatch(path)
        if match:
            return finder, match.group(1)
    return None
