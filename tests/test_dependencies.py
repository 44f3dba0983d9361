"""Every library the project imports is named in pyproject.toml: one that only came with
another (psutil with pgserver, werkzeug with openapi-core) goes the day that one stops
bringing it, and a fresh `make test` or `make run` then fails."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OWN = {"app", "bench", "tests", "packaging", "conftest"}


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def _declared(*extras: str) -> set[str]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    return {_name(requirement) for requirement in requirements}


def _imported(folder: str) -> dict[str, str]:
    """Each top-level module imported from outside the project and the standard library,
    with a file that imports it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in OWN:
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def _undeclared(folder: str, declared: set[str]) -> dict[str, str]:
    providers = importlib.metadata.packages_distributions()
    return {
        module: where
        for module, where in _imported(folder).items()
        if not {_name(each) for each in providers.get(module, [module])} & declared
    }


def test_the_app_imports_only_what_it_declares():
    # the tester's kit (app/testing) runs on its `testing` extra
    assert _undeclared("app", _declared("testing")) == {}


def test_the_tests_and_the_bench_import_only_what_the_dev_extra_adds():
    for folder in ("tests", "bench"):
        assert _undeclared(folder, _declared("testing", "dev")) == {}


def test_packaging_imports_only_what_the_package_extra_adds():
    assert _undeclared("packaging", _declared("testing", "dev", "package")) == {}


def test_an_import_that_only_came_with_another_library_is_caught():
    declared = _declared("testing", "dev") - {"psutil"}
    assert "psutil" in _undeclared("tests", declared)
