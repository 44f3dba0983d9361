"""ICU's data library, cut down to what the desk uses (30 MB of it is every locale's names,
calendars, units, time zones, break rules and collations, and 230 character converters).

Qt links ICU for converters, case mapping, collation and normalisation; the desk's own text
is English and UTF-8, and it sorts with Python. The data library is one symbol, icudt73_dat,
holding ICU's "common data": a header, a table of contents sorted by name, then the items.
This keeps the items ``keep`` accepts, writes a new table, and rebuilds the library around it
(a read-only segment with the ELF and dynamic headers and the data, then the .dynamic section)
— no compiler needed. ICU looks an item up by name in the table; an item left out is missing
data, which ICU reports to Qt as an error Qt already handles (the feature falls back).

The build (packaging/partner-desk.spec) ships a trimmed copy; `python packaging/icu_data.py
LIBRARY` trims a library in place and prints the sizes.
"""

from __future__ import annotations

import itertools
import re
import struct
import sys
from collections.abc import Callable
from pathlib import Path

# the items kept: the converter aliases and the converters Qt names (UTF, Latin-1, ASCII,
# the Windows code pages), the root locale, English, the Unicode properties and the
# normalisation data (the case maps and NFC are built into libicuuc itself)
KEEP = re.compile(
    r"""(
        cnvalias\.icu | .*\.spp | .*\.nrm | .*\.cfu | .*\.icu
      | (ibm-|windows-)(1252|5348|437|850)[^/]*\.cnv | iso-8859_1-.*\.cnv
      | (res_index|root|en|en_US|en_GB|en_001|en_150|pool)\.res
      | (coll|brkitr|curr|lang|region|zone|unit|rbnf)/(res_index|root|en|en_US|pool)\.res
      | coll/ucadata\.icu
    )$""",
    re.VERBOSE,
)
_PAGE = 0x1000


def _elf(library: bytes) -> dict[str, int]:
    """The facts of the ELF64 little-endian file this tool rewrites."""
    if library[:4] != b"\x7fELF" or library[4] != 2 or library[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    phoff, shoff = struct.unpack_from("<QQ", library, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", library, 0x36)
    return {
        "phoff": phoff,
        "phnum": phnum,
        "phentsize": phentsize,
        "shoff": shoff,
        "shnum": shnum,
        "shentsize": shentsize,
        "shstrndx": shstrndx,
    }


def _sections(library: bytes) -> dict[str, tuple[int, int, int, int]]:
    """Each section's name → (header offset, file offset, address, size)."""
    elf = _elf(library)
    headers = [elf["shoff"] + i * elf["shentsize"] for i in range(elf["shnum"])]
    names_at = struct.unpack_from("<Q", library, headers[elf["shstrndx"]] + 0x18)[0]
    sections = {}
    for header in headers:
        name_offset = struct.unpack_from("<I", library, header)[0]
        end = library.index(b"\0", names_at + name_offset)
        name = library[names_at + name_offset : end].decode()
        address, offset, size = struct.unpack_from("<QQQ", library, header + 0x10)
        sections[name] = (header, offset, address, size)
    return sections


def common_data(library: bytes) -> bytes:
    """The data the symbol icudt…_dat holds: the whole .rodata section."""
    _header, offset, _address, size = _sections(library)[".rodata"]
    data = library[offset : offset + size]
    if data[2:4] != b"\xda\x27" or b"CmnD" not in data[:64]:
        raise ValueError("the library's .rodata is not ICU common data")
    return data


def items(data: bytes) -> dict[str, bytes]:
    """The common data's items by name, in table order."""
    header_size = struct.unpack_from("<H", data, 0)[0]
    table = data[header_size:]
    count = struct.unpack_from("<I", table, 0)[0]
    entries = [struct.unpack_from("<II", table, 4 + 8 * i) for i in range(count)]
    starts = [*sorted(start for _name, start in entries), len(table)]
    ends = dict(itertools.pairwise(starts))
    found = {}
    for name_at, start in entries:
        name = table[name_at : table.index(b"\0", name_at)].decode("ascii")
        found[name] = table[start : ends[start]]
    return found


def trimmed(data: bytes, keep: Callable[[str], bool]) -> bytes:
    """The common data with only the items whose name (without the package prefix) ``keep``
    accepts: the same header, a new table of contents, the items 16-byte aligned."""
    header_size = struct.unpack_from("<H", data, 0)[0]
    kept = {name: item for name, item in items(data).items() if keep(name.split("/", 1)[1])}
    names = sorted(kept)  # ICU finds an item by a binary search of the names
    table_size = 4 + 8 * len(names)
    name_bytes = b"".join(name.encode("ascii") + b"\0" for name in names)
    name_offsets, at = [], table_size
    for name in names:
        name_offsets.append(at)
        at += len(name) + 1
    at = (at + 15) & ~15
    body, item_offsets = bytearray(), []
    for name in names:
        item_offsets.append(at + len(body))
        body += kept[name]
        body += b"\0" * (-len(body) % 16)
    table = struct.pack("<I", len(names)) + b"".join(
        struct.pack("<II", name_at, item_at)
        for name_at, item_at in zip(name_offsets, item_offsets, strict=True)
    )
    table += name_bytes
    table += b"\0" * (-(header_size + len(table)) % 16)
    return data[:header_size] + table + bytes(body)


def with_data(library: bytes, data: bytes) -> bytes:
    """The library rebuilt with ``data`` as its .rodata (and its symbol's size): the first
    segment ends with the data; .dynamic follows, on the next page at the same offset within
    it as the linker places it; then the sections not loaded (symbol names, section names)
    and the section headers."""
    elf = _elf(library)
    sections = _sections(library)
    _h, rodata_at, rodata_address, rodata_size = sections[".rodata"]
    _h, dynamic_at, _a, dynamic_size = sections[".dynamic"]
    if rodata_at != rodata_address or dynamic_at < rodata_at + rodata_size:
        raise ValueError("the library's layout is not the one this tool rewrites")
    data_end = rodata_at + len(data)
    out = bytearray(library[:rodata_at]) + data
    out += b"\0" * (-len(out) % 16)
    new_dynamic_at = len(out)
    new_dynamic_address = new_dynamic_at + _PAGE
    out += library[dynamic_at : dynamic_at + dynamic_size]
    placed: dict[int, tuple[int, int]] = {}  # a section header's offset → (offset, address)
    for name, (header, offset, _address, size) in sections.items():
        kind, flags = struct.unpack_from("<IQ", library, header + 4)
        alignment = struct.unpack_from("<Q", library, header + 0x30)[0]
        if offset < rodata_at + rodata_size and (offset < rodata_at or name == ".rodata"):
            continue  # before the data, or the data itself: where it was
        if name == ".dynamic":
            placed[header] = (new_dynamic_at, new_dynamic_address)
        elif not flags & 2:  # not loaded: anywhere after the loaded parts
            out += b"\0" * (-len(out) % max(alignment, 1))
            placed[header] = (len(out), 0)
            if kind != 8:  # NOBITS takes no room in the file
                out += library[offset : offset + size]
        elif size == 0:  # an empty section that ended the data (.eh_frame)
            placed[header] = (data_end, data_end)
        else:
            raise ValueError(f"the library's section {name} is where this tool cannot place it")
    out += b"\0" * (-len(out) % 8)
    new_shoff = len(out)
    out += library[elf["shoff"] : elf["shoff"] + elf["shnum"] * elf["shentsize"]]
    struct.pack_into("<Q", out, 0x28, new_shoff)
    for header, offset, _address, _size in sections.values():
        moved_to = header - elf["shoff"] + new_shoff
        if header == sections[".rodata"][0]:
            struct.pack_into("<Q", out, moved_to + 0x20, len(data))
        if header in placed:
            offset, address = placed[header]
            struct.pack_into("<QQ", out, moved_to + 0x10, address, offset)
    for i in range(elf["phnum"]):
        header = elf["phoff"] + i * elf["phentsize"]
        kind = struct.unpack_from("<I", out, header)[0]
        offset, _address, _physical, file_size = struct.unpack_from("<QQQQ", out, header + 8)
        if offset == dynamic_at and file_size:  # the RW segment, .dynamic, the RELRO
            address = new_dynamic_address
            struct.pack_into("<QQQ", out, header + 8, new_dynamic_at, address, address)
        elif kind == 1 and offset == 0:  # the first (read-only) load segment
            struct.pack_into("<QQ", out, header + 0x20, data_end, data_end)
    for name in (".dynsym", ".symtab"):  # the symbol's size, in both tables
        if name not in sections:
            continue
        header, _o, _a, size = sections[name]
        symbols_at = placed.get(header, (sections[name][1], 0))[0]
        for at in range(symbols_at, symbols_at + size, 24):
            value, symbol_size = struct.unpack_from("<QQ", out, at + 8)
            if value == rodata_address and symbol_size == rodata_size:
                struct.pack_into("<Q", out, at + 16, len(data))
    return bytes(out)


def trimmed_copy(library: Path, folder: Path) -> Path:
    """A copy of the data library in ``folder`` with only the items `KEEP` names."""
    original = library.read_bytes()
    copy = folder / library.name
    folder.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(with_data(original, trimmed(common_data(original), KEEP.fullmatch)))
    return copy


def main(path: str) -> int:
    library = Path(path)
    before = library.stat().st_size
    copy = trimmed_copy(library, library.parent / "trimmed")
    copy.replace(library)
    copy.parent.rmdir()
    print(f"{library.name}: {before / 1e6:.1f} MB → {library.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
