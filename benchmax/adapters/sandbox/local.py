"""The local sandbox: bubblewrap around the evaluator, on the worker itself.

Every namespace is unshared (mount, PID, IPC, UTS, cgroup and network: loopback only). The
system directories, Python and the evaluator are bound read-only, ``/tmp`` is a fresh tmpfs,
the ZIP is bound read-only and one empty output directory is the only thing written back.
The evaluator runs as ``nobody`` so that Chromium's own sandbox works inside, and it dies
with its parent (``--die-with-parent``, its own session, its process group killed at the
deadline).

Run as root, bubblewrap would map a new user namespace onto root itself, so there the user
namespace is left out and ``setpriv`` drops the real uid to ``nobody`` instead; as any other
user, bubblewrap's user namespace does the same job.

The evaluator's first step is the egress self-test: if any connection out succeeds, it
writes ``egress_open`` and stops, and this adapter fails closed (``SandboxError``).

Every run is bounded in memory, processor time, tasks, disk and file size as well as time
(``limits``); a run that crosses one ends as the site's result naming the limit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from benchmax.adapters.sandbox import (
    EVALUATOR_DIR,
    EvaluationOutput,
    SandboxError,
    limit_result,
    read_outputs,
)
from benchmax.adapters.sandbox.limits import (
    DEFAULT_LIMITS,
    Cgroup,
    Limits,
    TreeUse,
    Watch,
    set_rlimits,
)

NOBODY = 65534
BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"
INSIDE_EVALUATOR = "/opt/evaluator"
INSIDE_ZIP = "/input/site.zip"
INSIDE_OUT = "/output"
# Paths inside the sandbox: its /tmp is a fresh tmpfs, not the host's.
TMP = "/tmp"  # noqa: S108
# Time the sandbox gets beyond the evaluator's own bound before it is killed.
GRACE_SECONDS = 10.0


def _ancestors(path: str) -> list[str]:
    parents = list(PurePosixPath(path).parents)[:-1]
    return [str(parent) for parent in reversed(parents)]


def _dirs_for(targets: list[str]) -> list[str]:
    """``--dir`` for every parent of a mount point, world-searchable (bubblewrap's are 0700)."""
    made: list[str] = []
    args: list[str] = []
    for target in targets:
        for parent in _ancestors(target):
            if parent not in made and parent not in ("/usr", "/etc", TMP):
                made.append(parent)
                args += ["--perms", "0755", "--dir", parent]
    return args


def bwrap_command(
    zip_path: Path,
    out_dir: Path,
    timeout_seconds: float,
    probes: list[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> list[str]:
    """The full command line; separate so tests can run other programs in the same box."""
    python_home = sys.base_prefix
    venv = sys.prefix
    binds = [(python_home, python_home), (venv, venv), (str(EVALUATOR_DIR), INSIDE_EVALUATOR)]
    binds.append((str(zip_path), INSIDE_ZIP))
    as_root = os.geteuid() == 0
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    namespaces += ["--unshare-cgroup-try"] + ([] if as_root else ["--unshare-user"])
    command = [BWRAP, *namespaces, "--die-with-parent", "--new-session"]
    command += ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for link in ("bin", "lib", "lib64", "sbin"):
        if os.path.islink(f"/{link}"):
            command += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
    command += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777"]
    command += ["--size", str(limits.disk_bytes), "--tmpfs", TMP]
    command += _dirs_for([inside for _, inside in binds] + [INSIDE_OUT])
    for outside, inside in binds:
        command += ["--ro-bind", outside, inside]
    command += ["--bind", str(out_dir), INSIDE_OUT, "--clearenv"]
    command += ["--setenv", "HOME", TMP, "--setenv", "PATH", "/usr/bin:/bin"]
    command += ["--setenv", "LANG", "C.UTF-8", "--chdir", TMP]
    if as_root:
        command += [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        command += ["--inh-caps=-all", "--bounding-set=-all"]
    command += [str(Path(venv) / "bin" / "python"), f"{INSIDE_EVALUATOR}/evaluate.py"]
    command += ["--zip", INSIDE_ZIP, "--out", INSIDE_OUT, "--timeout", str(timeout_seconds)]
    for probe in probes or []:
        command += ["--probe", probe]
    return command


class LocalSandbox:
    name = "local"

    def __init__(self, probes: list[str] | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.probes = probes
        self.limits = limits

    def evaluate(
        self, zip_path: Path, timeout_seconds: float, *, labels: dict[str, str] | None = None
    ) -> EvaluationOutput:
        if not os.path.exists(BWRAP):
            raise SandboxError("bubblewrap_missing")
        out_dir = Path(tempfile.mkdtemp(prefix="benchmax-preview-"))
        try:
            if os.geteuid() == 0:
                os.chown(out_dir, NOBODY, NOBODY)
            command = bwrap_command(zip_path, out_dir, timeout_seconds, self.probes, self.limits)
            run = run_bounded(command, timeout_seconds + GRACE_SECONDS, self.limits, out_dir)
            if run.breach is None:
                return read_outputs(out_dir)
            try:
                read_outputs(out_dir)  # an open network still fails closed, limit or not
            except SandboxError as exc:
                if exc.code == "egress_open":
                    raise
            return limit_result(run.breach)
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)


@dataclass(frozen=True)
class BoundedRun:
    """How a bounded run ended: its exit status (-1 at the deadline), the limit it crossed,
    the most it used at once and every process the watch saw in its tree."""

    returncode: int
    breach: str | None
    peak: TreeUse
    seen: frozenset[int]


def run_bounded(
    command: list[str], seconds: float, limits: Limits, out_dir: Path, *, cgroup: bool = True
) -> BoundedRun:
    """Run ``command`` in its own process group (and cgroup, where one can be made and
    ``cgroup`` allows it) under ``limits``; kill the whole tree at the deadline or past a
    limit. Killing bubblewrap ends its PID namespace, so nothing started inside survives."""
    group = Cgroup.create(limits) if cgroup else None

    def enter_limits() -> None:
        set_rlimits(limits)
        if group is not None:
            group.join()

    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        # Runs between fork and exec: rlimits and one small write, no locks taken.
        preexec_fn=enter_limits,
    )
    watch = Watch(process.pid, limits, group, out_dir, [TMP])
    watch.start()
    returncode = -1
    try:
        returncode = process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    finally:
        watch.kill(tuple(p for p in [process.pid] if process.poll() is None))
        process.wait()
        watch.stop()
        if group is not None:
            group.kill()
        left = watch.wait_gone()
        if group is not None:
            group.remove()
    if left:
        raise SandboxError("processes_left")
    return BoundedRun(returncode, watch.breach, watch.peak, frozenset(watch.seen))
