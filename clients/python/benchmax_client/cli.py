"""``benchmax-client``: submit Tests and read the feed from a shell, a CI job or a harness.

The parser and ``main``. Exit codes (``exit_codes.ExitCode``) are part of the interface, so
scripts can branch on them; ``--json`` prints one JSON object on stdout for every outcome,
refusals included. Progress and notes go to stderr, and the upload progress line only when
stderr is a terminal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from benchmax_client import config
from benchmax_client.client import Client
from benchmax_client.commands import (
    cmd_config,
    cmd_group,
    cmd_leaderboard,
    cmd_login,
    cmd_mcp,
    cmd_search,
    cmd_show,
    cmd_status,
    cmd_submit,
)
from benchmax_client.errors import BenchmaxError
from benchmax_client.exit_codes import ExitCode, exit_for
from benchmax_client.output import Output, report

__all__ = ["ExitCode", "build_parser", "main"]


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


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    args = build_parser().parse_args(argv)
    out = Output(args.json, stdout or sys.stdout, stderr or sys.stderr)
    try:
        settings = config.load_settings(args.url)
        with Client(settings.url, settings.token, max_wait=args.max_wait) as client:
            return int(args.run(client, args, out, stdin or sys.stdin))
    except BenchmaxError as error:
        report(error, out)
        return int(exit_for(error))
    except KeyboardInterrupt:
        out.stderr.write("benchmax-client: interrupted\n")
        return int(ExitCode.INTERRUPTED)


if __name__ == "__main__":
    sys.exit(main())
