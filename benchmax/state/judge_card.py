"""``/judges/[judge_id]``: a judge snapshot's public card."""

from __future__ import annotations

import json

import reflex as rx

from benchmax.context import app_context
from benchmax.services.dates import human_date
from benchmax.services.judge.card import judge_card
from benchmax.state.session import SessionState


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


class JudgeCardState(SessionState):
    found: rx.Field[bool] = rx.field(False)
    loaded: rx.Field[bool] = rx.field(False)
    card: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    calibrations: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        judge_id = str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1][:64]
        with app_context().session() as session:
            card = judge_card(session, judge_id)
        self.loaded = True
        self.found = card is not None
        if card is None:
            self.card, self.calibrations = {}, []
            return
        self.card = {
            "id": card.id,
            "name": card.name,
            "provider": f"{card.provider_label} ({card.base_url_host})",
            "models": ", ".join(card.model_ids) + (" (panel)" if card.panel else ""),
            "state": card.state,
            "template": card.prompt_template,
            "template_sha256": card.prompt_template_sha256,
            "schema_sha256": card.output_schema_sha256,
            "rubric": card.rubric_version,
            "sampling": f"{card.samples_per_review} samples per review, temperature "
            f"{card.temperature:g}, seed {card.seed}, at most {card.max_output_tokens} tokens",
            "blinding": card.blinding_version,
            "bounds": json.dumps(card.evidence_bounds, sort_keys=True),
            "calibration_sha256": card.calibration_sha256,
            "created": human_date(card.created_at),
        }
        self.calibrations = [
            {
                "date": human_date(run.created_at),
                "verdict": "passed" if run.passed else "failed",
                "items": str(run.item_count),
                "mae": _number(run.mae),
                "spearman": _number(run.spearman),
                "spread": _number(run.median_spread),
                "failures": ", ".join(run.failures) or "—",
            }
            for run in card.calibrations
        ]
