"""Which open-data file may be served: only one the current pointer lists, unchanged.

Fail closed: no pointer, an unreadable one, a name it does not list, a stored object whose
size differs from the listing — each is the same None, which the caller answers with its
one 404. Older generations under ``exports/`` are never reachable by any URL.
"""

from __future__ import annotations

import re

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.export_manifest import MANIFEST_NAME, read_published
from usercontent_service.sending import StoredObject

_NAME = re.compile(r"[a-z0-9_]{1,40}\.(jsonl|csv|json)")


def find_export_file(storage: ObjectStorage, name: str) -> StoredObject | None:
    if not _NAME.fullmatch(name):
        return None
    published = read_published(storage)
    if published is None:
        return None
    try:
        key, listed = published.file(name)
    except KeyError:
        return None
    if listed is None:
        size, sha256, content_type = (
            published.manifest_bytes,
            published.manifest_sha256,
            "application/json",
        )
    else:
        size, sha256, content_type = listed.bytes, listed.sha256, listed.content_type
    stored = storage.head(key)
    if stored is None or stored.size != size:
        return None
    filename = f"benchmax-{name}" if name != MANIFEST_NAME else "benchmax-manifest.json"
    return StoredObject(key, size, sha256, content_type, f'attachment; filename="{filename}"')
