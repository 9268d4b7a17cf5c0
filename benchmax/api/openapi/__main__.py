"""``python -m benchmax.api.openapi [FILE]``: write the OpenAPI document of ``build_api``'s
routes (to stdout without a file), for linters that read a file. Nothing reaches a database:
the routes are built on a context of throw-away settings."""

from __future__ import annotations

import json
import sys
import tempfile

from benchmax.api import build_api
from benchmax.api.openapi.document import build_document
from benchmax.context import AppContext
from benchmax.settings import Settings


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(_env_file=None, env="test", data_dir=data_dir)
        routes = build_api(AppContext.from_settings(settings)).routes
        document = build_document(routes, settings.app_origin)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if argv:
        with open(argv[0], "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
