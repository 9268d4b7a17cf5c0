"""What one local sandboxed run may use, and the watch that ends it when it uses more.

Time alone bounds nothing a hostile page can do in a few seconds: allocate and touch gigabytes,
start threads until the host has none, fill a RAM-backed ``/tmp``. Every run therefore gets

* a memory ceiling and a task ceiling (processes and threads) on its whole process tree: a
  cgroup of its own where the worker may create one (v2, or v1's ``memory`` and ``pids``
  hierarchies), so the kernel enforces both; otherwise the watch below polls the tree's
  resident memory and task count and kills the tree past either. ``RLIMIT_AS`` is no
  substitute: Chromium reserves terabytes of address space it never touches;
* processor time of the whole tree, counted by the watch (``RLIMIT_CPU`` per process backs it
  up, a little higher, in case the watch itself is starved);
* a size-capped tmpfs for ``/tmp`` (bubblewrap's ``--size``) and a watched byte count on the
  output directory, the only two paths it can write; ``RLIMIT_FSIZE`` caps any one file.

A run that crosses a limit is the *site's* outcome, not a sandbox fault: ``Watch.breach``
names the limit and the adapter turns it into a failed result with that reason, which is
never retried automatically.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from benchmax.settings import Settings

MIB = 1024 * 1024
# How often the watch looks at the tree; a hog can grow this long between two looks, which
# is why a cgroup (enforced by the kernel) is preferred wherever it can be made.
POLL_SECONDS = 0.1
# The per-process CPU rlimit sits this far above the tree's, so the watch names it first.
CPU_RLIMIT_MARGIN = 5
# Share of a tmpfs that counts as full (a write that no longer fits fails just below 100%).
FULL_SHARE = 0.98
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")

# The limit a run crossed, as the result's reason code.
MEMORY = "memory_limit"
CPU = "cpu_limit"
TASKS = "process_limit"
DISK = "disk_limit"
FILE_SIZE = "file_size_limit"
LIMIT_CODES = (MEMORY, CPU, TASKS, DISK, FILE_SIZE)


def _default(name: str) -> int:
    value = Settings.model_fields[name].default
    assert isinstance(value, int)
    return value


@dataclass(frozen=True)
class Limits:
    """Defaults: the settings' own (no environment read), for a sandbox built by hand (a
    bench, a test); a worker builds its limits from its settings."""

    memory_bytes: int = _default("preview_memory_mib") * MIB
    cpu_seconds: int = _default("preview_cpu_seconds")
    tasks: int = _default("preview_max_tasks")
    disk_bytes: int = _default("preview_disk_mib") * MIB
    file_bytes: int = _default("preview_file_mib") * MIB
    cgroup_parent: str = ""

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(
            memory_bytes=settings.preview_memory_mib * MIB,
            cpu_seconds=settings.preview_cpu_seconds,
            tasks=settings.preview_max_tasks,
            disk_bytes=settings.preview_disk_mib * MIB,
            file_bytes=settings.preview_file_mib * MIB,
            cgroup_parent=settings.preview_cgroup_parent,
        )


DEFAULT_LIMITS = Limits()


def set_rlimits(limits: Limits) -> None:
    """In the child, before bubblewrap starts: per-process ceilings the whole tree inherits."""
    cpu = limits.cpu_seconds + CPU_RLIMIT_MARGIN
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + CPU_RLIMIT_MARGIN))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# ---------------------------------------------------------------------------------------
# cgroups


class Cgroup:
    """A cgroup of one run's own with memory and task ceilings (v2, or v1's two hierarchies).

    ``create`` returns None where the worker may not make one (no delegation, a read-only
    /sys/fs/cgroup, a container); the watch then does the job alone.
    """

    def __init__(self, memory_dir: Path, pids_dir: Path, v2: bool) -> None:
        self.memory_dir = memory_dir
        self.pids_dir = pids_dir
        self.v2 = v2

    @classmethod
    def create(cls, limits: Limits, root: Path = Path("/sys/fs/cgroup")) -> Cgroup | None:
        """On cgroup v2 each run's group is made under ``limits.cgroup_parent`` (a cgroup
        delegated to the worker with ``memory`` and ``pids`` in its subtree control), else
        under the worker's own cgroup — which v2 allows only if that one holds no process
        itself, so in practice the parent must be configured. On v1, under the worker's own
        groups in the ``memory`` and ``pids`` hierarchies."""
        name = f"benchmax-preview-{uuid.uuid4().hex[:12]}"
        try:
            if (root / "cgroup.controllers").exists():
                parent = limits.cgroup_parent or str(root / _own_cgroup("0::"))
                return cls._create_v2(Path(parent), name, limits)
            return cls._create_v1(root, name, limits)
        except OSError:
            return None

    @classmethod
    def _create_v2(cls, parent: Path, name: str, limits: Limits) -> Cgroup | None:
        if not {"memory", "pids"} <= set((parent / "cgroup.subtree_control").read_text().split()):
            return None
        path = parent / name
        path.mkdir()
        group = cls(path, path, v2=True)
        try:
            (path / "memory.max").write_text(str(limits.memory_bytes))
            (path / "memory.swap.max").write_text("0")
            (path / "pids.max").write_text(str(limits.tasks))
        except OSError:
            group.remove()
            raise
        return group

    @classmethod
    def _create_v1(cls, root: Path, name: str, limits: Limits) -> Cgroup | None:
        memory_root, pids_root = root / "memory", root / "pids"
        if not (memory_root / "memory.limit_in_bytes").exists() or not pids_root.is_dir():
            return None
        memory = memory_root / _own_cgroup("memory") / name
        pids = pids_root / _own_cgroup("pids") / name
        memory.mkdir()
        group = cls(memory, pids, v2=False)
        try:
            pids.mkdir()
            (memory / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
            with contextlib.suppress(OSError):  # absent without swap accounting
                (memory / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
            (pids / "pids.max").write_text(str(limits.tasks))
        except OSError:
            group.remove()
            raise
        return group

    def join(self) -> None:
        """In the child, before bubblewrap starts: everything it starts is counted here."""
        pid = str(os.getpid())
        (self.memory_dir / "cgroup.procs").write_text(pid)
        if not self.v2:
            (self.pids_dir / "cgroup.procs").write_text(pid)

    def breach(self) -> str | None:
        """The limit the kernel enforced, if any (an OOM kill, a refused fork)."""
        # Only a kill counts: reaching the ceiling alone may just reclaim page cache.
        events = "memory.events" if self.v2 else "memory.oom_control"
        if _counter(self.memory_dir / events, "oom_kill"):
            return MEMORY
        if _counter(self.pids_dir / "pids.events", "max"):
            return TASKS
        return None

    def kill(self) -> None:
        """Every task left in the group, however it got there (a double fork included)."""
        if self.v2:
            with contextlib.suppress(OSError):
                (self.memory_dir / "cgroup.kill").write_text("1")
            return
        for _ in range(50):
            pids = _read_pids(self.pids_dir) | _read_pids(self.memory_dir)
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def remove(self) -> None:
        for path in {self.memory_dir, self.pids_dir}:
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _own_cgroup(hierarchy: str) -> str:
    """This process's cgroup path in ``hierarchy`` ("memory", "pids" or "0::" for v2)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        number, controllers, path = line.split(":", 2)
        if f"{number}::" == hierarchy or hierarchy in controllers.split(","):
            return path.lstrip("/")
    raise OSError(f"no {hierarchy} cgroup")


def _counter(path: Path, key: str) -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


def _read_pids(path: Path) -> set[int]:
    with contextlib.suppress(OSError, ValueError):
        return {int(pid) for pid in (path / "cgroup.procs").read_text().split()}
    return set()


# ---------------------------------------------------------------------------------------
# The watch


@dataclass
class TreeUse:
    memory_bytes: int = 0
    tasks: int = 0
    cpu_seconds: float = 0.0
    pids: tuple[int, ...] = ()
    started: dict[int, int] = field(default_factory=dict)


def tree_use(root_pid: int) -> TreeUse:
    """Resident memory, tasks and CPU time of ``root_pid`` and everything below it.

    Resident memory counts pages shared between processes once per process, so it
    overstates Chromium's real use a little; CPU time includes the reaped children of every
    process in the tree, so work of processes that already exited is not forgotten.
    """
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                raw = handle.read().decode(errors="replace")
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2 :].split()
        pid = int(entry.name)
        stats[pid] = fields
        children.setdefault(int(fields[1]), []).append(pid)
    use = TreeUse()
    found: list[tuple[int, int]] = []
    stack = [root_pid] if root_pid in stats else []
    while stack:
        pid = stack.pop()
        fields = stats[pid]
        found.append((pid, int(fields[19])))
        use.cpu_seconds += sum(int(value) for value in fields[11:15]) / TICKS
        use.tasks += int(fields[17])
        use.memory_bytes += int(fields[21]) * PAGE
        stack.extend(children.get(pid, ()))
    use.pids = tuple(pid for pid, _ in found)
    use.started = dict(found)
    return use


def _start_time(pid: int) -> int | None:
    """When ``pid`` started; None once it is gone or only a zombie (it holds nothing but
    its number until its parent, outside the run, reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode(errors="replace")
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else int(fields[19])


def proportional_bytes(pids: tuple[int, ...]) -> int:
    """The tree's memory with each shared page split between the processes sharing it (PSS):
    Chromium's processes share much of their memory, which resident sizes count again and
    again. Dearer to read than ``/proc/PID/stat``, so read only when no cgroup counts it."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError), open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
    return total


def directory_bytes(path: Path) -> int:
    """Bytes under ``path`` (it may be written to while this runs)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


class Watch:
    """Polls one run's process tree, its cgroup and its writable paths; kills it past a limit.

    ``breach`` is the first limit crossed (None when none was). The kill takes the process
    group, the cgroup and every process found in the tree, so a process that left the group
    (``setsid``) is not left behind either.
    """

    def __init__(
        self,
        root_pid: int,
        limits: Limits,
        cgroup: Cgroup | None,
        output_dir: Path,
        tmp_mounts: list[str],
    ) -> None:
        self.root_pid = root_pid
        self.limits = limits
        self.cgroup = cgroup
        self.output_dir = output_dir
        self.tmp_mounts = tmp_mounts
        self.breach: str | None = None
        self.peak = TreeUse()
        self.seen: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="benchmax-sandbox-watch")
        self._thread.daemon = True

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if self.breach is None:
            self.breach = self._kernel_breach()

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                use = tree_use(self.root_pid)
            except (OSError, ValueError, IndexError):
                continue  # a process exited while it was read; look again
            if not use.pids:
                return
            self._note_peak(use)
            breach = self._kernel_breach() or self._over(use)
            if breach is not None:
                self.breach = breach
                self.kill(use.pids)
                return

    def _note_peak(self, use: TreeUse) -> None:
        self.peak.memory_bytes = max(self.peak.memory_bytes, use.memory_bytes)
        self.peak.tasks = max(self.peak.tasks, use.tasks)
        self.peak.cpu_seconds = max(self.peak.cpu_seconds, use.cpu_seconds)
        self.seen.update(use.started)

    def _kernel_breach(self) -> str | None:
        return self.cgroup.breach() if self.cgroup is not None else None

    def _over(self, use: TreeUse) -> str | None:
        limits = self.limits
        if self.cgroup is None:  # otherwise the kernel holds the tree to both
            resident = use.memory_bytes > limits.memory_bytes  # cheap, and never below PSS
            if resident and proportional_bytes(use.pids) > limits.memory_bytes:
                return MEMORY
            if use.tasks > limits.tasks:
                return TASKS
        if use.cpu_seconds > limits.cpu_seconds:
            return CPU
        if directory_bytes(self.output_dir) >= limits.disk_bytes * FULL_SHARE:
            return DISK
        for mount in self.tmp_mounts:
            if self._full(mount, use.pids):
                return DISK
        return None

    def _full(self, mount: str, pids: tuple[int, ...]) -> bool:
        """Whether the tmpfs at ``mount`` inside the sandbox is (nearly) full, seen through
        the mount namespace of the tree's newest process."""
        for pid in reversed(pids):
            inside = f"/proc/{pid}/root{mount}"
            try:
                usage = os.statvfs(inside)
                own_device = os.stat(inside).st_dev != os.stat(mount).st_dev
            except OSError:
                continue
            if not own_device or not usage.f_blocks:
                return False  # not mounted yet: this is still the host's own
            return (usage.f_blocks - usage.f_bavail) / usage.f_blocks >= FULL_SHARE
        return False

    def wait_gone(self, seconds: float = 30.0) -> list[int]:
        """Wait for every process the watch saw to be gone (a PID namespace ends a moment
        after its first process); those still there when ``seconds`` ran out."""
        deadline = time.monotonic() + seconds
        while True:
            left = [pid for pid, start in self.seen.items() if _start_time(pid) == start]
            if not left or time.monotonic() > deadline:
                return left
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)

    def kill(self, pids: tuple[int, ...] = ()) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.root_pid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill()
