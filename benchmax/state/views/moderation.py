"""What ``/moderation`` shows of each queue item and each account found."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from benchmax.services.dates import Stamp, stamp
from benchmax.services.judge.review import HOLD_JUDGE_REDACTED, HOLD_JUDGE_SUSPECTED
from benchmax.services.moderation import queues, roles
from benchmax.services.moderation.appeals import AppealItem
from benchmax.services.moderation.holds import INJECTION_HOLD_CODE
from benchmax.services.moderation.queues import LabelItem


@dataclass(frozen=True)
class ItemView:
    """What every queue item has: a key stable across reloads (so a typed reason never moves
    to another item), the Test it is about, and the confirmation of a decision made on it
    here ("" while it is open)."""

    key: str = ""
    test_id: str = ""
    href: str = ""
    title: str = ""
    done: str = ""


def _about(key: str, test_id: str, title: str) -> tuple[str, str, str, str, str]:
    """``ItemView``'s fields, in order, for an item about Test ``test_id``."""
    return key, test_id, f"/tests/{test_id}", title, ""


@dataclass(frozen=True)
class ReportView(ItemView):
    id: str = ""
    state: str = ""
    evidence_id: str = ""
    evidence: str = ""
    reason: str = ""
    details: str = ""
    reporter: str = ""
    created: Stamp = field(default_factory=Stamp)

    @classmethod
    def of(cls, item: queues.ReportItem) -> ReportView:
        return cls(
            *_about(f"report-{item.id}", item.test_id, item.test_title), id=item.id,
            state=item.test_state, evidence_id=item.evidence_id or "",
            evidence=item.evidence_name or "", reason=item.reason_label, details=item.details,
            reporter=item.reporter_handle, created=stamp(item.created_at),
        )  # fmt: skip


@dataclass(frozen=True)
class DisputeView(ItemView):
    id: str = ""
    contributor: str = ""
    reason: str = ""
    score: str = ""
    reasoning: str = ""
    kind: str = ""
    created: Stamp = field(default_factory=Stamp)

    @classmethod
    def of(cls, item: queues.DisputeItem) -> DisputeView:
        return cls(
            *_about(f"dispute-{item.id}", item.test_id, item.test_title), id=item.id,
            contributor=item.contributor_handle, reason=item.reason,
            score=str(item.review_score), reasoning=item.review_reasoning,
            kind=item.reviewer_kind, created=stamp(item.created_at),
        )  # fmt: skip


# Why a Test is held, in words; a code not listed here is shown as it is.
HOLD_REASONS = {
    INJECTION_HOLD_CODE: "its own text reads like instructions to an AI reviewer",
    HOLD_JUDGE_SUSPECTED: "the AI judge said the evidence tried to steer it",
    HOLD_JUDGE_REDACTED: "the AI judge's reply held what looked like a key (removed)",
}


def hold_text(codes: list[str]) -> str:
    return "; ".join(HOLD_REASONS.get(code, code) for code in codes)


@dataclass(frozen=True)
class FlagView(ItemView):
    state: str = ""
    holds: str = ""
    findings: str = ""
    kept: bool = False

    @classmethod
    def of(cls, item: queues.FlagItem) -> FlagView:
        return cls(
            *_about(f"flag-{item.test_id}", item.test_id, item.test_title), state=item.test_state,
            holds=hold_text(item.hold_codes), findings=", ".join(item.finding_codes),
            kept=item.kept,
        )  # fmt: skip


@dataclass(frozen=True)
class LabelView(ItemView):
    """A declared label: ``href`` is the feed searched for it (it is about many Tests)."""

    kind: str = ""
    label: str = ""
    count: str = ""

    @classmethod
    def of(cls, item: LabelItem) -> LabelView:
        key = "label-" + queues.label_target_id(item.kind, item.key).replace(":", "-")[:24]
        return cls(key, "", f"/?q={quote(item.label)}", item.label, "", kind=item.kind,
                   label=item.label, count=str(item.test_count))  # fmt: skip


@dataclass(frozen=True)
class RemovedView(ItemView):
    contributor: str = ""
    removed: Stamp = field(default_factory=Stamp)
    reason: str = ""
    restorable: bool = False
    problem: str = ""

    @classmethod
    def of(cls, item: queues.RemovedItem) -> RemovedView:
        return cls(
            *_about(f"removed-{item.test_id}", item.test_id, item.test_title),
            contributor=item.contributor_handle, removed=stamp(item.removed_at),
            reason=item.reason, restorable=item.can_restore, problem=item.restore_problem,
        )  # fmt: skip


@dataclass(frozen=True)
class AppealView(ItemView):
    id: str = ""
    contributor: str = ""
    reason: str = ""
    removal_reason: str = ""
    created: Stamp = field(default_factory=Stamp)

    @classmethod
    def of(cls, item: AppealItem) -> AppealView:
        return cls(
            *_about(f"appeal-{item.id}", item.test_id, item.test_title), id=item.id,
            contributor=item.contributor_handle, reason=item.reason,
            removal_reason=item.removal_reason, created=stamp(item.created_at),
        )  # fmt: skip


@dataclass(frozen=True)
class AccountView:
    handle: str = ""
    name: str = ""
    role: str = ""
    status: str = ""
    suspended: bool = False

    @classmethod
    def of(cls, match: roles.AccountMatch) -> AccountView:
        return cls(
            match.handle, match.display_name, match.role, match.status, match.status != "active"
        )
