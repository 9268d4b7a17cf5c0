"""Pure HTTP decisions of the user-content service: ranges, ETags, types, names, headers."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from benchmax.models import EvidenceKind
from usercontent_service.headers import (
    SecurityHeadersMiddleware,
    content_disposition,
    download_name,
    security_headers,
    served_content_type,
)
from usercontent_service.ranges import RangeNotSatisfiableError, etag_matches, parse_range


@pytest.mark.parametrize(
    ("header", "size", "expected"),
    [
        (None, 10, None),
        ("", 10, None),
        ("bytes=0-4", 10, (0, 4)),
        ("BYTES = 2 - 3", 10, (2, 3)),
        ("bytes=4-", 10, (4, 9)),
        ("bytes=-4", 10, (6, 9)),
        ("bytes=-40", 10, (0, 9)),
        ("bytes=9-9", 10, (9, 9)),
        ("bytes=5-500", 10, (5, 9)),
        ("lines=0-4", 10, None),
        ("bytes=0-1, 5-6", 10, None),
    ],
)
def test_parse_range(header: str | None, size: int, expected: tuple[int, int] | None) -> None:
    assert parse_range(header, size) == expected


@pytest.mark.parametrize(
    ("header", "size"),
    [
        ("bytes=10-", 10),
        ("bytes=3-2", 10),
        ("bytes=-0", 10),
        ("bytes=-", 10),
        ("bytes=a-b", 10),
        ("bytes=0-0", 0),
        ("bytes=" + "9" * 30 + "-", 10),
        ("bytes=1-2-3", 10),
    ],
)
def test_unsatisfiable_ranges(header: str, size: int) -> None:
    with pytest.raises(RangeNotSatisfiableError):
        parse_range(header, size)


@pytest.mark.parametrize(
    ("header", "matches"),
    [
        (None, False),
        ('"abc"', True),
        ('W/"abc"', True),
        ('"x", "abc"', True),
        ("*", True),
        ('"abcd"', False),
        ("abc", False),
    ],
)
def test_etag_matches(header: str | None, matches: bool) -> None:
    assert etag_matches(header, '"abc"') is matches


@pytest.mark.parametrize(
    ("kind", "stored", "served"),
    [
        (EvidenceKind.IMAGE, "image/png", "image/png"),
        (EvidenceKind.IMAGE, "IMAGE/JPEG; foo=bar", "image/jpeg"),
        (EvidenceKind.IMAGE, "image/webp", "image/webp"),
        (EvidenceKind.IMAGE, "image/gif", "image/gif"),
        (EvidenceKind.IMAGE, "image/svg+xml", "application/octet-stream"),
        (EvidenceKind.IMAGE, "text/html", "application/octet-stream"),
        (EvidenceKind.VIDEO, "video/mp4", "video/mp4"),
        (EvidenceKind.VIDEO, "video/webm", "video/webm"),
        (EvidenceKind.VIDEO, "image/png", "application/octet-stream"),
        (EvidenceKind.TEXT, "text/html", "text/plain; charset=utf-8"),
        (EvidenceKind.TEXT, "image/png", "text/plain; charset=utf-8"),
        (EvidenceKind.SOURCE, "application/zip", "application/octet-stream"),
        (EvidenceKind.SOURCE, "image/png", "application/octet-stream"),
    ],
)
def test_served_content_type(kind: EvidenceKind, stored: str, served: str) -> None:
    assert served_content_type(kind, stored) == served


@pytest.mark.parametrize(
    ("kind", "served", "safe_name", "expected"),
    [
        (EvidenceKind.IMAGE, "image/png", "Screen Shot 1.PNG", "Screen_Shot_1.png"),
        (EvidenceKind.IMAGE, "image/jpeg", "photo", "photo.jpg"),
        (EvidenceKind.IMAGE, "application/octet-stream", "x.png", "x_png.bin"),
        (EvidenceKind.TEXT, "text/plain; charset=utf-8", "notes.md", "notes.md"),
        (EvidenceKind.TEXT, "text/plain; charset=utf-8", "index.html", "index_html.txt"),
        (EvidenceKind.TEXT, "text/plain; charset=utf-8", 'a"b;c\r\n.txt', "a_b_c.txt"),
        (EvidenceKind.TEXT, "text/plain; charset=utf-8", "名前.txt", "evidence-abc.txt"),
        (EvidenceKind.TEXT, "text/plain; charset=utf-8", "", "evidence-abc.txt"),
        (EvidenceKind.SOURCE, "application/octet-stream", "site.zip", "site.zip"),
        (EvidenceKind.SOURCE, "application/octet-stream", "site.tar.gz", "site_tar_gz.zip"),
        (EvidenceKind.VIDEO, "video/webm", "../../etc/passwd", "etc_passwd.webm"),
    ],
)
def test_download_name(kind: EvidenceKind, served: str, safe_name: str, expected: str) -> None:
    assert download_name(kind, served, safe_name, "abc") == expected


def test_download_name_is_bounded() -> None:
    name = download_name(EvidenceKind.TEXT, "text/plain; charset=utf-8", "a" * 500 + ".txt", "x")

    assert name == "a" * 80 + ".txt"


@pytest.mark.parametrize(
    ("served", "disposition"),
    [
        ("image/png", "inline"),
        ("video/mp4", "inline"),
        ("text/plain; charset=utf-8", "attachment"),
        ("application/octet-stream", "attachment"),
    ],
)
def test_content_disposition(served: str, disposition: str) -> None:
    assert content_disposition(served, "f.bin") == f'{disposition}; filename="f.bin"'


def test_csp_sandboxes_and_limits_framing_to_the_app() -> None:
    headers = dict(security_headers("https://benchmax.example"))

    assert headers[b"content-security-policy"] == (
        b"default-src 'none'; sandbox; frame-ancestors https://benchmax.example"
    )
    assert b"camera=()" in headers[b"permissions-policy"]


def test_middleware_drops_cookies_and_overrides_weaker_headers() -> None:
    async def careless(_request: Request) -> Response:
        response = Response("hi", headers={"X-Content-Type-Options": "sniff-away"})
        response.set_cookie("tracking", "1")
        return response

    app = SecurityHeadersMiddleware(
        Starlette(routes=[Route("/", careless)]), "http://localhost:3000"
    )
    with TestClient(app) as client:
        response = client.get("/")

    assert response.text == "hi"
    assert "set-cookie" not in response.headers
    assert response.headers.get_list("x-content-type-options") == ["nosniff"]
    assert response.headers["referrer-policy"] == "no-referrer"
