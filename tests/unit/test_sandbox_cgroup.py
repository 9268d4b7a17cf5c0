"""The cgroup v2 layout the local sandbox writes, on a directory laid out as the kernel's.

The machine the suite runs on may have cgroup v1 only (``tests/integration/
test_preview_limits.py`` runs the real thing wherever a cgroup can be made); this checks what
BenchMax itself reads and writes in a delegated v2 cgroup: the limits, the refusal of a
parent without the controllers, and which kernel counters name which limit.
"""

from __future__ import annotations

from pathlib import Path

from benchmax.adapters.sandbox.limits import MEMORY, MIB, TASKS, Cgroup, Limits


def _v2(tmp_path: Path, controllers: str) -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    parent = root / "benchmax.service"
    parent.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (parent / "cgroup.subtree_control").write_text(controllers + "\n")
    return root, parent


def test_a_run_gets_a_group_of_its_own_under_the_delegated_parent(tmp_path: Path) -> None:
    root, parent = _v2(tmp_path, "memory pids")
    limits = Limits(memory_bytes=300 * MIB, tasks=77, cgroup_parent=str(parent))
    group = Cgroup.create(limits, root=root)
    assert group is not None
    assert group.v2
    assert group.memory_dir.parent == parent
    assert group.memory_dir.name.startswith("benchmax-preview-")
    assert (group.memory_dir / "memory.max").read_text() == str(300 * MIB)
    assert (group.memory_dir / "memory.swap.max").read_text() == "0"
    assert (group.memory_dir / "pids.max").read_text() == "77"
    assert group.breach() is None
    (group.memory_dir / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\n")
    assert group.breach() is None  # reaching the ceiling only reclaims; no kill yet
    (group.memory_dir / "pids.events").write_text("max 3\n")
    assert group.breach() == TASKS
    (group.memory_dir / "memory.events").write_text("max 12\noom 1\noom_kill 1\n")
    assert group.breach() == MEMORY


def test_no_group_where_the_controllers_are_not_delegated(tmp_path: Path) -> None:
    root, parent = _v2(tmp_path, "cpu memory")
    assert Cgroup.create(Limits(cgroup_parent=str(parent)), root=root) is None
    assert [path.name for path in parent.iterdir()] == ["cgroup.subtree_control"]


def test_no_group_where_the_parent_is_missing(tmp_path: Path) -> None:
    root, _ = _v2(tmp_path, "memory pids")
    missing = Limits(cgroup_parent=str(tmp_path / "nowhere"))
    assert Cgroup.create(missing, root=root) is None
