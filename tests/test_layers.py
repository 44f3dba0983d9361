"""The layers point one way (ARCHITECTURE.md): read from the code's own imports, the ones
inside functions and under TYPE_CHECKING too, so a lazy import cannot hide a wrong arrow."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"

#: what each package of app/ may import of the project (besides itself)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "serving": {"core"},
    "api": {"core"},
    "files": {"core", "api"},
    "forms": {"core", "api", "files"},
    "webhooks": {"core", "serving"},
    "sandbox": {"core", "serving"},
    "ui": {"core", "api", "forms", "files", "webhooks"},
    # the tester's kit starts the sandbox's process and drives the window
    "testing": {"core", "api", "forms", "ui", "webhooks", "cli", "serving"},
    "cli": {"core", "api", "forms", "files", "webhooks", "ui", "sandbox", "serving", "testing"},
}
#: packages that must not import Qt (everything below ui, and the CLI until it opens the window)
NO_QT = {"core", "serving", "api", "files", "forms", "webhooks", "sandbox", "testing", "cli"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _graph() -> tuple[dict[str, set[str]], dict[str, Path]]:
    modules = {_module_name(path): path for path in APP.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for imported in _imports(path):
            if imported in modules and imported != name:
                graph[name].add(imported)
        graph.setdefault(name, set())
    return graph, modules


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_each_layer_imports_only_the_layers_below_it():
    graph, _modules = _graph()
    wrong = []
    for module, targets in graph.items():
        layer = _layer(module)
        if layer not in ALLOWED:
            continue
        for target in targets:
            other = _layer(target)
            if other and other != layer and other not in ALLOWED[layer]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


@pytest.mark.parametrize("layer", sorted(NO_QT))
def test_no_qt_below_the_windows(layer):
    with_qt = [
        str(path.relative_to(APP.parent))
        for path in (APP / layer).rglob("*.py")
        if any(name.split(".")[0] == "PySide6" for name in _imports(path))
    ]
    assert with_qt == []


def test_no_import_circle_in_app():
    graph, _modules = _graph()
    # a module imports its package's __init__ when it is imported: that is no circle of ours
    edges = {
        module: {t for t in targets if not module.startswith(f"{t}.")}
        for module, targets in graph.items()
    }
    circles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                circles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)
    assert circles == []
