"""Renders resources/icons/partner-desk.svg to the PNG sizes and the Windows .ico the build
uses (run by `make icons`; the results are kept in the repository)."""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256)
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render() -> dict[int, bytes]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    renderer = QSvgRenderer(str(ICONS / "partner-desk.svg"))
    made: dict[int, bytes] = {}
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        made[size] = bytes(data.data())
    del app
    return made


def ico(pngs: dict[int, bytes]) -> bytes:
    """An .ico holding the PNGs as they are (Windows Vista and later read PNG entries)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, png in sorted(pngs.items()):
        side = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(blobs))
        blobs += png
    return header + entries + blobs


def main() -> None:
    pngs = render()
    for size, png in pngs.items():
        (ICONS / f"partner-desk-{size}.png").write_bytes(png)
    (ICONS / "partner-desk.ico").write_bytes(ico(pngs))


if __name__ == "__main__":
    main()
