"""The ``benchmax`` command: run the processes and do operator chores from a shell.

Every subcommand reads the same Settings as the web app. Commands that print secrets (API
tokens) print them once to stdout and nowhere else.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from benchmax.cli.output import fail

if TYPE_CHECKING:
    from benchmax.context import AppContext
    from benchmax.runtime.supervisor import Supervisor
    from benchmax.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def _settings() -> Settings:
    from benchmax.settings import get_settings

    return get_settings()


def db_upgrade(database_url: str | None = None) -> None:
    from benchmax.migrations import upgrade

    upgrade(database_url or _settings().resolved_database_url)


def _cmd_db_upgrade(_args: argparse.Namespace) -> int:
    db_upgrade()
    print("database is at the latest revision")
    return 0


def _cmd_catalog_seed(args: argparse.Namespace) -> int:
    from benchmax.services.catalog.seed import seed_catalog

    ctx = args.context()
    with ctx.session() as session:
        counts = seed_catalog(session)
    print(f"catalog seeded: {counts}")
    return 0


def _cmd_demo_seed(args: argparse.Namespace) -> int:
    from benchmax.services.catalog.seed import seed_catalog
    from benchmax.services.demo import database_is_empty, seed_demo

    ctx = args.context()
    with ctx.session() as session:
        if args.if_empty and not database_is_empty(session):
            print("demo seed skipped: the database already has Tests")
            return 0
        seed_catalog(session)
        created = seed_demo(session, ctx.storage)
    print(f"demo seed: {created} sample Tests created")
    return 0


def _cmd_users_grant_role(args: argparse.Namespace) -> int:
    from benchmax.services.accounts import grant_role
    from benchmax.services.errors import ServiceError

    ctx = args.context()
    try:
        with ctx.session() as session:
            user = grant_role(session, args.handle, args.role)
    except ServiceError as exc:
        return fail(exc)
    print(f"@{user.handle} is now {user.role}")
    return 0


def _cmd_tokens_create(args: argparse.Namespace) -> int:
    from benchmax.services.accounts import (
        find_user_by_handle,
        get_or_create_local_user,
        named_handle,
    )
    from benchmax.services.errors import ServiceError
    from benchmax.services.tokens import create_token

    ctx = args.context()
    try:
        with ctx.session() as session:
            user = find_user_by_handle(session, args.handle)
            if user is None:
                if not args.create_user:
                    print(
                        f"error: no account has {named_handle(args.handle)} (use --create-user)",
                        file=sys.stderr,
                    )
                    return 1
                user = get_or_create_local_user(session, args.handle, "", ctx.settings)
            _token, plaintext = create_token(session, user, args.name)
    except ServiceError as exc:
        return fail(exc)
    print(plaintext)
    return 0


def _exec(command: list[str]) -> int:
    """Become ``command``: no wrapper process in between to swallow or outlive a signal, so
    whoever started this one (systemd, Kubernetes, ``benchmax stack``) signals the server."""
    os.chdir(ROOT)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)  # noqa: S606 - argv from this module, no shell
    return 1  # not reached


def _cmd_worker(args: argparse.Namespace) -> int:
    from benchmax.adapters.queue import worker_argv

    grace = _settings().shutdown_grace_seconds
    return _exec(worker_argv(args.workers, grace_seconds=grace, modules=args.modules))


def _cmd_scheduler(_args: argparse.Namespace) -> int:
    return _exec([sys.executable, "-m", "tasks.scheduler"])


def _usercontent_command(host: str, port: int, grace: float) -> list[str]:
    """uvicorn serving the evidence origin; on SIGTERM it finishes open responses for at
    most ``grace`` seconds."""
    return [
        sys.executable, "-m", "uvicorn", "usercontent_service.app:app",
        "--host", host, "--port", str(port),
        "--no-server-header", "--no-access-log", "--log-level", "warning",
        "--timeout-graceful-shutdown", str(max(1, int(grace))),
    ]  # fmt: skip


def _cmd_usercontent(args: argparse.Namespace) -> int:
    return _exec(_usercontent_command(args.host, args.port, _settings().shutdown_grace_seconds))


def _dev_environment(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    data_dir = Path(args.data_dir).resolve()
    env.update(
        {
            "BENCHMAX_DATA_DIR": str(data_dir),
            "BENCHMAX_APP_ORIGIN": f"http://localhost:{args.port}",
            "BENCHMAX_USERCONTENT_ORIGIN": f"http://127.0.0.1:{args.usercontent_port}",
            "REFLEX_TELEMETRY_ENABLED": "false",
            "REFLEX_CHECK_LATEST_VERSION": "false",
            "REFLEX_USE_SYSTEM_BUN": env.get("REFLEX_USE_SYSTEM_BUN", "1"),
        }
    )
    return env


def _wait_for(url: str, timeout: float, supervisor: Supervisor) -> bool:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if supervisor.exited():
            return False
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


def _web_command(args: argparse.Namespace) -> list[str]:
    """The web app with its in-process queue."""
    return [
        sys.executable, "-m", "reflex", "run", "--env", "prod", "--single-port",
        "--frontend-port", str(args.port), "--backend-host", args.host, "--loglevel", "warning",
    ]  # fmt: skip


def _cmd_dev(args: argparse.Namespace) -> int:
    """Start the web app (with its in-process queue) and the user-content service; stop
    both on SIGTERM, SIGINT or SIGHUP, or when either exits."""
    from benchmax.runtime.supervisor import EXIT_FAILED, StopRequested, Supervisor, exit_now

    env = _dev_environment(args)
    os.environ.update(env)
    grace = _settings().shutdown_grace_seconds
    supervisor = Supervisor(grace, cwd=ROOT, env=env)
    app_url = f"http://localhost:{args.port}"
    uc_url = f"http://127.0.0.1:{args.usercontent_port}"
    requested = False
    with supervisor.stop_signals():
        try:
            db_upgrade()
            _cmd_demo_seed(argparse.Namespace(if_empty=True, context=args.context))
            supervisor.spawn(
                "usercontent", _usercontent_command("127.0.0.1", args.usercontent_port, grace)
            )
            supervisor.spawn("web", _web_command(args))
            if not _wait_for(f"{app_url}/healthz", args.start_timeout, supervisor):
                print("BenchMax did not start; see the output above.", file=sys.stderr)
            else:
                print(
                    f"\n  BenchMax is running\n    app:           {app_url}\n"
                    f"    user content:  {uc_url}\n    sign in:       {app_url}/sign-in\n"
                    f"    data:          {env['BENCHMAX_DATA_DIR']}\n"
                    f"  Press Ctrl+C (or send SIGTERM) to stop.\n",
                    flush=True,
                )
                while not supervisor.exited():
                    time.sleep(0.5)
                print(f"stopping: {', '.join(supervisor.exited())} exited", file=sys.stderr)
        except StopRequested as stop:
            requested = True
            print(f"{stop}: stopping (up to {grace:.0f}s for running jobs)", file=sys.stderr)
        finally:
            status = supervisor.stop()
    exit_now(status if requested else EXIT_FAILED)


def _cmd_export(args: argparse.Namespace) -> int:
    from benchmax.services.exports import export_now

    manifest = export_now(args.context().jobs)
    counts = ", ".join(f"{count} {section}" for section, count in manifest.counts.items())
    print(f"export {manifest.generation} published: {counts}")
    return 0


def _register_command_modules(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Command groups that live in modules of their own, imported only when parsing."""
    from benchmax.cli import judge, leaderboard, ops, preview, stack

    for module in (ops, leaderboard, judge, stack, preview):
        module.register(sub)


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand's arguments; long because the command's surface reads best in one place."""
    parser = argparse.ArgumentParser(prog="benchmax", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    dev = sub.add_parser("dev", help="run every process on the embedded default")
    dev.add_argument(
        "--port",
        type=int,
        default=int(
            urlparse(os.environ.get("BENCHMAX_APP_ORIGIN", "http://localhost:3000")).port or 3000
        ),
    )
    dev.add_argument("--usercontent-port", type=int, default=3001)
    dev.add_argument("--data-dir", default=os.environ.get("BENCHMAX_DATA_DIR", "var"))
    dev.add_argument("--host", default="127.0.0.1", help="address the app binds to")
    dev.add_argument("--start-timeout", type=float, default=600.0)
    dev.set_defaults(func=_cmd_dev)

    db = sub.add_parser("db", help="database chores").add_subparsers(dest="db", required=True)
    db.add_parser("upgrade", help="apply migrations").set_defaults(func=_cmd_db_upgrade)

    cat = sub.add_parser("catalog").add_subparsers(dest="catalog", required=True)
    cat.add_parser("seed", help="add the model and harness catalog").set_defaults(
        func=_cmd_catalog_seed
    )

    demo = sub.add_parser("demo").add_subparsers(dest="demo", required=True)
    demo_seed = demo.add_parser("seed", help="add clearly marked sample Tests")
    demo_seed.add_argument("--if-empty", action="store_true")
    demo_seed.set_defaults(func=_cmd_demo_seed)

    users = sub.add_parser("users").add_subparsers(dest="users", required=True)
    grant = users.add_parser("grant-role", help="set a user's role")
    grant.add_argument("handle")
    grant.add_argument("role", choices=["contributor", "reviewer", "moderator", "owner"])
    grant.set_defaults(func=_cmd_users_grant_role)

    tokens = sub.add_parser("tokens").add_subparsers(dest="tokens", required=True)
    create = tokens.add_parser("create", help="create an API token and print it once")
    create.add_argument("--handle", required=True)
    create.add_argument("--name", default="cli")
    create.add_argument("--create-user", action="store_true")
    create.set_defaults(func=_cmd_tokens_create)

    sub.add_parser("export", help="publish an open-data export now").set_defaults(func=_cmd_export)

    worker = sub.add_parser("worker", help="run a Taskiq worker (Redis queue)")
    worker.add_argument("--workers", type=int, default=1)
    worker.add_argument(
        "--import", dest="modules", action="append", default=[], metavar="MODULE",
        help="also import MODULE: job kinds of your own (repeatable)",
    )  # fmt: skip
    worker.set_defaults(func=_cmd_worker)
    sub.add_parser("scheduler", help="run the periodic sweeper").set_defaults(func=_cmd_scheduler)

    uc = sub.add_parser("usercontent", help="run the user-content service")
    uc.add_argument("--host", default="127.0.0.1")
    uc.add_argument("--port", type=int, default=3001)
    uc.set_defaults(func=_cmd_usercontent)

    _register_command_modules(sub)
    return parser


def _context_from_settings() -> AppContext:
    from benchmax.context import AppContext

    return AppContext.from_settings(_settings())


def main(argv: Sequence[str] | None = None, ctx: AppContext | None = None) -> int:
    """Run one command. Commands that work on the database or storage call
    ``args.context()``: ``ctx`` if given (tests), else one built from the settings on first
    use, so commands that need none (``dev``, ``worker``) build nothing."""
    args = build_parser().parse_args(argv)
    args.context = (lambda: ctx) if ctx is not None else functools.cache(_context_from_settings)
    # Settings alone, for commands that start processes and build no context (``stack``).
    args.settings = (lambda: ctx.settings) if ctx is not None else _settings
    return int(args.func(args))
