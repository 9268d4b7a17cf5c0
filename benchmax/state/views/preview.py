"""The automated preview section of a Test's page."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.services.preview.view import PreviewView


@dataclass(frozen=True)
class PreviewPanel(PreviewView):
    """The service's view, as this state's typed var."""
