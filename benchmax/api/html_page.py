"""Plain server-rendered HTML for the few reference pages the API serves (``/api``, ``/data``).

Reflex pages render in the browser; these are read by people and tools that fetch the HTML
and want it complete on arrival, with no script at all. Every value is escaped here.
"""

from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse

_STYLE = """
body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1c2024;background:#fcfcfd}
a{color:#0d74ce}
main{display:block;max-width:60rem;margin:0 auto;padding:1.5rem 1rem 4rem}
header,footer{padding:.75rem 1rem}
header{border-bottom:1px solid #e0e1e6}
footer{border-top:1px solid #e0e1e6;font-size:14px}
nav ul{display:flex;gap:1rem;flex-wrap:wrap;list-style:none;margin:0;padding:0}
header a{text-decoration:none}
:focus-visible{outline:2px solid #0d74ce;outline-offset:2px}
.skip{position:absolute;left:-9999px}
.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.5rem}
h1{font-size:1.75rem;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid #e0e1e6}
code,pre{font:14px/1.4 ui-monospace,monospace;background:#f0f0f3;border-radius:4px}
code{padding:.1rem .3rem;overflow-wrap:anywhere}
pre{padding:.75rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{border-bottom:1px solid #e0e1e6;padding:.4rem;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}
.op{border:1px solid #e0e1e6;border-radius:8px;padding:.75rem 1rem;margin:.75rem 0}
.method{font-weight:700;margin-right:.5rem}
.note{color:#60646c}
@media (max-width:600px){table{font-size:13px}th,td{padding:.3rem}}
@media (prefers-color-scheme:dark){
body{color:#edeef0;background:#111113}
a{color:#70b8ff}
:focus-visible{outline-color:#70b8ff}
header,h2,th,td,.op{border-color:#363a3f}
footer{border-color:#363a3f}
code,pre{background:#212225}
.note{color:#b0b4ba}
.skip:focus{background:#111113}
}
"""
_HEADER = (
    '<header><nav aria-label="Main"><ul><li><a href="/"><strong>BenchMax</strong></a></li>'
    '<li><a href="/data">Open data</a></li><li><a href="/api">API</a></li>'
    '<li><a href="/terms">Terms</a></li></ul></nav></header>'
)
_FOOTER = (
    '<footer><nav aria-label="About BenchMax"><ul><li><a href="/methodology">Methodology</a>'
    '</li><li><a href="/privacy">Privacy</a></li><li><a href="/security">Security</a></li>'
    "</ul></nav></footer>"
)


def html_page(title: str, body: str, *, status: int = 200) -> HTMLResponse:
    """A complete page around ``body`` (already escaped HTML) with the site's links."""
    return HTMLResponse(
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)} · BenchMax</title><style>{_STYLE}</style>"
        '<link rel=alternate type="application/atom+xml" title="New Tests on BenchMax" '
        'href="/api/v1/feeds/tests.atom"><meta name="color-scheme" content="light dark">'
        "</head><body>"
        f'<a class=skip href="#main">Skip to content</a>{_HEADER}'
        f"<main id=main tabindex=-1><h1>{escape(title)}</h1>{body}</main>{_FOOTER}</body></html>",
        status_code=status,
        headers={"Cache-Control": "public, max-age=60"},
    )
