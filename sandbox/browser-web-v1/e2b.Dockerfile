# The E2B template for browser-web-v1: Debian's Chromium and ffmpeg, Playwright for Python,
# and the evaluator with its pinned axe-core. `benchmax preview build-template` builds it and
# records the template id, build id and the hash of the files it was built from.
FROM debian:12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        chromium ffmpeg python3 python3-venv python3-pil nodejs npm ca-certificates \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv --system-site-packages /opt/venv && /opt/venv/bin/pip install playwright==1.65.2
COPY evaluate.py package.json package-lock.json /opt/evaluator/
RUN cd /opt/evaluator && npm ci --ignore-scripts --no-audit --no-fund
RUN useradd --system --uid 10001 --home /tmp evaluator
USER evaluator
