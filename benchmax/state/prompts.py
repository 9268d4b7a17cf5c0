"""``/prompts`` (the largest comparison groups) and ``/prompts/[key]`` (one group)."""

from __future__ import annotations

from dataclasses import dataclass, field

import reflex as rx

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.preview.compare import preview_figures
from benchmax.services.preview.view import PreviewView
from benchmax.services.prompts import groups
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.views.listed import ScoredView

PAGE = 60


@dataclass(frozen=True)
class GroupRow:
    """A comparison group in a list: the largest on ``/prompts``, the similar ones on a group."""

    key: str
    href: str
    title: str
    size: str
    similarity: str = ""  # similar groups only

    @classmethod
    def of(cls, key: str, title: str, size: int, similarity: str = "") -> GroupRow:
        return cls(
            key=key,
            href=f"/prompts/{key}",
            title=title,
            size=count_text(size, "Test"),
            similarity=similarity,
        )


@dataclass(frozen=True)
class MemberView(ScoredView):
    """One Test of a group, ranked within it, with its median counted review."""

    median: str = ""
    preview: PreviewView = field(default_factory=PreviewView)

    @classmethod
    def of(cls, member: groups.GroupMember, place: int, preview: PreviewView) -> MemberView:
        return cls(
            **cls.fields_of(member.test),
            # Unreviewed members come last in the order, and a place would read as a rank
            # they have not earned.
            place=str(place) if member.review_count else "",
            reviews=count_text(member.review_count, "counted review"),
            median=f"median {member.median}" if member.median else "not reviewed yet",
            score=member.score,
            preview=preview,
        )


@dataclass(frozen=True)
class AliasView:
    """A moderator's recorded join of another prompt into this group."""

    href: str = ""
    reason: str = ""
    date: str = ""


class PromptsState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    groups: rx.Field[list[GroupRow]] = rx.field(default_factory=list)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        with app_context().session() as session:
            found = groups.largest_groups(session)
        self.groups = [GroupRow.of(g.prompt_key, g.title, g.size) for g in found]
        self.loaded = True


class PromptGroupState(FoundVars, SessionState):
    key: rx.Field[str] = rx.field("")
    prompt: rx.Field[str] = rx.field("")
    total: rx.Field[int] = rx.field(0)
    members: rx.Field[list[MemberView]] = rx.field(default_factory=list)
    similar: rx.Field[list[GroupRow]] = rx.field(default_factory=list)
    aliases: rx.Field[list[AliasView]] = rx.field(default_factory=list)
    prior: rx.Field[str] = rx.field("")
    alias_reason: rx.Field[str] = rx.field("")
    alias_error: rx.Field[str] = rx.field("")
    alias_notice: rx.Field[str] = rx.field("")
    _all: list[MemberView] = []

    @rx.var
    def is_moderator(self) -> bool:
        return self.viewer_role in ("moderator", "owner")

    @rx.var
    def more(self) -> bool:
        return len(self.members) < self.total

    def _fill(self) -> None:
        with app_context().session() as session:
            group = groups.prompt_group(session, self.key)
            ids = [member.test.id for member in group.members] if group else []
            figures = preview_figures(session, app_context().settings, ids)
        self.found = group is not None
        if group is None:
            self._all, self.members, self.similar, self.aliases, self.total = [], [], [], [], 0
            return
        self.prompt = group.prompt
        self._all = [
            MemberView.of(m, i, figures[m.test.id]) for i, m in enumerate(group.members, start=1)
        ]
        self.total = len(self._all)
        self.members = self._all[:PAGE]
        self.similar = [
            GroupRow.of(s.prompt_key, s.title, s.size, f"{s.similarity_percent}% similar")
            for s in group.similar
        ]
        self.aliases = [
            AliasView(f"/prompts/{a.other_key}", a.reason, human_date(a.created_at))
            for a in group.aliases
        ]
        self.prior = f"m = {group.prior_weight}, C = {group.prior_mean_bp / 100:.2f}"

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.key = self._path_name()
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
        joined = self._attempt(
            lambda s, u: groups.record_alias(s, u, self.key, other_key, self.alias_reason)
        )
        if isinstance(joined, ServiceError):
            self.alias_error = joined.message
            return
        self.alias_error, self.alias_reason = "", ""
        self.alias_notice = "Recorded: these prompts are now one comparison group."
        self._fill()
