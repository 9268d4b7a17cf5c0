"""Small line charts drawn on the server as inline SVG: no script and nothing fetched, so a
chart is in the page's state as one string and reads the same in light and dark mode."""

from __future__ import annotations

from html import escape

# Chart colours come from the theme, so the same SVG reads in light and dark mode.
CHART_COLORS = ("var(--accent-9)", "var(--orange-9)", "var(--red-9)", "var(--green-9)")
_W, _H, _PAD_L, _PAD_B, _PAD_T = 600, 170, 44, 22, 24


def line_chart_svg(label: str, times: list[str], series: list[tuple[str, list[float]]]) -> str:
    """A small line chart as inline SVG, drawn on the server: no script, nothing fetched.

    ``times`` label the x axis (first and last are printed); each series is (name, values)
    with one value per time. ``label`` is what a screen reader hears for the whole chart.
    """
    top = max([1.0, *(v for _name, values in series for v in values)])
    plot_w, plot_h = _W - _PAD_L - 8, _H - _PAD_B - _PAD_T
    count = max(len(times), 1)

    def x(i: int) -> float:
        return _PAD_L + (plot_w * i / (count - 1) if count > 1 else plot_w / 2)

    def y(v: float) -> float:
        return _PAD_T + plot_h - plot_h * v / top

    parts = [
        f'<svg viewBox="0 0 {_W} {_H}" width="100%" role="img" aria-label="{escape(label)}" '
        'style="max-width:100%;height:auto;font-size:11px;fill:currentColor">',
        f'<line x1="{_PAD_L}" y1="{_PAD_T + plot_h}" x2="{_W - 8}" y2="{_PAD_T + plot_h}" '
        'style="stroke:var(--gray-8)"/>',
        f'<text x="{_PAD_L - 6}" y="{_PAD_T + 4}" text-anchor="end">{top:g}</text>',
        f'<text x="{_PAD_L - 6}" y="{_PAD_T + plot_h}" text-anchor="end">0</text>',
    ]
    if times:
        parts.append(f'<text x="{_PAD_L}" y="{_H - 6}">{escape(times[0])}</text>')
        parts.append(
            f'<text x="{_W - 8}" y="{_H - 6}" text-anchor="end">{escape(times[-1])}</text>'
        )
    for index, (name, values) in enumerate(series):
        color = CHART_COLORS[index % len(CHART_COLORS)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(
            f'<polyline points="{points}" style="fill:none;stroke:{color};stroke-width:2"/>'
        )
        legend_x = _PAD_L + index * 110
        parts.append(
            f'<rect x="{legend_x}" y="4" width="10" height="10" style="fill:{color}"/>'
            f'<text x="{legend_x + 14}" y="13">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
