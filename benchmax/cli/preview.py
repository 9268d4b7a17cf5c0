"""``benchmax preview build-template``: build the E2B template from the evaluator's files.
``benchmax preview redact-results``: pass stored results through the derived-text gate.

Prints, and stores under ``private/preview/templates/``, what was built: template id, build
id and the template hash of the files it was built from, so an operator can check that the
template in ``BENCHMAX_E2B_TEMPLATE_ID`` is the one whose hash every result records.
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmax.adapters.storage import PRIVATE_PREFIX

RECORD_PREFIX = f"{PRIVATE_PREFIX}preview/templates/"
# Chromium's browser and renderer processes each get one.
TEMPLATE_CPUS = 2


def _cmd_build_template(args: argparse.Namespace) -> int:
    from e2b import Template

    from benchmax.adapters.sandbox import EVALUATOR_DIR, TEMPLATE, template_hash

    settings = args.context().settings
    if settings.e2b_api_key is None:
        print("error: set BENCHMAX_E2B_API_KEY first", file=sys.stderr)
        return 1
    digest = template_hash()
    options = {"api_key": settings.e2b_api_key.get_secret_value()}
    if settings.e2b_api_url:
        options["api_url"] = settings.e2b_api_url
    template = Template(file_context_path=str(EVALUATOR_DIR)).from_dockerfile(
        str(EVALUATOR_DIR / "e2b.Dockerfile")
    )
    # The microVM's memory is the preview's memory limit (see adapters/sandbox/e2b.py).
    info = Template.build(
        template,
        f"benchmax-{TEMPLATE}:{digest[:12]}",
        cpu_count=TEMPLATE_CPUS,
        memory_mb=settings.preview_memory_mib,
        **options,
    )
    record = {
        "template": TEMPLATE,
        "template_hash": digest,
        "template_id": info.template_id,
        "build_id": info.build_id,
        "name": info.name,
        "cpu_count": TEMPLATE_CPUS,
        "memory_mb": settings.preview_memory_mib,
    }
    body = json.dumps(record, sort_keys=True).encode()
    args.context().storage.put(f"{RECORD_PREFIX}{digest}.json", [body])
    print(json.dumps(record, indent=2, sort_keys=True))
    print(f"set BENCHMAX_E2B_TEMPLATE_ID={info.template_id}")
    return 0


def _cmd_redact_results(args: argparse.Namespace) -> int:
    from benchmax.services.preview.backfill import redact_stored_results

    rewritten = redact_stored_results(args.context().jobs)
    print(f"{rewritten} preview results held a credential and were rewritten redacted")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    preview = sub.add_parser("preview", help="the automated preview").add_subparsers(
        dest="preview", required=True
    )
    preview.add_parser(
        "build-template", help="build the E2B template from sandbox/browser-web-v1"
    ).set_defaults(func=_cmd_build_template)
    preview.add_parser(
        "redact-results",
        help="remove credentials from preview results stored before they were redacted",
    ).set_defaults(func=_cmd_redact_results)
