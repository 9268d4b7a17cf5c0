"""``benchmax stack``: the production topology on this machine, supervised until stopped.

Once everything is up, a process that exits is logged and restarted with backoff (the
supervisor's ``watch``); the stack stops only on SIGTERM or SIGINT (Ctrl+C), stopping its
processes in order within the grace period, or when it could not start.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchmax.cli.output import fail


def _running(stack: Any) -> str:
    return ", ".join(f"{n}={p.pid}" for n, p in stack.processes.items() if p.poll() is None)


def _cmd_stack(args: argparse.Namespace) -> int:
    from benchmax.runtime.supervisor import EXIT_FAILED, StopRequested, exit_now
    from benchmax.stack.topology import Stack, StackConfig

    grace = args.settings().shutdown_grace_seconds
    config = StackConfig(
        base_port=args.port,
        redis_port=args.redis_port,
        s3_port=args.s3_port,
        database=args.database,
        data_dir=Path(args.data_dir),
        serve_frontend=not args.no_frontend,
        build_frontend=not args.no_build,
        worker_modules=tuple(args.worker_modules),
        grace_seconds=grace,
    )
    stack = Stack(config)
    requested = False
    with stack.supervisor.stop_signals():
        try:
            stack.start(timeout=args.start_timeout)
            print(
                "\n  BenchMax production stack (BENCHMAX_STACK_LOCAL=1: http and the local "
                "issuer stand in for TLS and Clerk)\n"
                f"    app:          {config.app_origin}  (replicas on "
                + ", ".join(str(config.replica_port(i)) for i in range(config.replicas))
                + f")\n    user content: {config.usercontent_origin}\n"
                f"    database:     {config.database_url}\n    redis:        {config.redis_url}\n"
                f"    processes:    {_running(stack)}\n"
                f"    logs:         {stack.logs}\n"
                f"    CLI:          . {stack.cli_env}  then  benchmax jobs list (or any)\n"
                "  A process that exits is restarted. Ctrl+C (or SIGTERM) stops them all.\n",
                flush=True,
            )
            while True:
                stack.supervisor.watch()
                time.sleep(0.5)
        except StopRequested as stop:
            requested = True
            print(f"{stop}: stopping (up to {grace:.0f}s for running jobs)", file=sys.stderr)
        except (RuntimeError, TimeoutError) as exc:
            fail(exc)
        finally:
            status = stack.stop()
    exit_now(status if requested else EXIT_FAILED)


def register(sub: Any) -> None:
    stack = sub.add_parser("stack", help="run the production topology on this machine")
    stack.add_argument("--port", type=int, default=4700, help="the app's port (evidence: +1)")
    stack.add_argument("--redis-port", type=int, default=6390)
    stack.add_argument("--s3-port", type=int, default=4790)
    stack.add_argument("--database", default="benchmax_stack")
    stack.add_argument("--data-dir", default="var/stack")
    stack.add_argument("--no-frontend", action="store_true", help="API only: skip the build")
    stack.add_argument("--no-build", action="store_true", help="reuse the front end .web holds")
    stack.add_argument("--start-timeout", type=float, default=900.0)
    stack.add_argument(
        "--worker-import", dest="worker_modules", action="append", default=[],
        metavar="MODULE", help="every worker also imports MODULE (job kinds of your own)",
    )  # fmt: skip
    stack.set_defaults(func=_cmd_stack)
