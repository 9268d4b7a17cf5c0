"""``benchmax judge ...``: create, calibrate, activate, deactivate and list judge snapshots.

Registered on the main parser by ``benchmax.cli.main.build_parser``. As with ``benchmax jobs``,
whoever can run a shell on the server is the operator; audit events carry no user id.
``benchmax judge calibration upload FILE`` stores the private calibration set and prints its
SHA-256 (to put in ``BENCHMAX_JUDGE_CALIBRATION_SHA256``). Exit status 1 when refused.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from benchmax.cli.output import fail


def _cmd_create(args: argparse.Namespace) -> int:
    from benchmax.services.judge.snapshots import JudgeSnapshotError, create_snapshot

    try:
        raw = Path(args.file).read_bytes()
        with args.context().session() as session:
            snapshot = create_snapshot(session, raw, args.context().settings, actor_id=None)
    except (OSError, JudgeSnapshotError) as exc:
        return fail(exc)
    print(f"judge snapshot {snapshot.id} created (draft); calibrate it next")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from benchmax.services.judge.calibration import calibrate_with_configured_judge
    from benchmax.services.judge.snapshots import JudgeSnapshotError

    try:
        with args.context().session() as session:
            ctx = args.context()
            run = calibrate_with_configured_judge(
                session, args.snapshot_id, ctx.jobs.judge, ctx.storage, ctx.settings
            )
    except JudgeSnapshotError as exc:
        return fail(exc)
    verdict = "passed" if run.passed else "failed: " + ", ".join(run.failures)
    print(
        f"calibration {run.id}: {verdict} (items {run.item_count}, MAE {run.mae}, "
        f"Spearman {run.spearman}, median spread {run.median_spread})"
    )
    return 0 if run.passed else 1


def _cmd_state(args: argparse.Namespace) -> int:
    from benchmax.services.judge.snapshots import JudgeSnapshotError, activate, deactivate

    try:
        with args.context().session() as session:
            if args.judge == "activate":
                snapshot = activate(
                    session, args.snapshot_id, args.context().settings, actor_id=None
                )
            else:
                snapshot = deactivate(session, args.snapshot_id, actor_id=None)
    except JudgeSnapshotError as exc:
        return fail(exc)
    print(f"judge snapshot {snapshot.id} is {snapshot.state}")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from benchmax.services.judge.status import snapshot_rows

    with args.context().session() as session:
        rows = snapshot_rows(session)
    print(f"{'id':<16}  {'state':<8}  {'calibration':<22}  {'models':<40} name")
    for row in rows:
        print(f"{row.id:<16}  {row.state:<8}  {row.calibration:<22}  {row.models:<40} {row.name}")
    return 0


def _cmd_upload_set(args: argparse.Namespace) -> int:
    from benchmax.adapters.storage import PRIVATE_PREFIX

    key = args.context().settings.judge_calibration_key
    if not key.startswith(PRIVATE_PREFIX):
        return fail("BENCHMAX_JUDGE_CALIBRATION_KEY must be under private/")
    try:
        raw = Path(args.file).read_bytes()
    except OSError as exc:
        return fail(exc)
    args.context().storage.put(key, [raw], content_type="application/x-ndjson")
    print(f"calibration set stored at {key}; SHA-256 {hashlib.sha256(raw).hexdigest()}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    judge = sub.add_parser("judge", help="AI judge snapshots").add_subparsers(
        dest="judge", required=True
    )
    snapshot = judge.add_parser("snapshot").add_subparsers(dest="snapshot", required=True)
    create = snapshot.add_parser("create", help="create a draft snapshot from a JSON file")
    create.add_argument("file")
    create.set_defaults(func=_cmd_create)
    calibrate = judge.add_parser("calibrate", help="calibrate a snapshot on the private set")
    calibrate.add_argument("snapshot_id")
    calibrate.set_defaults(func=_cmd_calibrate)
    for name, text in (("activate", "make a calibrated snapshot the active judge"),
                       ("deactivate", "stop a snapshot reviewing new Tests")):  # fmt: skip
        action = judge.add_parser(name, help=text)
        action.add_argument("snapshot_id")
        action.set_defaults(func=_cmd_state)
    judge.add_parser("list", help="list snapshots").set_defaults(func=_cmd_list)
    calibration = judge.add_parser("calibration").add_subparsers(dest="calibration", required=True)
    upload = calibration.add_parser("upload", help="store the private calibration set")
    upload.add_argument("file")
    upload.set_defaults(func=_cmd_upload_set)
