"""The build's trimming tools (packaging/), on the libraries of this environment: ICU's data
library cut down still serves the items kept and reports the others missing; a Qt plugin
left out takes with it the libraries only it needed."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import PySide6
import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = Path(PySide6.__file__).parent / "Qt"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF files")


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "packaging" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NAMES = ("UTF-8", "windows-1252", "ISO-8859-1", "Shift_JIS", "KOI8-R")
# in a process of its own: this one has Qt's ICU loaded already, which the loader would reuse
OPEN_CONVERTERS = """
import ctypes, sys
uc = ctypes.CDLL(sys.argv[1])
version = sys.argv[2]
opened = getattr(uc, "ucnv_open_" + version)
opened.restype = ctypes.c_void_p
for name in sys.argv[3:]:
    error = ctypes.c_int(0)
    print(name, "opened" if opened(name.encode(), ctypes.byref(error)) else "missing")
"""


def test_icu_data_trimmed_keeps_the_converters_named_and_only_them(tmp_path: Path) -> None:
    icu_data = _tool("icu_data")
    (data_library,) = (QT / "lib").glob("libicudata.so.*")
    (common,) = (QT / "lib").glob("libicuuc.so.*")
    copy = icu_data.trimmed_copy(data_library, tmp_path)
    shutil.copy(common, tmp_path / common.name)
    assert copy.stat().st_size < data_library.stat().st_size / 8
    kept = icu_data.items(icu_data.common_data(copy.read_bytes()))
    assert all(icu_data.KEEP.fullmatch(name.split("/", 1)[1]) for name in kept)
    assert any(name.endswith("/cnvalias.icu") for name in kept)

    version = data_library.name.rsplit(".", 1)[1]
    opened = subprocess.run(
        [sys.executable, "-c", OPEN_CONVERTERS, str(tmp_path / common.name), version, *NAMES],
        capture_output=True,
        text=True,
        check=True,
    )
    assert opened.stdout.splitlines() == [
        "UTF-8 opened",
        "windows-1252 opened",
        "ISO-8859-1 opened",
        "Shift_JIS missing",
        "KOI8-R missing",
    ]


def test_icu_data_rebuilt_whole_is_the_same_data() -> None:
    icu_data = _tool("icu_data")
    (data_library,) = (QT / "lib").glob("libicudata.so.*")
    data = icu_data.common_data(data_library.read_bytes())
    again = icu_data.trimmed(data, lambda _name: True)
    assert icu_data.items(again) == icu_data.items(data)


def test_a_plugin_left_out_takes_the_libraries_only_it_needed() -> None:
    pruning = _tool("pruning")
    gui = QT / "lib" / "libQt6Gui.so.6"
    network = QT / "lib" / "libQt6Network.so.6"
    assert "libQt6Core.so.6" in pruning.needed(gui)
    vnc = QT / "plugins" / "platforms" / "libqvnc.so"
    assert "libQt6Network.so.6" in pruning.needed(vnc)
    offscreen = QT / "plugins" / "platforms" / "libqoffscreen.so"
    entries = [
        ("PySide6/Qt/plugins/platforms/libqvnc.so", str(vnc), "BINARY"),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", str(offscreen), "BINARY"),
        ("PySide6/Qt/lib/libQt6Network.so.6", str(network), "BINARY"),
        ("PySide6/Qt/lib/libQt6Gui.so.6", str(gui), "BINARY"),
        ("PySide6/Qt/lib/libQt6Core.so.6", str(QT / "lib" / "libQt6Core.so.6"), "BINARY"),
    ]
    kept = [name for name, _source, _kind in pruning.pruned(entries)]
    assert kept == [
        "PySide6/Qt/plugins/platforms/libqoffscreen.so",
        "PySide6/Qt/lib/libQt6Gui.so.6",
        "PySide6/Qt/lib/libQt6Core.so.6",
    ]
