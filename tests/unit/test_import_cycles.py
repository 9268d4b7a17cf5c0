"""No import cycles among the product's modules (benchmax, tasks, usercontent_service).

A cycle means neither module can be read, tested or moved without the other; it also makes
start-up order matter. Imports inside functions count too (see ``import_graph``).
"""

from __future__ import annotations

from tests.unit.import_graph import cycles, import_graph


def test_the_finder_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_covers_the_product() -> None:
    graph = import_graph()

    assert "benchmax.runtime.runner" in graph["tasks.run"]
    assert "benchmax.services.moderation.policy" in graph["benchmax.services.moderation.roles"]


def test_no_module_imports_itself_back() -> None:
    assert cycles(import_graph()) == []
