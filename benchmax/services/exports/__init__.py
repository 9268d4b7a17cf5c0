"""Open data: every public Test, its evidence metadata and reviews as JSON Lines and CSV.

``generate_export`` writes and publishes one; ``export_if_due`` is the periodic job;
``read_current`` answers what is published. The bytes are downloaded from the user-content
origin (``/exports/<name>``), never from the app.
"""

from benchmax.adapters.storage.export_manifest import (
    CURRENT_KEY,
    ExportFile,
    Manifest,
    read_current,
)
from benchmax.services.exports.publish import generate_export
from benchmax.services.exports.schedule import export_context, export_if_due, export_now
from benchmax.services.exports.sections import SECTIONS, ExportContext, ExportSection

__all__ = [
    "CURRENT_KEY",
    "SECTIONS",
    "ExportContext",
    "ExportFile",
    "ExportSection",
    "Manifest",
    "export_context",
    "export_if_due",
    "export_now",
    "generate_export",
    "read_current",
]
