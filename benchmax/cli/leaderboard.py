"""``benchmax leaderboard ...`` and ``benchmax prompts index``: the showcase from a shell.

``snapshot`` builds, signs and publishes a snapshot now, in this process (no worker needed);
``verify ID`` recomputes a snapshot's seal from its stored policy, rows and predecessor,
checks its signature and the chain, and exits 1 when any fails; ``keygen`` prints a new
signing key pair; ``rotate-key`` prints the old key's hand-over to a new one; ``policy
show|set`` reads or appends the ranking policy. Registered on the main parser by
``benchmax.cli.main.build_parser``.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time

from benchmax.cli.output import fail


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from benchmax.services.errors import ServiceError
    from benchmax.services.leaderboard.signing import signing_key
    from benchmax.services.leaderboard.snapshots import build_snapshot

    ctx = args.context()
    try:
        key = signing_key(ctx.settings)
    except ServiceError as exc:
        return fail(exc)
    with ctx.session() as session:
        request_key = f"cli:{time.time_ns()}:{secrets.token_hex(4)}"
        snapshot = build_snapshot(session, request_key, key)
        if snapshot is None:
            print("nothing published: no Test is eligible yet (public, reviewed, not held)")
            return 0
        print(f"snapshot {snapshot.id} published: {snapshot.row_count} rows")
        print(f"sha256 {snapshot.sha256}")
        print(f"signed by key {key.fingerprint}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from benchmax.services.errors import ServiceError
    from benchmax.services.leaderboard.signing import signing_key
    from benchmax.services.leaderboard.snapshots import SnapshotNotFoundError, verify_snapshot

    ctx = args.context()
    try:
        trusted = signing_key(ctx.settings).public_hex
        with ctx.session() as session:
            result = verify_snapshot(session, args.snapshot_id, trusted)
    except SnapshotNotFoundError:
        return fail(f"no published snapshot {args.snapshot_id}")
    except ServiceError as exc:
        return fail(exc)
    signature = "unsigned (published before chaining)"
    if result.signed:
        signature = "signature OK" if result.signature_ok else "signature INVALID"
    if result.ok:
        print(f"snapshot {result.snapshot_id}: OK, {result.row_count} rows, {signature}")
        print(f"sha256 {result.computed_sha256}")
        return 0
    problems = []
    if not result.rows_ok:
        problems.append(
            f"rows MISMATCH — stored sha256 {result.stored_sha256}, recomputed "
            f"{result.computed_sha256} ({result.row_count} rows, "
            f"{result.stored_row_count} recorded)"
        )
    if not result.signature_ok:
        problems.append(signature)
    if result.chain_broken_at:
        problems.append(f"chain BROKEN at snapshot {result.chain_broken_at}")
    print(f"snapshot {result.snapshot_id}: " + "; ".join(problems), file=sys.stderr)
    return 1


def _cmd_keygen(_args: argparse.Namespace) -> int:
    from benchmax.services.leaderboard.signing import fingerprint, new_key_pair

    private_hex, public_hex = new_key_pair()
    print(f"BENCHMAX_LEADERBOARD_SIGNING_KEY={private_hex}")
    print(f"# public key {public_hex}")
    print(f"# fingerprint {fingerprint(public_hex)}")
    return 0


def _cmd_rotate_key(args: argparse.Namespace) -> int:
    from benchmax.services.errors import ServiceError
    from benchmax.services.leaderboard.signing import private_key_from_hex, rotation_statement

    try:
        old = private_key_from_hex(sys.stdin.readline())
        statement = rotation_statement(old, args.new_public_key.strip())
    except ServiceError as exc:
        return fail(exc)
    print(f"BENCHMAX_LEADERBOARD_KEY_ROTATION={statement}")
    return 0


def _cmd_policy_show(args: argparse.Namespace) -> int:
    from benchmax.services.leaderboard.policy import current_policy

    with args.context().session() as session:
        policy = current_policy(session)
    print(
        f"policy v{policy.version}: {policy.formula}, m = {policy.prior_weight}, "
        f"C = {policy.prior_mean_rule}; review kinds {', '.join(policy.review_kinds)}; "
        f"AI judge snapshots {', '.join(policy.judge_snapshot_ids) or 'none'}"
    )
    return 0


def _cmd_policy_set(args: argparse.Namespace) -> int:
    from benchmax.services.leaderboard.policy import PolicyError, set_policy

    try:
        with args.context().session() as session:
            policy = set_policy(
                session,
                args.review_kinds.split(","),
                args.judge_snapshots.split(","),
                args.prior_weight,
                "operator-cli",
            )
    except PolicyError as exc:
        return fail(exc)
    print(f"policy v{policy.version} recorded; the next snapshot applies it")
    return 0


def _cmd_prompts_index(args: argparse.Namespace) -> int:
    from benchmax.services.prompts.similar import index_prompts

    with args.context().session() as session:
        count = index_prompts(session, limit=10**9)
    print(f"{count} prompts added to the similar-prompts index")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    board = sub.add_parser("leaderboard", help="showcase snapshots").add_subparsers(
        dest="leaderboard", required=True
    )
    board.add_parser("snapshot", help="build and publish a snapshot now").set_defaults(
        func=_cmd_snapshot
    )
    verify = board.add_parser("verify", help="check a snapshot's rows, signature and chain")
    verify.add_argument("snapshot_id")
    verify.set_defaults(func=_cmd_verify)
    board.add_parser("keygen", help="print a new snapshot signing key pair").set_defaults(
        func=_cmd_keygen
    )
    rotate = board.add_parser(
        "rotate-key", help="the old key (read from stdin) hands over to a new public key"
    )
    rotate.add_argument("new_public_key", help="the new key's public key, 64 hex digits")
    rotate.set_defaults(func=_cmd_rotate_key)
    policy = board.add_parser("policy", help="the ranking policy").add_subparsers(
        dest="policy", required=True
    )
    policy.add_parser("show", help="print the current policy").set_defaults(func=_cmd_policy_show)
    change = policy.add_parser("set", help="record a new policy version")
    change.add_argument("--review-kinds", default="ai,admin,human")
    change.add_argument("--judge-snapshots", default="", help="comma-separated judge snapshot ids")
    change.add_argument("--prior-weight", type=int, default=3, help="m in the formula")
    change.set_defaults(func=_cmd_policy_set)

    prompts = sub.add_parser("prompts", help="comparison groups").add_subparsers(
        dest="prompts", required=True
    )
    prompts.add_parser("index", help="sign every unindexed public prompt").set_defaults(
        func=_cmd_prompts_index
    )
