"""Imports made after PySide6's, without reading each module's source as text.

PySide6 puts its own ``__import__`` in place, which asks of every module imported after it
whether its source names PySide6 (for its opt-in ``__feature__`` switching), and asks by
``inspect.getsource``: each module's file read, decoded and kept in linecache for the life of
the process. On the window's way to its first page that was 270 modules, 45 ms of the GUI
thread and 5 MB of text kept. `install` has the same question answered from the file's bytes,
nothing kept; PySide's own answer where there is no source file to read (built in, compiled,
in an archive, as in the frozen app). Nothing is changed where PySide's internals are not as
this was written for (PySide6 6.11: ``shibokensupport.feature._mod_uses_pyside``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from types import ModuleType

_ASKED_BY = "shibokensupport.feature"  # the module of PySide's question
_QUESTION = "_mod_uses_pyside"


def install() -> bool:
    """Whether the question is now answered from the bytes (once PySide6 is imported)."""
    feature = sys.modules.get(_ASKED_BY)
    question = getattr(feature, _QUESTION, None)
    if not callable(question) or getattr(question, "__name__", None) != _QUESTION:
        return False  # not PySide's as written for, or installed already
    setattr(feature, _QUESTION, partial(_names_pyside, question))
    return True


def _names_pyside(otherwise: Callable[[ModuleType], bool], module: ModuleType) -> bool:
    """PySide's question: whether the module's source holds "PySide6"."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return otherwise(module)
    try:
        with open(path, "rb") as source:
            return b"PySide6" in source.read()
    except OSError:  # not where its name says: PySide finds it, or says no
        return otherwise(module)
