"""``/api/v1/leaderboard/...`` and ``/api/v1/prompts/...``: the showcase and comparison groups.

Reads are public. Snapshot downloads are streamed files named by snapshot id; asking an owner
to publish a snapshot and recording a prompt alias are the only writes, authorised by role in
the services like every other action.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from sqlmodel import Session
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from benchmax.api.actions import endpoint
from benchmax.api.http_cache import (
    IMMUTABLE,
    PUBLIC_ITEM,
    Freshness,
    Rendered,
    cached_read,
    json_body,
    next_link,
    revalidate,
)
from benchmax.api.openapi.showcase_schemas import PublicKey, SnapshotRequested, Verification
from benchmax.context import AppContext
from benchmax.models import User
from benchmax.models._base import as_utc
from benchmax.services.errors import Invalid, NotFound
from benchmax.services.leaderboard import board, exports, jobs, signing, snapshots
from benchmax.services.prompts import groups

Params = dict[str, Any]


def _page(ctx: AppContext, request: Request, snapshot_id: str | None) -> Rendered:
    params = request.query_params
    raw_limit = params.get("limit", "20")
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= board.MAX_PAGE_SIZE:
        raise Invalid("invalid_limit", "limit must be between 1 and 100", "limit")
    with ctx.session() as session:
        page = board.board_page(
            session,
            snapshot_id,
            board.BoardFilters.from_query(dict(params)),
            params.get("cursor") or None,
            int(raw_limit),
        )
    return json_body(page.to_json(), next_link(ctx, request, page.next_cursor))


async def current_board(ctx: AppContext, request: Request) -> Response:
    return await cached_read(ctx, request, functools.partial(_page, ctx, request, None))


async def snapshot_board(ctx: AppContext, request: Request) -> Response:
    snapshot_id = request.path_params["snapshot_id"]
    return await cached_read(
        ctx, request, functools.partial(_page, ctx, request, snapshot_id), public=PUBLIC_ITEM
    )


def _list(ctx: AppContext) -> Rendered:
    with ctx.session() as session:
        items = [item.to_json() for item in snapshots.list_snapshots(session)]
    return json_body({"items": items})


async def list_snapshots(ctx: AppContext, request: Request) -> Response:
    return await cached_read(ctx, request, functools.partial(_list, ctx))


def _verify(ctx: AppContext, snapshot_id: str) -> Rendered:
    trusted = signing.signing_key(ctx.settings).public_hex
    with ctx.session() as session:
        result = snapshots.verify_snapshot(session, snapshot_id, trusted)
    # Built through the type the document publishes, so the two cannot differ.
    checked = Verification(
        snapshot_id=result.snapshot_id,
        ok=result.ok,
        stored_sha256=result.stored_sha256,
        computed_sha256=result.computed_sha256,
        rows_ok=result.rows_ok,
        signed=result.signed,
        signature_ok=result.signature_ok,
        chain_broken_at=result.chain_broken_at,
    )
    return json_body(checked.model_dump(mode="json"))


async def verify(ctx: AppContext, request: Request) -> Response:
    snapshot_id = request.path_params["snapshot_id"]
    return await cached_read(
        ctx, request, functools.partial(_verify, ctx, snapshot_id), public=PUBLIC_ITEM
    )


def _public_key(ctx: AppContext) -> Rendered:
    key = signing.signing_key(ctx.settings)
    published = PublicKey(
        algorithm="Ed25519",
        public_key=key.public_hex,
        fingerprint=key.fingerprint,
        signed_message="the snapshot's sha256, as its 64 ASCII hex digits",
        key_rotation=key.rotation,
    )
    return json_body(published.model_dump(mode="json"))


async def public_key(ctx: AppContext, request: Request) -> Response:
    return await cached_read(ctx, request, functools.partial(_public_key, ctx), public=PUBLIC_ITEM)


def _stream(
    ctx: AppContext, chunks: Callable[[Session, str], Iterator[str]], snapshot_id: str
) -> Iterator[bytes]:
    with ctx.session() as session:
        for chunk in chunks(session, snapshot_id):
            yield chunk.encode("utf-8")


def _download(ctx: AppContext, kind: str) -> Callable[[Request], Any]:
    chunks = exports.json_chunks if kind == "json" else exports.csv_chunks
    media = "application/json" if kind == "json" else "text/csv; charset=utf-8"

    async def handle(request: Request) -> Response:
        snapshot_id = request.path_params["snapshot_id"]

        def sealed(session: Session) -> Freshness:
            # Before the stream starts: once it has, a refusal can no longer change the status.
            # A published snapshot never changes, so its seal is its validator.
            snapshot = snapshots.published_snapshot(session, snapshot_id)
            published = as_utc(snapshot.published_at or snapshot.created_at)
            return Freshness(extra=snapshot.sha256, last_modified=published, sealed=True)

        not_modified, headers, _etag = await revalidate(ctx, request, IMMUTABLE, sealed)
        if not_modified is not None:
            return not_modified
        return StreamingResponse(
            _stream(ctx, chunks, snapshot_id),
            media_type=media,
            headers={
                "Content-Disposition": (
                    f'attachment; filename="benchmax-showcase-{snapshot_id}.{kind}"'
                ),
                **headers,
            },
        )

    return handle


def _request_snapshot(session: Session, user: User | None, _path: Params, _body: Params) -> Params:
    job = jobs.request_owner_snapshot(session, user)
    return SnapshotRequested(queued=job is not None, job_id=job.id if job else None).model_dump()


def _prompt_group(ctx: AppContext, key: str) -> Rendered:
    with ctx.session() as session:
        group = groups.prompt_group(session, key)
    if group is None:
        raise NotFound("not_found", "No public Test has this prompt.")
    return json_body(group.to_json())


async def prompt_group(ctx: AppContext, request: Request) -> Response:
    key = request.path_params["key"]
    return await cached_read(
        ctx, request, functools.partial(_prompt_group, ctx, key), public=PUBLIC_ITEM
    )


def _largest(ctx: AppContext) -> Rendered:
    with ctx.session() as session:
        return json_body({"items": [vars(item) for item in groups.largest_groups(session)]})


async def largest_groups(ctx: AppContext, request: Request) -> Response:
    return await cached_read(ctx, request, functools.partial(_largest, ctx))


def showcase_routes(ctx: AppContext) -> list[Route]:
    def bound(handler: Callable[..., Any]) -> Callable[[Request], Any]:
        return functools.partial(handler, ctx)

    base = "/api/v1/leaderboard"
    return [
        Route(base, bound(current_board), methods=["GET"]),
        Route(f"{base}/public-key", bound(public_key), methods=["GET"]),
        Route(f"{base}/snapshots", bound(list_snapshots), methods=["GET"]),
        Route(f"{base}/snapshots", endpoint(ctx, _request_snapshot, 202), methods=["POST"]),
        Route(f"{base}/snapshots/{{snapshot_id}}", bound(snapshot_board), methods=["GET"]),
        Route(f"{base}/snapshots/{{snapshot_id}}/verify", bound(verify), methods=["GET"]),
        Route(
            f"{base}/snapshots/{{snapshot_id}}/download.json",
            _download(ctx, "json"),
            methods=["GET"],
        ),
        Route(
            f"{base}/snapshots/{{snapshot_id}}/download.csv", _download(ctx, "csv"), methods=["GET"]
        ),
        Route("/api/v1/prompts", bound(largest_groups), methods=["GET"]),
        Route("/api/v1/prompts/{key}", bound(prompt_group), methods=["GET"]),
    ]
