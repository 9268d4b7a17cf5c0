"""Bytes the app writes itself, in one piece: sample evidence and preview artifacts.

Every row that points at stored bytes records the key, the type and the size and SHA-256 of
exactly what was written, so the two are computed here, from the bytes that were stored.
"""

from __future__ import annotations

import hashlib
from typing import Any

from benchmax.adapters.storage import ObjectStorage


def put_bytes(storage: ObjectStorage, key: str, data: bytes, content_type: str) -> dict[str, Any]:
    """Store ``data`` at ``key``; the columns (``storage_key``, ``content_type``,
    ``size_bytes``, ``sha256``) of the row that records it."""
    storage.put(key, [data], content_type=content_type)
    return {
        "storage_key": key,
        "content_type": content_type,
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
