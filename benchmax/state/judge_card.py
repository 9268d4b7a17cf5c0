"""``/judges/[judge_id]``: a judge snapshot's public card."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.presentation.formatting import size_text
from benchmax.services.dates import Stamp, stamp
from benchmax.services.judge.card import CalibrationSummary, JudgeCard, judge_card
from benchmax.services.judge.evidence import EvidenceBounds
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.views.judge_agreement import AgreementView
from benchmax.state.views.judge_probes import ProbeView, probe_views
from benchmax.state.views.listed import FactView


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def bounds_text(stored: dict[str, Any]) -> str:
    """How much of a Test the judge is shown, in words (the API keeps the snapshot's JSON)."""
    b = EvidenceBounds.from_json(stored)
    return (
        f"Text: up to {b.max_file_chars:,} characters a file and {b.max_total_chars:,} in all, "
        f"from at most {b.max_text_files} files. Images: at most {b.max_images}, up to "
        f"{size_text(b.max_image_bytes)} each. Source ZIP: up to {b.max_zip_entries} entries of "
        f"{b.max_zip_entry_chars:,} characters, from a ZIP up to {size_text(b.max_zip_bytes)}. "
        f"Each request: up to {size_text(b.max_request_bytes)}."
    )


def _facts(card: JudgeCard) -> list[FactView]:
    """What the snapshot pinned, in the order the card lists it."""
    sampling = (
        f"{card.samples_per_review} samples per review, temperature {card.temperature:g}, "
        f"seed {card.seed}, at most {card.max_output_tokens} tokens"
    )
    return [
        FactView("id", "Snapshot", card.id),
        FactView("state", "State", card.state),
        FactView("provider", "Provider", f"{card.provider_label} ({card.base_url_host})"),
        FactView(
            "models", "Model ids", ", ".join(card.model_ids) + (" (panel)" if card.panel else "")
        ),
        FactView("rubric", "Rubric", card.rubric_version),
        FactView("sampling", "Sampling", sampling),
        FactView("template_sha256", "Template SHA-256", card.prompt_template_sha256),
        FactView("schema_sha256", "Output schema SHA-256", card.output_schema_sha256),
        FactView("blinding", "Blinding rules", card.blinding_version),
        FactView("bounds", "Evidence bounds", bounds_text(card.evidence_bounds)),
        FactView("calibration_sha256", "Calibration set SHA-256", card.calibration_sha256),
    ]


@dataclass(frozen=True)
class CalibrationRow:
    """One calibration run: when (drawn as "… ago"), then ``CALIBRATION_COLUMNS``' cells."""

    when: Stamp
    cells: list[str]

    @classmethod
    def of(cls, run: CalibrationSummary) -> CalibrationRow:
        return cls(stamp(run.created_at), [cell(run) for _, cell in CALIBRATION_COLUMNS])


# Each calibration column after the date: its header, and its cell for one run.
CALIBRATION_COLUMNS: tuple[tuple[str, Callable[[CalibrationSummary], str]], ...] = (
    ("Result", lambda run: "passed" if run.passed else "failed"),
    ("Items", lambda run: str(run.item_count)),
    ("MAE", lambda run: _number(run.mae)),
    ("Spearman", lambda run: _number(run.spearman)),
    ("Spread", lambda run: _number(run.median_spread)),
    ("Failures", lambda run: ", ".join(run.failures) or "—"),
)


class JudgeCardState(FoundVars, SessionState):
    name: rx.Field[str] = rx.field("")
    template: rx.Field[str] = rx.field("")
    facts: rx.Field[list[FactView]] = rx.field(default_factory=list)
    created: rx.Field[Stamp] = rx.field(default_factory=Stamp)  # the card's last fact
    calibrations: rx.Field[list[CalibrationRow]] = rx.field(default_factory=list)
    agreement: rx.Field[AgreementView] = rx.field(default_factory=AgreementView)
    # The latest calibration's probes (empty before the first calibration).
    probes: rx.Field[list[ProbeView]] = rx.field(default_factory=list)

    @rx.event
    def on_load(self) -> None:
        card = self._look_up(judge_card)
        self.loaded, self.found = True, card is not None
        self.name = card.name if card else ""
        self.template = card.prompt_template if card else ""
        self.facts = _facts(card) if card else []
        self.created = stamp(card.created_at if card else None)
        runs = card.calibrations if card else []
        self.calibrations = [CalibrationRow.of(run) for run in runs]
        self.agreement = AgreementView.of(card.agreement) if card else AgreementView()
        margin = app_context().settings.judge_calibration_twin_margin
        self.probes = probe_views(runs[0] if runs else None, margin)
