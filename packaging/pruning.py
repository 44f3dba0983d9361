"""What the Linux build leaves out: the Qt plugins the desk never loads, then every library
that nothing kept needs any more.

PyInstaller collects every Qt plugin the wheel has and, with each, the system libraries it
links: the GTK theme alone brings cairo, pango, ATK and their kin (about 6 MB), although it
loads the system's GTK against them — a mix that breaks when the two disagree. The desk runs
on X11 or Wayland (and offscreen in tests); it shows PNG and SVG icons; it has no use for
VNC, the Linux framebuffer, Vulkan displays, touch-screen or tablet input, nor for images in
JPEG, TIFF, WebP, GIF, ICNS, TGA or WBMP. Qt's own file dialog replaces GTK's.

A library stays when a kept extension module, plugin or libpython needs it, directly or
through another kept library: each file's needs are read from its ELF dynamic section.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path

UNUSED_PLUGINS = (
    "plugins/generic/",
    "plugins/egldeviceintegrations/",
    "plugins/platforms/libqvnc",
    "plugins/platforms/libqlinuxfb",
    "plugins/platforms/libqvkkhrdisplay",
    "plugins/platforms/libqeglfs",
    "plugins/platforms/libqminimalegl",
    "plugins/platformthemes/libqgtk3",
    "plugins/imageformats/libqjpeg",
    "plugins/imageformats/libqtiff",
    "plugins/imageformats/libqwebp",
    "plugins/imageformats/libqgif",
    "plugins/imageformats/libqicns",
    "plugins/imageformats/libqtga",
    "plugins/imageformats/libqwbmp",
)
_DT_NEEDED, _DT_STRTAB, _PT_LOAD, _PT_DYNAMIC = 1, 5, 1, 2

Entry = tuple[str, str, str]  # PyInstaller's (name in the bundle, source, kind)


def needed(path: str | Path) -> list[str]:
    """The libraries an ELF64 little-endian file names as needed (DT_NEEDED), in order."""
    elf = Path(path).read_bytes()
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    phoff = struct.unpack_from("<Q", elf, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        header = phoff + i * phentsize
        kind = struct.unpack_from("<I", elf, header)[0]
        offset, address, _physical, size = struct.unpack_from("<QQQQ", elf, header + 8)
        if kind == _PT_LOAD:
            loads.append((address, offset, size))
        elif kind == _PT_DYNAMIC:
            dynamic = (offset, size)
    if dynamic is None:
        return []
    entries = [struct.unpack_from("<qQ", elf, at) for at in range(dynamic[0], sum(dynamic), 16)]
    strtab = next(value for tag, value in entries if tag == _DT_STRTAB)
    base = next(
        offset + strtab - address
        for address, offset, size in loads
        if address <= strtab < address + size
    )
    return [
        elf[base + value : elf.index(b"\0", base + value)].decode()
        for tag, value in entries
        if tag == _DT_NEEDED
    ]


def _is_root(entry: Entry) -> bool:
    """What Python or Qt loads by itself: extension modules, plugins, libpython."""
    name, _source, kind = entry
    return kind == "EXTENSION" or "/plugins/" in name or Path(name).name.startswith("libpython")


def pruned(binaries: Iterable[Entry]) -> list[Entry]:
    """The entries kept: the unused plugins out, then the libraries nothing kept needs."""
    entries = [
        entry
        for entry in binaries
        if not any(part in entry[0].replace("\\", "/") for part in UNUSED_PLUGINS)
    ]
    by_name = {Path(entry[0]).name: entry for entry in entries}
    reached: set[str] = set()
    waiting = [entry for entry in entries if _is_root(entry)]
    while waiting:
        entry = waiting.pop()
        if entry[0] in reached:
            continue
        reached.add(entry[0])
        for library in needed(entry[1]):
            if library in by_name:
                waiting.append(by_name[library])
    return [entry for entry in entries if entry[0] in reached]
