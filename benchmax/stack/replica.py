"""One web replica: the compiled Reflex app on its own port, as ``reflex run --env prod`` would.

``reflex run --env prod --single-port`` compiles and builds the front end before serving, in a
shared ``.web`` directory; two replicas doing that at once would rebuild the bundle under each
other. The stack builds once (``reflex export --frontend-only --no-zip``) and then starts each
replica here, which only serves: Reflex's production backend (Granian, one worker — the
replica count is the stack's business), with the built front end mounted on the same port
when it exists.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="benchmax.stack.replica", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--no-frontend", action="store_true", help="serve only the API")
    args = parser.parse_args(argv)
    os.environ.setdefault("GRANIAN_WORKERS", "1")
    os.environ["REFLEX_USE_GRANIAN"] = "true"

    from reflex.constants import Env, LogLevel
    from reflex.environment import environment
    from reflex.utils import exec as reflex_exec

    environment.REFLEX_ENV_MODE.set(Env.PROD)
    environment.REFLEX_SKIP_COMPILE.set(True)
    reflex_exec.run_backend_prod(
        args.host, args.port, LogLevel.WARNING, mount_frontend_compiled_app=not args.no_frontend
    )


if __name__ == "__main__":
    main()
