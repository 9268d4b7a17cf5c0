"""Which pytest-xdist worker this process is: ports, build folders and Redis keys are spread
by it, so workers (and a run without xdist) never share one."""

from __future__ import annotations

import os

# "gw0", "gw1", … under xdist; empty in a plain pytest run.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
WORKER_INDEX = int(WORKER.removeprefix("gw") or 0)
# How many workers share the run (1 without xdist): a second range of ports starts past them.
WORKER_COUNT = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
