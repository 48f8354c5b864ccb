"""The arrows of the layout, checked on the source: the plug-in core imports
nothing of the server, skills never import the server, what a client's tests
import never imports the server in-process, and the server has no import cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import ROOT

ROOTS = (ROOT / "app", ROOT / "skills")
PACKAGE = "magisterium_a2a"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in ROOTS:
        for path in sorted((root / PACKAGE).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every project module ``name`` imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    return {t for t in targets if t in MODULES and t != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_walk_sees_the_whole_tree() -> None:
    assert "magisterium_a2a.plugin" in GRAPH
    assert "magisterium_a2a.server.rpc" in GRAPH
    assert "magisterium_a2a.skills.engines" in GRAPH
    assert "magisterium_a2a.testing.pytest_plugin" in GRAPH
    assert "magisterium_a2a.server.identity" in GRAPH["magisterium_a2a.server.auth"]


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("magisterium_a2a.plugin", ("magisterium_a2a.server", "magisterium_a2a.skills")),
        ("magisterium_a2a.skills", ("magisterium_a2a.server", "magisterium_a2a.testing")),
        ("magisterium_a2a.testing", ("magisterium_a2a.server", "magisterium_a2a.skills")),
    ],
)
def test_arrows_point_one_way(layer: str, forbidden: tuple[str, ...]) -> None:
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if name == layer or name.startswith(layer + ".")
        for target in targets
        if target.startswith(forbidden)
    )
    assert wrong == []


def test_identity_is_a_leaf() -> None:
    assert GRAPH["magisterium_a2a.server.identity"] == set()


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_among_modules() -> None:
    # A package's __init__ re-exporting its submodules is not a cycle of concepts.
    graph = {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in GRAPH.items()
    }
    assert _cycle(graph) is None


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
