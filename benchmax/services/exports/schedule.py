"""The export as a periodic job and as a command: both call ``export_now``.

The scheduler calls ``export_if_due`` on every tick of its interval; it skips when the
published export is younger than the interval, so a restarted scheduler (or the embedded
loop's first round at each start) does not regenerate an export that is still fresh.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from benchmax.adapters.storage.export_manifest import Manifest, read_current
from benchmax.services.exports.publish import generate_export
from benchmax.services.exports.sections import ExportContext
from benchmax.services.jobs import JobContext
from benchmax.settings import Settings


def export_context(settings: Settings) -> ExportContext:
    return ExportContext(settings.app_origin, settings.usercontent_origin)


def export_now(ctx: JobContext) -> Manifest:
    with ctx.session() as session:
        return generate_export(
            session, ctx.storage, export_context(ctx.settings), ctx.settings.export_licence
        )


def export_if_due(ctx: JobContext) -> int:
    """Publish a new export when the current one is older than the interval; answers 1 or 0."""
    current = read_current(ctx.storage)
    if current is not None:
        age = datetime.now(UTC) - datetime.fromisoformat(current.generated_at)
        if age < timedelta(seconds=ctx.settings.export_interval_seconds * 0.9):
            return 0
    export_now(ctx)
    return 1
