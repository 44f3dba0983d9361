"""The window paints before the service layer loads: what the first paint does not need is
imported after it (issue 13's start-up figure). A module-level import of httpx's world in a
module the window needs made the start 2.7 times a bare window's."""

import json
import os
import subprocess
import sys

DEFERRED = [
    "asyncio",
    "httpx",
    "httpcore",
    "pydantic",
    "msgspec",
    "cryptography",
    "keyring",
    "schwifty",
    "app.api.http",
    "app.api.banking",
    "app.sandbox",
]


def printed_by(probe: str) -> object:
    """What the probe printed as JSON, run in a fresh process (its own imports alone)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(result.stdout)


def test_the_modules_of_the_first_paint_load_none_of_the_service_layer():
    probe = (
        "import json, sys\n"
        "import app.cli, app.ui.shell.app, app.ui.shell.main_window\n"
        f"print(json.dumps([m for m in {DEFERRED!r} if m in sys.modules]))\n"
    )
    assert printed_by(probe) == []


def test_the_window_starts_its_sandbox_without_importing_it():
    """The sandbox runs in a child process: the window's process never imports it."""
    probe = (
        "import json, sys\n"
        "import app.cli.gui, app.serving.child\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('app.sandbox')]))\n"
    )
    assert printed_by(probe) == []


def test_imports_after_pyside_s_keep_no_source_text():
    """PySide6 asks of each module imported after it whether its source names PySide6 (by
    inspect.getsource: every file decoded and kept in linecache); the desk has it answered
    from the file's bytes: 45 ms and 5 MB less on the window's way to its first page."""
    probe = (
        "import json, linecache, sys\n"
        "import PySide6.QtCore, app.ui\n"
        "import email.mime.text, xml.dom.minidom, app.api.banking, app.api.models, pydantic\n"
        "imported = [email.mime.text, xml.dom.minidom, app.api.banking, app.api.models, pydantic]\n"
        "print(json.dumps([m.__file__ for m in imported if m.__file__ in linecache.cache]))\n"
    )
    assert printed_by(probe) == []


def test_pyside_s_question_gets_pyside_s_own_answer(tmp_path):
    import types

    import app.ui  # noqa: F401 - PySide6 imported, the question answered the desk's way
    from app.ui import pyside_imports

    feature = sys.modules[pyside_imports._ASKED_BY]
    answered = getattr(feature, pyside_imports._QUESTION)
    pysides = answered.args[0]  # PySide's own, which the desk's falls back on
    assert pysides.__name__ == pyside_imports._QUESTION
    import app.core.money as does_not
    import app.ui.statements.model as names_it

    for module in (names_it, does_not, sys, os, json):
        assert answered(module) == pysides(module), module
    assert answered(names_it) and not answered(does_not)
    gone = types.ModuleType("gone")
    gone.__file__ = str(tmp_path / "gone.py")  # no file there: PySide's answer
    assert answered(gone) == pysides(gone) is False
    assert not pyside_imports.install()  # once only: never wrapped twice


def test_pyside_s_question_is_left_alone_when_its_internals_differ(monkeypatch):
    from app.ui import pyside_imports

    monkeypatch.setattr(pyside_imports, "_ASKED_BY", "no.such.module")
    assert not pyside_imports.install()
    unlike = _module_asking(lambda module: True)
    monkeypatch.setitem(sys.modules, "no.such.module", unlike)
    assert not pyside_imports.install()
    assert unlike._mod_uses_pyside(None)  # as it was


def _module_asking(question):
    import types

    module = types.ModuleType("no.such.module")
    module._mod_uses_pyside = question  # a lambda: not the function this was written for
    return module
