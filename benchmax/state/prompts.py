"""``/prompts`` (the largest comparison groups) and ``/prompts/[key]`` (one group)."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.prompts import groups
from benchmax.state.leaderboard import summary_dict
from benchmax.state.session import SessionState

PAGE = 60


class PromptsState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    groups: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        with app_context().session() as session:
            found = groups.largest_groups(session)
        self.groups = [
            {"href": f"/prompts/{g.prompt_key}", "title": g.title, "size": f"{g.size} Tests"}
            for g in found
        ]
        self.loaded = True


def _member_dict(member: groups.GroupMember, place: int) -> dict[str, str]:
    reviews = member.review_count
    return {
        **summary_dict(member.test),
        "place": str(place),
        "reviews": f"{reviews} counted review" + ("" if reviews == 1 else "s"),
        "median": f"median {member.median}" if member.median else "not reviewed yet",
        "score": member.score,
    }


class PromptGroupState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    found: rx.Field[bool] = rx.field(False)
    key: rx.Field[str] = rx.field("")
    prompt: rx.Field[str] = rx.field("")
    total: rx.Field[int] = rx.field(0)
    members: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    similar: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    aliases: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    prior: rx.Field[str] = rx.field("")
    alias_reason: rx.Field[str] = rx.field("")
    alias_error: rx.Field[str] = rx.field("")
    alias_notice: rx.Field[str] = rx.field("")
    _all: list[dict[str, str]] = []

    @rx.var
    def is_moderator(self) -> bool:
        return self.viewer_role in ("moderator", "owner")

    @rx.var
    def more(self) -> bool:
        return len(self.members) < self.total

    def _fill(self) -> None:
        with app_context().session() as session:
            group = groups.prompt_group(session, self.key)
        self.found = group is not None
        if group is None:
            self._all, self.members, self.similar, self.aliases, self.total = [], [], [], [], 0
            return
        self.prompt = group.prompt
        self._all = [_member_dict(m, i) for i, m in enumerate(group.members, start=1)]
        self.total = len(self._all)
        self.members = self._all[:PAGE]
        self.similar = [
            {
                "key": s.prompt_key,
                "href": f"/prompts/{s.prompt_key}",
                "title": s.title,
                "size": f"{s.size} Test" + ("" if s.size == 1 else "s"),
                "similarity": f"{s.similarity_percent}% similar",
            }
            for s in group.similar
        ]
        self.aliases = [
            {
                "href": f"/prompts/{a.other_key}",
                "reason": a.reason,
                "date": human_date(a.created_at),
            }
            for a in group.aliases
        ]
        self.prior = f"m = {group.prior_weight}, C = {group.prior_mean_bp / 100:.2f}"

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.key = str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1][:64]
        self.alias_error = self.alias_notice = ""
        self._fill()
        self.loaded = True

    @rx.event
    def show_more(self) -> None:
        self.members = self._all[: len(self.members) + PAGE]

    @rx.event
    def set_alias_reason(self, value: str) -> None:
        self.alias_reason = value[:2000]

    @rx.event
    def join(self, other_key: str) -> None:
        user = self._require_user()
        try:
            with app_context().session() as session:
                groups.record_alias(session, user, self.key, other_key, self.alias_reason)
        except ServiceError as error:
            self.alias_error = error.message
            return
        self.alias_error, self.alias_reason = "", ""
        self.alias_notice = "Recorded: these prompts are now one comparison group."
        self._fill()
