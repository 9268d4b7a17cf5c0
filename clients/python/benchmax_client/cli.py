"""``benchmax-client``: submit Tests and read the feed from a shell, a CI job or a harness.

Exit codes (``ExitCode``) are part of the interface, so scripts can branch on them; ``--json``
prints one JSON object on stdout for every outcome, refusals included. Progress and notes go to
stderr, and the upload progress line only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Callable, Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO

from benchmax_client import config
from benchmax_client.client import Client, Status
from benchmax_client.errors import (
    ApiError,
    AuthError,
    BenchmaxError,
    ConfigError,
    MissingToken,
    RateLimited,
    Unreachable,
)
from benchmax_client.progress import UploadProgress
from benchmax_client.submission import Submission
from benchmax_client.text_input import read_text


class ExitCode(IntEnum):
    OK = 0  # done: for submit, the Test is public
    ERROR = 1  # an error this list does not name (a bug: please report it)
    USAGE = 2  # bad arguments, an unreadable input file or config file
    REFUSED = 3  # the server refused the request; its message says why
    NEEDS_ATTENTION = 4  # the Test exists but needs attention, failed or was removed
    PENDING = 5  # still processing when --timeout ran out; `status ID --wait` goes on
    RATE_LIMITED = 6  # Retry-After was longer than --max-wait; run again later
    AUTH = 7  # no token, or the server refused it (401/403)
    UNREACHABLE = 8  # no answer: server down, wrong URL, network, or a server error
    INTERRUPTED = 130  # Ctrl-C


class _Out:
    """Where results go: JSON for scripts or lines for people, and notes on stderr."""

    def __init__(self, as_json: bool, stdout: TextIO, stderr: TextIO) -> None:
        self.as_json = as_json
        self.stdout = stdout
        self.stderr = stderr

    def result(self, body: Any, lines: Callable[[], list[str]]) -> None:
        if self.as_json:
            self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        else:
            self.stdout.write("".join(line + "\n" for line in lines()))

    def note(self, line: str) -> None:
        if not self.as_json:
            self.stderr.write(line + "\n")
            self.stderr.flush()


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


def _follow(client: Client, test_id: str, args: argparse.Namespace, out: _Out) -> ExitCode:
    def changed(status: Status) -> None:
        if not status.settled:  # the settled status is the result, printed below
            out.note(f"{status.plain_status}…")

    status = client.follow(test_id, timeout=args.timeout, on_change=changed)
    out.result(status.to_json(), lambda: _status_lines(status))
    return _settled_exit(status)


def cmd_submit(client: Client, args: argparse.Namespace, out: _Out, stdin: TextIO) -> ExitCode:
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


def cmd_status(client: Client, args: argparse.Namespace, out: _Out, _stdin: TextIO) -> ExitCode:
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


def cmd_search(client: Client, args: argparse.Namespace, out: _Out, _stdin: TextIO) -> ExitCode:
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


def cmd_show(client: Client, args: argparse.Namespace, out: _Out, _stdin: TextIO) -> ExitCode:
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


def cmd_group(client: Client, args: argparse.Namespace, out: _Out, _stdin: TextIO) -> ExitCode:
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
    client: Client, args: argparse.Namespace, out: _Out, _stdin: TextIO
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


def cmd_config(_client: Client, args: argparse.Namespace, out: _Out, _stdin: TextIO) -> ExitCode:
    settings = config.load_settings(args.url)
    source = (
        "BENCHMAX_TOKEN"
        if os.environ.get(config.TOKEN_ENV)
        else ("config file" if settings.token else "none")
    )
    body = {"config_file": str(config.config_path()), "url": settings.url, "token": source}
    out.result(body, lambda: [f"{name}: {value}" for name, value in body.items()])
    return ExitCode.OK


def cmd_login(_client: Client, args: argparse.Namespace, out: _Out, stdin: TextIO) -> ExitCode:
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


def cmd_mcp(_client: Client, args: argparse.Namespace, _out: _Out, _stdin: TextIO) -> ExitCode:
    try:
        from benchmax_client.mcp_server import serve
    except ImportError:
        raise ConfigError(
            "The MCP server needs the mcp extra: pip install 'benchmax-client[mcp]'."
        ) from None
    serve(config.load_settings(args.url))
    return ExitCode.OK


def _add_submit(commands: _WithParent) -> None:
    submit = commands.add_parser(
        "submit",
        help="submit a Test and follow it until it is public or needs attention",
        description="Submit one Test. The prompt comes from --prompt-file, stdin, or another "
        "Test (--same-prompt-as). Running the same submission again returns the same Test.",
    )
    source = submit.add_mutually_exclusive_group()
    source.add_argument("--prompt-file", metavar="PATH", help="the prompt (- for stdin)")
    source.add_argument(
        "--same-prompt-as",
        metavar="TEST_ID",
        help="use the exact prompt of this public Test, so both land in one comparison group",
    )
    submit.add_argument("--model", required=True, help='the model as declared, e.g. "GPT-5"')
    submit.add_argument("--harness", required=True, help='what ran it, e.g. "Claude Code"')
    submit.add_argument("--reasoning", required=True, help="none, low, medium, high, max…")
    submit.add_argument("--model-version", help="a dated version or snapshot name")
    submit.add_argument("--output-file", metavar="PATH", help="the output, as text (- for stdin)")
    submit.add_argument("--title")
    submit.add_argument("--settings-file", metavar="PATH", help="settings used (temperature…)")
    submit.add_argument("--attempts", type=int, help="how many tries this result was picked from")
    submit.add_argument("--notes")
    submit.add_argument(
        "--file", action="append", default=[], metavar="PATH", help="evidence file (repeatable)"
    )
    submit.add_argument("--source", metavar="ZIP", help="the source as a ZIP (index.html at root)")
    submit.add_argument(
        "--source-visibility",
        choices=["public", "private"],
        help="public: downloadable; private: used only for the automated preview",
    )
    submit.add_argument(
        "--idempotency-key", help="your own key instead of the one derived from the content"
    )
    _add_wait(submit)
    submit.add_argument("--no-wait", action="store_true", help="return once the Test is created")
    submit.set_defaults(run=cmd_submit)


def _add_wait(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to follow the status (default 300)",
    )


def _add_filters(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    for name in names:
        parser.add_argument(f"--{name}", default="")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--cursor")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmax-client",
        description="Submit AI Tests to BenchMax and read its feed. The token comes from "
        "BENCHMAX_TOKEN or the config file (see `benchmax-client config`), never a flag.",
        epilog="Exit codes: " + ", ".join(f"{code.value} {code.name.lower()}" for code in ExitCode),
    )
    parser.add_argument(
        "--url", help="the BenchMax site (default: BENCHMAX_URL, config, localhost)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "--max-wait",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="longest total Retry-After wait before giving up (default 120)",
    )
    # --json is accepted after the command too (`submit --json`), where scripts tend to put it.
    json_after = argparse.ArgumentParser(add_help=False)
    json_after.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print one JSON object on stdout",
    )
    commands = _WithParent(parser.add_subparsers(dest="command", required=True), json_after)
    _add_submit(commands)
    status = commands.add_parser("status", help="where one of your Tests stands")
    status.add_argument("test_id")
    status.add_argument("--wait", action="store_true", help="follow it until it settles")
    _add_wait(status)
    status.set_defaults(run=cmd_status)
    search = commands.add_parser("search", help="search public Tests")
    search.add_argument("query", nargs="?", default="")
    _add_filters(
        search, ("model", "family", "harness", "reasoning", "contributor", "status", "sort")
    )
    search.set_defaults(run=cmd_search)
    show = commands.add_parser("show", help="one public Test")
    show.add_argument("test_id")
    show.set_defaults(run=cmd_show)
    group = commands.add_parser("group", help="every public Test of one prompt")
    which = group.add_mutually_exclusive_group(required=True)
    which.add_argument("key", nargs="?", help="a prompt key")
    which.add_argument("--test", metavar="TEST_ID", help="the group of this Test's prompt")
    group.set_defaults(run=cmd_group)
    board = commands.add_parser("leaderboard", help="the showcase board")
    board.add_argument("--snapshot", help="a sealed snapshot's id (default: the current one)")
    board.add_argument("--single", action="store_true", help="single-attempt results only")
    _add_filters(board, ("model", "family", "harness", "reasoning"))
    board.set_defaults(run=cmd_leaderboard)
    commands.add_parser("config", help="where settings come from").set_defaults(run=cmd_config)
    commands.add_parser("login", help="save a token to the config file").set_defaults(run=cmd_login)
    commands.add_parser("mcp", help="run the MCP server on stdio").set_defaults(run=cmd_mcp)
    return parser


class _WithParent:
    """Subparsers that all inherit ``parent``'s options."""

    def __init__(self, commands: Any, parent: argparse.ArgumentParser) -> None:
        self._commands = commands
        self._parent = parent

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._commands.add_parser(
            name, parents=[self._parent], **kwargs
        )
        return parser


def _exit_for(error: BenchmaxError) -> ExitCode:
    if isinstance(error, MissingToken | AuthError):
        return ExitCode.AUTH
    if isinstance(error, ConfigError):
        return ExitCode.USAGE
    if isinstance(error, RateLimited):
        return ExitCode.RATE_LIMITED
    if isinstance(error, Unreachable) or (isinstance(error, ApiError) and error.status >= 500):
        return ExitCode.UNREACHABLE
    if isinstance(error, ApiError):
        return ExitCode.REFUSED
    return ExitCode.ERROR


def _report(error: BenchmaxError, out: _Out) -> None:
    if out.as_json:
        body = error.to_json() if isinstance(error, ApiError) else {"message": str(error)}
        out.stdout.write(json.dumps({"error": body}, ensure_ascii=False) + "\n")
        return
    if isinstance(error, RateLimited):
        out.stderr.write(f"benchmax-client: {error.message}\n")
    elif isinstance(error, ApiError):
        where = f" (field: {error.field})" if error.field else ""
        out.stderr.write(f"benchmax-client: refused, {error.status} {error.code}{where}:\n")
        out.stderr.write(f"  {error.message}\n")
    else:
        out.stderr.write(f"benchmax-client: {error}\n")


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    args = build_parser().parse_args(argv)
    out = _Out(args.json, stdout or sys.stdout, stderr or sys.stderr)
    try:
        settings = config.load_settings(args.url)
        with Client(settings.url, settings.token, max_wait=args.max_wait) as client:
            return int(args.run(client, args, out, stdin or sys.stdin))
    except BenchmaxError as error:
        _report(error, out)
        return int(_exit_for(error))
    except KeyboardInterrupt:
        out.stderr.write("benchmax-client: interrupted\n")
        return int(ExitCode.INTERRUPTED)


if __name__ == "__main__":
    sys.exit(main())
