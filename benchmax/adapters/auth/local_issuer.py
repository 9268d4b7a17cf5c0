"""The embedded default's sign-in: RS256 session tokens shaped like Clerk's.

The tokens carry exactly the claims a Clerk v2 session token carries, so the verifier that
checks them is the one production uses against Clerk. The private key lives in a file under the
data directory (created on first use with owner-only permissions) so every process on the
machine — web, workers, CLI — verifies the same tokens. It is development machinery only:
constructing it with production settings raises, whatever else the settings say.

Local subjects are ``local|<handle>``. Clerk user ids (``user_...``) never contain ``|``, so
the two namespaces cannot collide and an operator can tell a local account at a glance.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from benchmax.settings import Settings

LOCAL_SUBJECT_PREFIX = "local|"
_KEY_BITS = 2048


class LocalIssuerRefusedError(RuntimeError):
    """The local issuer was asked to run with production settings."""


def local_subject(handle: str) -> str:
    """The auth subject of the local account with this handle."""
    return f"{LOCAL_SUBJECT_PREFIX}{handle}"


def _load_or_create_key(path: Path) -> rsa.RSAPrivateKey:
    """Read the key, or create it atomically so concurrent processes agree on one key.

    The new key is written to a private temporary file and hard-linked into place: a reader
    never sees a half-written file, and when two processes race the loser adopts the winner's.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = rsa.generate_private_key(public_exponent=65537, key_size=_KEY_BITS)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(pem)
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    stat = path.stat()
    return _read_key(path, (stat.st_ino, stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=16)
def _read_key(path: Path, identity: tuple[int, int, int]) -> rsa.RSAPrivateKey:
    """The key in ``path``, parsed once per version of the file.

    Parsing validates the RSA key, which takes tens of milliseconds, and every sign-in builds
    an issuer. ``identity`` (inode, modification time, size) changes when the file is replaced,
    so a new key is read as soon as it is there.
    """
    del identity  # part of the cache key only
    loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(loaded, rsa.RSAPrivateKey):
        raise ValueError(f"{path} does not hold an RSA private key")
    return loaded


class LocalIssuer:
    """Mints session tokens for the embedded default; refuses to exist in production.

    The one exception is the local production stack (``BENCHMAX_STACK_LOCAL=1`` with loopback
    origins), where Clerk — on the public internet — cannot be reached.
    """

    def __init__(self, settings: Settings) -> None:
        if settings.is_production and not settings.stack_relaxes():
            raise LocalIssuerRefusedError(
                "the local issuer is for development only; production signs in with Clerk"
            )
        self._key = _load_or_create_key(settings.resolved_key_path)
        self._origin = settings.app_origin
        self._ttl_seconds = settings.session_ttl_seconds
        public_der = self._key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        # Clerk's kid names the signing key; ours is derived from the key so it changes with it.
        self.kid = "ins_local_" + hashlib.sha256(public_der).hexdigest()[:24]
        self.issuer = f"{self._origin}/local-issuer"

    @property
    def public_pem(self) -> str:
        return (
            self._key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode("ascii")
        )

    def mint(
        self, subject: str, *, ttl_seconds: int | None = None, now: datetime | None = None
    ) -> str:
        """A signed session token for ``subject``, valid from ``now`` for ``ttl_seconds``."""
        if not subject.strip():
            raise ValueError("a session token needs a subject")
        issued = int((now or datetime.now(UTC)).timestamp())
        lifetime = self._ttl_seconds if ttl_seconds is None else ttl_seconds
        claims = {
            "sub": subject,
            "sid": "sess_" + secrets.token_urlsafe(18),
            "iss": self.issuer,
            "azp": self._origin,
            "iat": issued,
            "nbf": issued,
            "exp": issued + lifetime,
            "v": 2,
        }
        return jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid})
