"""Every header the service sends, decided by the server and never by the uploaded bytes."""

from __future__ import annotations

import re
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.file_types import KINDS, kind_suffixes, media_suffixes
from benchmax.models import EvidenceKind
from benchmax.windows_names import defuse_device_name

IMAGE_TYPES = media_suffixes("image")
VIDEO_TYPES = media_suffixes("video")
TEXT_TYPE = "text/plain; charset=utf-8"
OPAQUE_TYPE = "application/octet-stream"

# A name keeps its extension only if it is one the verified kind can have (the scanner's
# table of accepted types decides both these and the content types above).
_KIND_SUFFIXES: dict[EvidenceKind, frozenset[str]] = {
    EvidenceKind(kind): kind_suffixes(kind) for kind in KINDS
}
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_MAX_STEM = 80

# Browsers send these headers' values as-is; keep them constant across every response.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
)


def security_headers(app_origin: str) -> list[tuple[bytes, bytes]]:
    """Headers for every response, refusals included.

    ``sandbox`` gives any document rendered from here an opaque origin with no scripts, and
    ``frame-ancestors`` lets only the app embed it.
    """
    values = {
        "x-content-type-options": "nosniff",
        "content-security-policy": f"default-src 'none'; sandbox; frame-ancestors {app_origin}",
        "cross-origin-resource-policy": "cross-origin",
        "referrer-policy": "no-referrer",
        "permissions-policy": PERMISSIONS_POLICY,
    }
    return [(name.encode(), value.encode("latin-1")) for name, value in values.items()]


def served_content_type(kind: EvidenceKind, stored_type: str) -> str:
    """The type the verified kind allows; anything a browser might render actively is opaque."""
    stored = stored_type.split(";", 1)[0].strip().lower()
    if kind == EvidenceKind.IMAGE and stored in IMAGE_TYPES:
        return stored
    if kind == EvidenceKind.VIDEO and stored in VIDEO_TYPES:
        return stored
    if kind == EvidenceKind.TEXT:
        return TEXT_TYPE
    return OPAQUE_TYPE


def download_name(kind: EvidenceKind, served_type: str, safe_name: str, evidence_id: str) -> str:
    """An ASCII filename whose extension matches what was served, so no quoting is needed,
    and that no system saves as something else (no device name such as ``CON.txt``)."""
    suffix = ""
    if "." in safe_name:
        suffix = "." + safe_name.rsplit(".", 1)[1].lower()
    opaque_media = served_type == OPAQUE_TYPE and kind in (EvidenceKind.IMAGE, EvidenceKind.VIDEO)
    if not opaque_media and suffix in _KIND_SUFFIXES[kind]:
        stem = safe_name[: -len(suffix)]
    else:
        stem = safe_name
        suffix = _default_suffix(kind, served_type)
    stem = _UNSAFE_NAME_CHARS.sub("_", stem).strip("_")[:_MAX_STEM]
    return defuse_device_name((stem or f"evidence-{evidence_id}") + suffix)


def _default_suffix(kind: EvidenceKind, served_type: str) -> str:
    if served_type in IMAGE_TYPES:
        return IMAGE_TYPES[served_type]
    if served_type in VIDEO_TYPES:
        return VIDEO_TYPES[served_type]
    return {EvidenceKind.TEXT: ".txt", EvidenceKind.SOURCE: ".zip"}.get(kind, ".bin")


def content_disposition(served_type: str, filename: str) -> str:
    """Inline only for media a browser displays passively; everything else downloads."""
    disposition = (
        "inline" if served_type in IMAGE_TYPES or served_type in VIDEO_TYPES else "attachment"
    )
    return f'{disposition}; filename="{filename}"'


class SecurityHeadersMiddleware:
    """Adds the security headers to every response and drops any ``Set-Cookie``.

    It wraps the whole application, so even responses Starlette builds itself (unknown paths,
    wrong methods, errors) carry them, and no future code path can set a cookie here.
    """

    def __init__(self, app: ASGIApp, app_origin: str) -> None:
        self.app = app
        self.headers = security_headers(app_origin)
        self._names = {name for name, _ in self.headers} | {b"set-cookie"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*self._kept(message.get("headers", [])), *self.headers]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _kept(self, headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        return [(name, value) for name, value in headers if name.lower() not in self._names]
