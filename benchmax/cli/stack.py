"""``benchmax stack``: the production topology on this machine, until Ctrl+C."""

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
    from benchmax.stack.topology import Stack, StackConfig

    config = StackConfig(
        base_port=args.port,
        redis_port=args.redis_port,
        s3_port=args.s3_port,
        database=args.database,
        data_dir=Path(args.data_dir),
        serve_frontend=not args.no_frontend,
        build_frontend=not args.no_build,
    )
    stack = Stack(config)
    try:
        stack.start(timeout=args.start_timeout)
        print(
            "\n  BenchMax production stack (BENCHMAX_STACK_LOCAL=1: http and the local issuer "
            "stand in for TLS and Clerk)\n"
            f"    app:          {config.app_origin}  (replicas on "
            + ", ".join(str(config.replica_port(i)) for i in range(config.replicas))
            + f")\n    user content: {config.usercontent_origin}\n"
            f"    database:     {config.database_url}\n    redis:        {config.redis_url}\n"
            f"    processes:    {_running(stack)}\n"
            f"    logs:         {stack.logs}\n  Press Ctrl+C to stop.\n",
            flush=True,
        )
        while True:
            dead = [n for n, p in stack.processes.items() if p.poll() not in (None, 0)]
            if dead:
                print(f"stopped: {', '.join(dead)} exited; see {stack.logs}", file=sys.stderr)
                return 1
            time.sleep(1)
    except KeyboardInterrupt:
        return 0
    except (RuntimeError, TimeoutError) as exc:
        return fail(exc)
    finally:
        stack.stop()


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
    stack.set_defaults(func=_cmd_stack)
