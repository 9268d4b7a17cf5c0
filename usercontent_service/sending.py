"""Streaming one stored object that the caller has authorised: ETag and revalidation, byte
ranges, HEAD. Evidence and export files both go out through ``send_object``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from benchmax.adapters.storage import ObjectStorage
from usercontent_service.ranges import RangeNotSatisfiableError, etag_matches, parse_range

# Revalidated on every use: a removal takes effect on the very next request, and an
# unchanged file costs a 304.
SERVED_CACHE_CONTROL = "public, no-cache"
# Large enough to keep per-chunk overhead small, small enough to bound memory per download.
STREAM_CHUNK_SIZE = 512 * 1024


@dataclass(frozen=True)
class StoredObject:
    """An object the caller has decided may be served, and how it is presented."""

    key: str
    size: int
    sha256: str
    content_type: str
    disposition: str


async def send_object(request: Request, storage: ObjectStorage, stored: StoredObject) -> Response:
    """Stream ``stored`` with its ETag, revalidation, byte ranges and HEAD."""
    headers = {
        "ETag": f'"{stored.sha256}"',
        "Cache-Control": SERVED_CACHE_CONTROL,
        "Accept-Ranges": "bytes",
    }
    if etag_matches(request.headers.get("if-none-match"), headers["ETag"]):
        return Response(status_code=304, headers=headers)
    headers["Content-Type"] = stored.content_type
    headers["Content-Disposition"] = stored.disposition

    if_range = request.headers.get("if-range")
    range_header = request.headers.get("range") if if_range in (None, headers["ETag"]) else None
    try:
        byte_range = parse_range(range_header, stored.size)
    except RangeNotSatisfiableError:
        headers["Content-Range"] = f"bytes */{stored.size}"
        return Response(status_code=416, headers=headers)

    status = 200
    start, end = 0, stored.size - 1
    if byte_range is not None:
        status = 206
        start, end = byte_range
        headers["Content-Range"] = f"bytes {start}-{end}/{stored.size}"
    headers["Content-Length"] = str(end - start + 1)
    if request.method == "HEAD":
        return Response(status_code=status, headers=headers)

    def open_chunks() -> Iterator[bytes]:
        return storage.get(
            stored.key,
            start=start if byte_range else None,
            end=end if byte_range else None,
            chunk_size=STREAM_CHUNK_SIZE,
        )

    if end - start < STREAM_CHUNK_SIZE:
        # One chunk at most: open and read it in one thread hop instead of streaming it
        # through several, which is most of the cost of a small file.
        body = await run_in_threadpool(lambda: b"".join(open_chunks()))
        return Response(body, status_code=status, headers=headers)
    chunks = await run_in_threadpool(open_chunks)
    return StreamingResponse(chunks, status_code=status, headers=headers)
