"""What the AI judge section of ``/operations`` shows: the judge's state, its budget and
its snapshots, each with the actions it allows."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmax.services.judge.agreement import Agreement
from benchmax.services.judge.status import JudgeStatus, SnapshotRow
from benchmax.state.views.judge_agreement import agreement_summary


@dataclass(frozen=True)
class SnapshotView:
    id: str = ""
    name: str = ""
    state: str = ""
    models: str = ""
    calibration: str = ""
    agreement: str = ""
    can_activate: bool = False
    active: bool = False

    @classmethod
    def of(cls, row: SnapshotRow, agreement: Agreement) -> SnapshotView:
        return cls(
            row.id, row.name, row.state, row.models, row.calibration,
            agreement_summary(agreement), can_activate=row.can_activate,
            active=row.state == "active",
        )  # fmt: skip


@dataclass(frozen=True)
class JudgeView:
    """The section's figures; ``JudgeView()`` is the empty one an outsider gets."""

    state: str = ""
    budget: str = ""
    reserved: str = ""
    tokens: str = ""
    waiting: str = ""
    jobs: str = ""
    snapshots: list[SnapshotView] = field(default_factory=list)

    @classmethod
    def of(cls, status: JudgeStatus) -> JudgeView:
        tokens = status.mean_tokens_per_sample
        return cls(
            state=status.state,
            budget=f"{status.used_today} of {status.budget}",
            reserved=str(status.reserved_today),
            tokens="—" if tokens is None else f"{tokens:.0f}",
            waiting=str(status.waiting_for_budget),
            jobs=f"{status.pending} pending · {status.dead} dead",
            snapshots=[SnapshotView.of(row, status.agreements[row.id]) for row in status.snapshots],
        )
