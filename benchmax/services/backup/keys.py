"""The local sign-in key in a backup: what the embedded default needs to recognise its users.

With local sign-in (``BENCHMAX_AUTH_BACKEND=local``) every session token is signed by the
key under ``<data>/keys/``; a restore without it would mint a new key, and every signed-in
owner would be told "only owners" instead of being recognised. So a backup stores the key
beside its snapshot, under ``private/backups/`` (never served), and pins its SHA-256 in the
manifest. It is stored as is, not encrypted: whoever can read the backups can sign tokens,
which is why the CLI says so at every backup and the runbook tells owners to keep backups as
private as the key itself. Clerk sign-in keeps no key here, and the backup carries none.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from benchmax.adapters.storage import ObjectNotFoundError, ObjectStorage
from benchmax.settings import Settings

SIGNING_KEY_NAME = "local-issuer.pem"


def signing_key_of(settings: Settings) -> Path | None:
    """The local sign-in key a backup must carry; None with Clerk, which keeps no key here."""
    return settings.resolved_key_path if settings.auth_backend == "local" else None


def store_signing_key(storage: ObjectStorage, prefix: str, path: Path | None) -> str:
    """Copy the key at ``path`` into the backup folder; its SHA-256, or "" if there is none."""
    if path is None or not path.is_file():
        return ""
    data = path.read_bytes()
    storage.put(prefix + SIGNING_KEY_NAME, [data], content_type="application/x-pem-file")
    return hashlib.sha256(data).hexdigest()


def read_signing_key(storage: ObjectStorage, prefix: str, sha256: str) -> bytes | None:
    """The key a backup holds, if its bytes still match the manifest; None otherwise."""
    try:
        data = b"".join(storage.get(prefix + SIGNING_KEY_NAME))
    except ObjectNotFoundError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha256 else None


def write_signing_key(path: Path, data: bytes) -> None:
    """Put the key where the restored system looks for it, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
