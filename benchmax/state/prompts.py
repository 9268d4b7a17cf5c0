"""``/prompts`` (the largest comparison groups) and ``/prompts/[key]`` (one group)."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.preview.compare import preview_figures
from benchmax.services.prompts import groups
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.views.prompts import AliasView, GroupRow, MemberView

PAGE = 60


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
    def total_text(self) -> str:
        return count_text(self.total, "public Test")

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
