"""What the browser itself measures about a page, shared by the browser tests and
``bench/pageload.py`` so both count layout shift the same way."""

from __future__ import annotations

# Cumulative layout shift since navigation (shifts right after input excluded, as the metric
# defines), read once the page has had ``settle`` milliseconds to finish moving.
LAYOUT_SHIFT = """settle => new Promise(resolve => {
  let total = 0;
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) total += entry.value;
  }).observe({type: 'layout-shift', buffered: true});
  setTimeout(() => resolve(total), settle);
})"""
