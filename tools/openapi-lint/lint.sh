#!/usr/bin/env bash
# Write the OpenAPI document from the live routes and lint it with the pinned Redocly CLI
# (`make lint` and the pre-commit hook run this). Exits non-zero on any error.
set -euo pipefail
# No update check or telemetry: the lint reads only the document it is given.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
document="$(mktemp --suffix=.json)"
trap 'rm -f "$document"' EXIT
cd "$root"
.venv/bin/python -m benchmax.api.openapi "$document"
"$here/node_modules/.bin/redocly" lint "$document" --config "$here/redocly.yaml" --format=summary
