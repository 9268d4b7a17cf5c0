"""``benchmax jobs ...`` and ``benchmax backup ...``: the operations actions from a shell.

Registered on the main parser by ``benchmax.cli.main.build_parser``. A shell has no signed-in
user: whoever can run it on the server is the operator, and audit events say ``operator-cli``.
Exit status is 0 on success, 1 when an action was refused or a verify found differences.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmax.cli.output import fail
from benchmax.models import JobState


def _verdict(differences: Any, heading: str, intact: str) -> int:
    """How a command that checks something ends: ``heading`` and each difference, exit 1;
    or, when there are none, the ``intact`` line and exit 0."""
    if differences:
        print(heading)
        for difference in differences:
            print(f"  - {difference}")
        return 1
    print(intact)
    return 0


def _cmd_jobs_list(args: argparse.Namespace) -> int:
    from benchmax.services.jobs import list_jobs

    ctx = args.context()
    state = JobState(args.state) if args.state else None
    with ctx.session() as session:
        jobs = list_jobs(session, state=state, kind=args.kind, limit=args.limit)
    print(
        f"{'id':>8}  {'kind':<20} {'subject':<18} {'state':<10} {'tries':>5}  {'error':<24} updated"
    )
    for job in jobs:
        print(
            f"{job.id:>8}  {job.kind:<20} {job.subject_id:<18} {job.state:<10} "
            f"{job.attempts:>5}  {job.last_error_code or '-':<24} "
            f"{job.updated_at:%Y-%m-%d %H:%M:%S}"
        )
    return 0


def _cmd_jobs_act(args: argparse.Namespace) -> int:
    from benchmax.services.errors import ServiceError
    from benchmax.services.operations import discard_job, requeue_job

    ctx = args.context()
    action = requeue_job if args.jobs == "requeue" else discard_job
    try:
        with sending_jobs(ctx), ctx.session() as session:
            job = action(session, args.job_id, actor=None, reason=args.reason)
    except ServiceError as exc:
        return fail(exc)
    print(f"job {job.id} ({job.kind}) is now {job.state}")
    if job.state == JobState.PENDING:
        if ctx.settings.queue_backend == "redis":
            print("sent to the workers")
        else:
            print("the running app (benchmax dev, or the web process) runs it within seconds")
    return 0


@contextmanager
def sending_jobs(ctx: Any) -> Iterator[None]:
    """With Redis, this command sends what it commits to the workers itself.

    The embedded default's queue lives inside the web process, out of this process's reach:
    there the committed row is all it takes, since that process polls for due jobs.
    """
    if ctx.settings.queue_backend != "redis":
        yield
        return
    from benchmax.adapters.queue import TaskiqDispatcher, build_broker

    dispatcher = TaskiqDispatcher(build_broker(ctx.settings))
    previous = ctx.queue.attach(dispatcher)
    try:
        yield
    finally:
        ctx.queue.attach(previous)
        dispatcher.close()


def _target_storage(args: argparse.Namespace) -> Any:
    from benchmax.adapters.storage import build_storage

    ctx = args.context()
    if args.storage_dir:
        from benchmax.adapters.storage.local import LocalStorage

        return LocalStorage(args.storage_dir)
    update: dict[str, Any] = {"storage_backend": "s3", "s3_bucket": args.s3_bucket}
    if args.s3_endpoint_url:
        update["s3_endpoint_url"] = args.s3_endpoint_url
    if args.s3_region:
        update["s3_region"] = args.s3_region
    # Credentials come from BENCHMAX_S3_ACCESS_KEY_ID and BENCHMAX_S3_SECRET_ACCESS_KEY in the
    # environment, never from the command line.
    return build_storage(ctx.settings.model_copy(update=update))


def _cmd_backup_create(args: argparse.Namespace) -> int:
    from benchmax.services.backup import BackupBusyError, create_backup
    from benchmax.services.backup.keys import signing_key_of
    from benchmax.services.operations import CLI_ACTOR

    ctx = args.context()
    try:
        result = create_backup(
            ctx.engine,
            ctx.storage,
            created_by=CLI_ACTOR,
            snapshot_format=args.format,
            signing_key=signing_key_of(ctx.settings),
        )
    except BackupBusyError as exc:
        return fail(exc)
    manifest = result.manifest
    print(f"manifest: {result.manifest_key}")
    if manifest.signing_key_sha256:
        print(
            "warning: this backup holds the local sign-in key, unencrypted: whoever can read "
            "the backup can sign in as anyone. Keep backups as private as the key."
        )
    print(f"manifest sha256: {result.manifest_sha256}")
    print(
        f"snapshot: {manifest.snapshot_format}, {manifest.snapshot_bytes} bytes; "
        f"{len(manifest.objects)} objects, {manifest.object_bytes} bytes; "
        f"schema {manifest.schema_revision}"
    )
    heading = "the stored backup did not read back intact:"
    return _verdict(result.problems, heading, "stored backup read back intact")


def _cmd_backup_verify(args: argparse.Namespace) -> int:
    from benchmax.services.backup import ManifestError, load_manifest, record_verification, verify

    ctx = args.context()
    try:
        loaded = load_manifest(ctx.storage, args.manifest)
    except ManifestError as exc:
        return fail(exc)
    differences = verify(ctx.engine, ctx.storage, loaded.manifest)
    record_verification(ctx.engine, loaded.key, differences)
    print(f"manifest: {loaded.key}")
    return _verdict(differences, f"{len(differences)} differences:", "matches the manifest")


def _cmd_backup_restore(args: argparse.Namespace) -> int:
    from benchmax.services.backup import ManifestError, RestoreRefusedError, restore
    from benchmax.services.backup.keys import SIGNING_KEY_NAME

    ctx = args.context()
    key_path = Path(args.key_path) if args.key_path else None
    if key_path is None and args.storage_dir:
        # The layout of a data directory: <data>/objects beside <data>/keys.
        key_path = Path(args.storage_dir).resolve().parent / "keys" / SIGNING_KEY_NAME
    try:
        result = restore(
            args.manifest, ctx.storage, args.database_url, _target_storage(args), key_path=key_path
        )
    except (ManifestError, RestoreRefusedError) as exc:
        return fail(exc)
    print(f"restored {result.manifest_key}: {result.objects_copied} objects copied")
    if result.signing_key_written:
        print(f"local sign-in key restored to {result.signing_key_written}")
    elif result.has_signing_key and not result.differences:
        print("warning: the backup's local sign-in key was not restored; pass --key-path")
    heading = f"verify found {len(result.differences)} differences:"
    status = _verdict(
        result.differences, heading, "verify: the restored system matches the manifest"
    )
    if status == 0 and result.migrated_to:
        print(f"database migrated to {result.migrated_to}")
    return status


def register(sub: Any) -> None:
    """Add ``jobs`` and ``backup`` to the ``benchmax`` subcommands."""
    jobs = sub.add_parser("jobs", help="durable jobs and the dead-letter list").add_subparsers(
        dest="jobs", required=True
    )
    listing = jobs.add_parser("list", help="jobs, newest first")
    listing.add_argument("--state", choices=[state.value for state in JobState])
    listing.add_argument("--kind")
    listing.add_argument("--limit", type=int, default=50)
    listing.set_defaults(func=_cmd_jobs_list)
    for name, help_text in (
        ("requeue", "give a dead job fresh attempts"),
        ("discard", "give up on a dead job"),
    ):
        action = jobs.add_parser(name, help=help_text)
        action.add_argument("job_id", type=int)
        action.add_argument("--reason", required=True, help="why (kept in the audit log)")
        action.set_defaults(func=_cmd_jobs_act)

    backup = sub.add_parser("backup", help="back up, verify and restore").add_subparsers(
        dest="backup", required=True
    )
    create = backup.add_parser("create", help="snapshot the database and write a manifest")
    create.add_argument(
        "--format", choices=["auto", "sqlite", "pg_dump", "logical"], default="auto"
    )
    create.set_defaults(func=_cmd_backup_create)

    check = backup.add_parser("verify", help="compare this system with a manifest")
    check.add_argument(
        "manifest", nargs="?", help="manifest key or backup folder (default: newest)"
    )
    check.set_defaults(func=_cmd_backup_verify)

    rebuild = backup.add_parser("restore", help="restore into a new, empty database and storage")
    rebuild.add_argument("manifest", help="manifest key or backup folder in the configured storage")
    rebuild.add_argument("--database-url", required=True, help="an empty database")
    target = rebuild.add_mutually_exclusive_group(required=True)
    target.add_argument("--storage-dir", help="an empty local directory")
    target.add_argument(
        "--s3-bucket",
        help="an empty bucket (credentials from BENCHMAX_S3_ACCESS_KEY_ID and "
        "BENCHMAX_S3_SECRET_ACCESS_KEY)",
    )
    rebuild.add_argument(
        "--key-path",
        default="",
        help="where the backup's local sign-in key goes (default with --storage-dir: "
        "keys/local-issuer.pem beside it)",
    )
    rebuild.add_argument("--s3-endpoint-url", default="")
    rebuild.add_argument("--s3-region", default="")
    rebuild.set_defaults(func=_cmd_backup_restore)
