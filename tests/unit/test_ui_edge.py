"""The UI edge's arrows all point one way, read from the imports (see ``import_graph``).

pages → components → state → presentation, and the JSON API and the first paint beside
them, over services. A text, colour or formatter two of them need lives in
``benchmax.presentation``, which imports none of them; so a state never reaches for a
component, the API never renders a page, and the first paint never loads Reflex to say what
the live page says.
"""

from __future__ import annotations

import pytest

from tests.unit.import_graph import Import, all_imports

PAGES, COMPONENTS, STATE = "benchmax.pages", "benchmax.components", "benchmax.state"
API, FIRST_PAINT, PRESENTATION = "benchmax.api", "benchmax.first_paint", "benchmax.presentation"
# Each package, and what it must never import.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    PAGES: (API, FIRST_PAINT),
    COMPONENTS: (PAGES, API, FIRST_PAINT),
    STATE: (COMPONENTS, PAGES, API, FIRST_PAINT),
    API: (PAGES, COMPONENTS, STATE, FIRST_PAINT),
    FIRST_PAINT: ("reflex", PAGES, COMPONENTS, STATE, API),
    PRESENTATION: ("reflex", PAGES, COMPONENTS, STATE, API, FIRST_PAINT, "benchmax.context"),
}


def _under(name: str, root: str) -> bool:
    return name == root or name.startswith(root + ".")


def breaches(imports: list[Import]) -> list[str]:
    return [
        f"{found.where()} imports {found.target}"
        for found in imports
        for package, forbidden in FORBIDDEN.items()
        if _under(found.module, package) and any(_under(found.target, f) for f in forbidden)
    ]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_arrow_runs_back_up(package: str) -> None:
    imports = all_imports(package.replace(".", "/"))

    assert imports, f"the scan found nothing in {package}"
    assert breaches(imports) == []


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("benchmax.state.operations", "benchmax.components.dashboard"),
        ("benchmax.pages.security", "benchmax.api.security_txt"),
        ("benchmax.first_paint.cards", "benchmax.pages.feed"),
        ("benchmax.api.feeds", "benchmax.state.views.listed"),
        ("benchmax.presentation.colours", "reflex"),
    ],
)
def test_the_rule_sees_a_breach(module: str, target: str) -> None:
    assert breaches([Import(module, target, (), 1)]) != []


def test_the_rule_allows_the_way_down() -> None:
    allowed = [
        Import("benchmax.pages.feed", "benchmax.components.cards", (), 1),
        Import("benchmax.components.cards", "benchmax.state.views.listed", (), 1),
        Import("benchmax.state.views.listed", "benchmax.presentation.colours", (), 1),
        Import("benchmax.first_paint.cards", "benchmax.presentation.texts", (), 1),
        Import("benchmax.apiary", "benchmax.pages", (), 1),  # a name that only starts alike
    ]

    assert breaches(allowed) == []
