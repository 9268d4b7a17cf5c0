"""The key that signs snapshot seals, so a seal cannot be recomputed by whoever writes the DB.

The private key is an Ed25519 seed held in Settings (``BENCHMAX_LEADERBOARD_SIGNING_KEY``, 32
bytes as 64 hex digits), never in the database or its backups. In production a snapshot is
refused without one. In development and tests, when none is set, one is generated once into
``<data dir>/keys/leaderboard-signing.key`` (like the local sign-in key), so snapshots are
signed everywhere and the code path is the same.

What is signed is the seal's hex digest as ASCII; the seal already covers the policy, the rows
and the previous snapshot's seal. A key's fingerprint is the SHA-256 of its raw 32-byte public
key, in hex. Rotation is a statement ``benchmax-leaderboard-key-rotation:v1:<old fingerprint>:
<new public key hex>`` signed by the old key; the first snapshot signed by the new key carries
it, and ``verify`` accepts the change of key only with it.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from benchmax.services.errors import Conflict, Invalid
from benchmax.settings import Settings

ROTATION_PREFIX = "benchmax-leaderboard-key-rotation:v1"
SIGNATURE_ID = "ed25519-over-seal-hex-v1"


class SigningKeyMissing(Conflict):
    """Production publishes no snapshot it cannot sign."""


class InvalidSigningKey(Invalid):
    """A configured key or rotation statement that does not parse."""


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _private_from_hex(text: str, name: str) -> Ed25519PrivateKey:
    try:
        seed = bytes.fromhex(text.strip())
        if len(seed) != 32:
            raise ValueError
        return Ed25519PrivateKey.from_private_bytes(seed)
    except ValueError:
        raise InvalidSigningKey(
            "invalid_signing_key", f"{name} must be 64 hex digits (an Ed25519 seed)."
        ) from None


def public_from_hex(text: str) -> Ed25519PublicKey:
    try:
        return Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
    except ValueError:
        raise InvalidSigningKey(
            "invalid_public_key", "A public key is 64 hex digits (raw Ed25519)."
        ) from None


def fingerprint(public_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()


@dataclass(frozen=True)
class SigningKey:
    private: Ed25519PrivateKey
    # The previous key's hand-over to this one, when it replaced another (may be "").
    rotation: str = ""

    @property
    def public_hex(self) -> str:
        return _raw_public(self.private.public_key()).hex()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_hex)

    def sign(self, message: str) -> str:
        return self.private.sign(message.encode("ascii")).hex()


def new_key_pair() -> tuple[str, str]:
    """A fresh ``(private seed hex, public key hex)``, for ``benchmax leaderboard keygen``."""
    key = SigningKey(Ed25519PrivateKey.generate())
    seed = key.private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return seed.hex(), key.public_hex


def _local_key(path: Path) -> Ed25519PrivateKey:
    """Read the development key, or create it atomically (the loser of a race adopts it)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(new_key_pair()[0])
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    return _private_from_hex(path.read_text(), str(path))


def signing_key(settings: Settings) -> SigningKey:
    """The configured key; in development a generated local one; in production a refusal."""
    configured = settings.leaderboard_signing_key
    if configured is not None and configured.get_secret_value().strip():
        return SigningKey(
            _private_from_hex(configured.get_secret_value(), "BENCHMAX_LEADERBOARD_SIGNING_KEY"),
            settings.leaderboard_key_rotation.strip(),
        )
    if settings.is_production:
        raise SigningKeyMissing(
            "signing_key_missing",
            "Set BENCHMAX_LEADERBOARD_SIGNING_KEY (benchmax leaderboard keygen prints one) "
            "before publishing snapshots in production.",
        )
    return SigningKey(_local_key(settings.data_dir / "keys" / "leaderboard-signing.key"))


@dataclass(frozen=True)
class PublishedKey:
    """What a reader needs to check a snapshot's signature; never the private half."""

    public_hex: str
    fingerprint: str
    rotation: str


def published_key(settings: Settings) -> PublishedKey | None:
    """The public half of the configured key, or None where none is configured yet (a
    production site that has not published a signed snapshot)."""
    try:
        key = signing_key(settings)
    except SigningKeyMissing:
        return None
    return PublishedKey(key.public_hex, key.fingerprint, key.rotation)


def signature_ok(public_hex: str, message: str, signature_hex: str) -> bool:
    try:
        public_from_hex(public_hex).verify(bytes.fromhex(signature_hex), message.encode("ascii"))
    except (InvalidSignature, InvalidSigningKey, ValueError):
        return False
    return True


def rotation_message(old_public_hex: str, new_public_hex: str) -> str:
    return f"{ROTATION_PREFIX}:{fingerprint(old_public_hex)}:{new_public_hex}"


def rotation_statement(old: SigningKey, new_public_hex: str) -> str:
    """``<old public hex>:<new public hex>:<signature hex>``, for the new key's settings."""
    public_from_hex(new_public_hex)
    signature = old.sign(rotation_message(old.public_hex, new_public_hex))
    return f"{old.public_hex}:{new_public_hex}:{signature}"


def rotation_ok(statement: str, old_public_hex: str, new_public_hex: str) -> bool:
    """Whether ``statement`` is the old key handing over to the new one."""
    parts = statement.split(":")
    if len(parts) != 3 or parts[0] != old_public_hex or parts[1] != new_public_hex:
        return False
    return signature_ok(old_public_hex, rotation_message(old_public_hex, new_public_hex), parts[2])


def private_key_from_hex(text: str) -> SigningKey:
    return SigningKey(_private_from_hex(text, "the old key"))
