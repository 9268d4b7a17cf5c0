"""How a judge's agreement with human reviewers reads on its card and on ``/operations``.

Each figure carries a one-line explanation because few readers know what a weighted kappa
is, and a bare 0.6 says nothing. Below the minimum overlap the figures are withheld by the
service; the card then says how many shared Tests there are and how many it waits for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmax.services.judge.agreement import NOT_ENOUGH, Agreement, JudgeAgreement

# How to read each figure, by its key.
EXPLANATIONS = {
    "shared": "Public Tests scored both by this judge and by approved human or admin reviewers.",
    "mad": "How many points apart the judge's score and the reviewers' mean score are, on "
    "average (0 means identical).",
    "within": "The share of shared Tests where the two scores are 10 points apart or less.",
    "spearman": "Whether the judge ranks Tests in the reviewers' order: 1 the same order, "
    "0 unrelated, \N{MINUS SIGN}1 reversed.",
    "kappa": "Agreement beyond what chance alone would give, over 10-point bands (quadratic-"
    "weighted Cohen's κ): 1 perfect, 0 no better than chance, below 0 worse.",
}


def _plain(value: float) -> str:
    """Two decimals at most, without trailing zeros or a negative zero; a typeset minus."""
    return f"{round(value, 2) + 0.0:g}".replace("-", "\N{MINUS SIGN}")


def overlap_text(agreement: Agreement) -> str:
    return (
        f"Not enough overlap yet ({agreement.shared_tests} of {agreement.minimum_shared} "
        "shared Tests)"
    )


def _kappa(agreement: Agreement) -> str:
    if agreement.kappa is None:
        return "— (every score falls in one 10-point band)"
    return _plain(agreement.kappa)


@dataclass(frozen=True)
class FigureView:
    key: str
    label: str
    value: str
    explanation: str


@dataclass(frozen=True)
class SeatView:
    """One panel seat's figures, or its not-enough-overlap line in ``mad``."""

    seat: str
    shared: str
    mad: str
    within: str
    spearman: str
    kappa: str

    @classmethod
    def of(cls, seat: str, agreement: Agreement) -> SeatView:
        shared = str(agreement.shared_tests)
        if agreement.status == NOT_ENOUGH:
            return cls(seat, shared, overlap_text(agreement), "—", "—", "—")
        figures = {figure.key: figure.value for figure in figures_of(agreement)}
        return cls(
            seat, shared, figures["mad"], figures["within"], figures["spearman"], _kappa(agreement)
        )


def figures_of(agreement: Agreement) -> list[FigureView]:
    """The overall figures in the order the card lists them (only when there are enough)."""
    values = [
        ("shared", "Shared Tests", str(agreement.shared_tests)),
        (
            "mad",
            "Mean absolute difference",
            f"{_plain(agreement.mean_absolute_difference or 0)} points",
        ),
        ("within", "Within 10 points", f"{round(100 * (agreement.within_10 or 0))}%"),
        ("spearman", "Spearman's \N{GREEK SMALL LETTER RHO}", _plain(agreement.spearman or 0)),
        ("kappa", "Cohen's κ (weighted)", _kappa(agreement)),
    ]
    return [FigureView(key, label, value, EXPLANATIONS[key]) for key, label, value in values]


@dataclass(frozen=True)
class AgreementView:
    """The card's agreement section; ``enough`` False shows ``overlap`` instead of figures."""

    enough: bool = False
    overlap: str = ""
    figures: list[FigureView] = field(default_factory=list)
    seats: list[SeatView] = field(default_factory=list)

    @classmethod
    def of(cls, agreement: JudgeAgreement) -> AgreementView:
        overall = agreement.overall
        enough = overall.status != NOT_ENOUGH
        return cls(
            enough=enough,
            overlap="" if enough else overlap_text(overall) + ".",
            figures=figures_of(overall) if enough else [],
            seats=[SeatView.of(seat, figures) for seat, figures in sorted(agreement.seats.items())],
        )


def agreement_summary(agreement: Agreement) -> str:
    """One short line for a table cell on ``/operations``, beside the snapshot's actions."""
    if agreement.status == NOT_ENOUGH:
        return f"Not enough overlap ({agreement.shared_tests} of {agreement.minimum_shared})"
    kappa = "—" if agreement.kappa is None else _plain(agreement.kappa)
    return (
        f"{agreement.shared_tests} shared · MAD "
        f"{_plain(agreement.mean_absolute_difference or 0)} · κ {kappa}"
    )
