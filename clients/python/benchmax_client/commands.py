"""What each ``benchmax-client`` command does, given the client and its parsed arguments.

Each returns its ``ExitCode``; a failure is raised as a ``BenchmaxError`` and reported once, by
``cli.main``.
"""

from __future__ import annotations

import argparse
import getpass
import os
from pathlib import Path
from typing import Any, TextIO

from benchmax_client import config
from benchmax_client.client import Client, Status
from benchmax_client.errors import ConfigError
from benchmax_client.exit_codes import ExitCode
from benchmax_client.output import Output
from benchmax_client.progress import UploadProgress
from benchmax_client.submission import Submission
from benchmax_client.text_input import read_text


def _prompt(args: argparse.Namespace, client: Client, stdin: TextIO) -> str:
    if args.same_prompt_as:
        return str(client.test(args.same_prompt_as)["prompt"])
    if args.prompt_file:
        return read_text(args.prompt_file, "prompt", stdin)
    if not stdin.isatty():
        return read_text("-", "prompt", stdin)
    raise ConfigError(
        "No prompt: give --prompt-file PATH, pipe it on stdin, or reuse one with --same-prompt-as."
    )


def _submission(args: argparse.Namespace, client: Client, stdin: TextIO) -> Submission:
    if args.prompt_file == "-" and args.output_file == "-":
        raise ConfigError("Only one of --prompt-file and --output-file can be - (stdin).")
    files = [Path(name) for name in args.file]
    if args.source:
        files.append(Path(args.source))
    return Submission(
        prompt=_prompt(args, client, stdin),
        model=args.model,
        harness=args.harness,
        reasoning=args.reasoning,
        output=read_text(args.output_file, "output", stdin) if args.output_file else None,
        model_version=args.model_version,
        title=args.title,
        settings=read_text(args.settings_file, "settings", stdin) if args.settings_file else None,
        attempts=args.attempts,
        notes=args.notes,
        source_visibility=args.source_visibility,
        files=tuple(files),
    )


def _status_lines(status: Status) -> list[str]:
    lines = [f"{status.plain_status}: {status.reason}" if status.reason else status.plain_status]
    if status.public_url:
        lines.append(f"Public at {status.public_url}")
    problems = [item for item in status.files if item.get("state") == "blocked"]
    if status.state == "needs_attention" or problems:
        lines.append("What to fix:")
        lines.extend(f"  - {item.get('name')}: {item.get('reason')}" for item in problems)
        lines.append(
            "  Change what it names and submit again (a changed submission is a new Test), "
            "or fix the Test on /me."
        )
    return lines


def _settled_exit(status: Status) -> ExitCode:
    if status.is_public:
        return ExitCode.OK
    return ExitCode.PENDING if not status.settled else ExitCode.NEEDS_ATTENTION


def _follow(client: Client, test_id: str, args: argparse.Namespace, out: Output) -> ExitCode:
    def changed(status: Status) -> None:
        if not status.settled:  # the settled status is the result, printed below
            out.note(f"{status.plain_status}…")

    status = client.follow(test_id, timeout=args.timeout, on_change=changed)
    out.result(status.to_json(), lambda: _status_lines(status))
    return _settled_exit(status)


def cmd_submit(client: Client, args: argparse.Namespace, out: Output, stdin: TextIO) -> ExitCode:
    submission = _submission(args, client, stdin)
    progress = UploadProgress(out.stderr)
    progress.enabled = progress.enabled and not out.as_json
    try:
        accepted = client.submit(
            submission, idempotency_key=args.idempotency_key, progress=progress
        )
    finally:
        progress.finish()
    out.note(f"Submitted Test {accepted.id}")
    if args.no_wait:
        body = {"id": accepted.id, "state": accepted.status, "status_url": accepted.status_url}
        out.result(body, lambda: [f"{accepted.id} {accepted.status}"])
        return ExitCode.OK
    return _follow(client, accepted.id, args, out)


def cmd_status(client: Client, args: argparse.Namespace, out: Output, _stdin: TextIO) -> ExitCode:
    if args.wait:
        return _follow(client, args.test_id, args, out)
    status = client.status(args.test_id)
    out.result(status.to_json(), lambda: _status_lines(status))
    return _settled_exit(status)


def _card_line(card: dict[str, Any]) -> str:
    setup = " · ".join(
        str(card.get(name) or "") for name in ("model_label", "harness_label", "reasoning_label")
    )
    return f"{card.get('id')}  {card.get('title') or '(untitled)'}  [{setup}]"


def cmd_search(client: Client, args: argparse.Namespace, out: Output, _stdin: TextIO) -> ExitCode:
    filters = {
        name: value
        for name in ("model", "family", "harness", "reasoning", "contributor", "status", "sort")
        if (value := getattr(args, name))
    }
    page = client.search(args.query, limit=args.limit, cursor=args.cursor, **filters)

    def lines() -> list[str]:
        items = [_card_line(card) for card in page.get("items", [])]
        if not items:
            return ["No public Test matches."]
        if page.get("next_cursor"):
            items.append(f"More: --cursor {page['next_cursor']}")
        return items

    out.result(page, lines)
    return ExitCode.OK


def cmd_show(client: Client, args: argparse.Namespace, out: Output, _stdin: TextIO) -> ExitCode:
    test = client.test(args.test_id)

    def lines() -> list[str]:
        setup = " · ".join(
            str(test.get(name) or "")
            for name in ("model_label", "model_version_label", "harness_label", "reasoning_label")
            if test.get(name)
        )
        return [
            f"{test.get('title') or '(untitled)'} — by @{test.get('contributor_handle')}",
            client.page_url(f"/tests/{test.get('id')}"),
            f"Setup: {setup}",
            f"Group: {client.page_url(str(test.get('group_url')))}",
            "",
            "Prompt:",
            str(test.get("prompt") or ""),
            "",
            "Output:",
            str(test.get("output_text") or "(none: see the evidence)"),
            *(
                f"Evidence: {item.get('safe_name')} {item.get('url')}"
                for item in test.get("evidence") or []
            ),
        ]

    out.result(test, lines)
    return ExitCode.OK


def cmd_group(client: Client, args: argparse.Namespace, out: Output, _stdin: TextIO) -> ExitCode:
    key = args.key or str(client.test(args.test)["prompt_key"])
    group = client.group(key)

    def lines() -> list[str]:
        members = group.get("members", [])
        head = [f"{len(members)} public Tests of this prompt ({key}):"]
        return head + [
            f"  {_card_line(member['test'])}  score {member.get('score') or '—'}"
            for member in members
        ]

    out.result(group, lines)
    return ExitCode.OK


def cmd_leaderboard(
    client: Client, args: argparse.Namespace, out: Output, _stdin: TextIO
) -> ExitCode:
    filters = {
        name: value
        for name in ("model", "family", "harness", "reasoning")
        if (value := getattr(args, name))
    }
    if args.single:
        filters["single"] = "1"
    board = client.leaderboard(args.snapshot, limit=args.limit, cursor=args.cursor, **filters)

    def lines() -> list[str]:
        rows = [
            f"{row['rank']:>3}. {row['score']:>6}  "
            + (_card_line(row["test"]) if row["test"] else "(removed)")
            for row in board.get("items", [])
        ]
        return rows or ["No snapshot yet: the showcase has not been published."]

    out.result(board, lines)
    return ExitCode.OK


def cmd_config(_client: Client, args: argparse.Namespace, out: Output, _stdin: TextIO) -> ExitCode:
    settings = config.load_settings(args.url)
    source = (
        "BENCHMAX_TOKEN"
        if os.environ.get(config.TOKEN_ENV)
        else ("config file" if settings.token else "none")
    )
    body = {"config_file": str(config.config_path()), "url": settings.url, "token": source}
    out.result(body, lambda: [f"{name}: {value}" for name, value in body.items()])
    return ExitCode.OK


def cmd_login(_client: Client, args: argparse.Namespace, out: Output, stdin: TextIO) -> ExitCode:
    """Store a token without it ever being an argument: typed at a hidden prompt, or piped."""
    if stdin.isatty():
        token = getpass.getpass("API token (bmx_..., from /me): ")
    else:
        token = stdin.readline()
    token = token.strip()
    if not token:
        raise ConfigError("No token given.")
    url = config.load_settings(args.url).url
    path = config.save_settings(url, token)
    out.result({"config_file": str(path), "url": url}, lambda: [f"Saved to {path} (mode 600)."])
    return ExitCode.OK


def cmd_mcp(_client: Client, args: argparse.Namespace, _out: Output, _stdin: TextIO) -> ExitCode:
    try:
        from benchmax_client.mcp_server import serve
    except ImportError:
        raise ConfigError(
            "The MCP server needs the mcp extra: pip install 'benchmax-client[mcp]'."
        ) from None
    serve(config.load_settings(args.url))
    return ExitCode.OK
