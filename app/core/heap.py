"""The C heap kept for reuse in a process that reads statements of hundreds of megabytes.

By default glibc gives the top of its heap back to the system once more than a few hundred
KiB lie free there, and asks for it again at the next allocation, each page faulted in and
zeroed anew. Reading a million-record statement (a quarter of a megabyte at a time, each
piece copied, decoded and freed) faulted about 60,000 pages in: a tenth of a second of the
window's thread. From the first statement read on, up to ``KEPT_FREE`` stays for reuse,
and only blocks of ``OWN_PAGES_FROM`` and more get pages of their own (the columns' arrays,
which grow in place). The peak memory of the load moved by about 1 MB. A forked copy doing
one piece of work gets its large blocks from the heap again (`reuse_large_blocks`). Elsewhere
than on Linux's glibc nothing is changed."""

from __future__ import annotations

import sys

KEPT_FREE = 64 * 1024 * 1024  # bytes free at the heap's top not given back (M_TRIM_THRESHOLD)
OWN_PAGES_FROM = 1024 * 1024  # bytes from which a block is mapped apart (M_MMAP_THRESHOLD)
# in a forked copy: glibc's own greatest threshold on 64 bits (DEFAULT_MMAP_THRESHOLD_MAX)
OWN_PAGES_IN_A_COPY_FROM = 32 * 1024 * 1024
_M_TRIM_THRESHOLD = -1  # glibc's <malloc.h>
_M_MMAP_THRESHOLD = -3


_made: bool | None = None  # the settings made or not, once asked for


def keep_freed_memory() -> bool:
    """Whether the heap's settings are made (glibc only); made once, when first asked for (the
    first statement read), not on the way to the window."""
    global _made
    if _made is None:
        _made = _settings_made(
            ((_M_TRIM_THRESHOLD, KEPT_FREE), (_M_MMAP_THRESHOLD, OWN_PAGES_FROM))
        )
    return _made


def reuse_large_blocks() -> bool:
    """In a forked copy doing one piece of work (a sort's keys, a part of the sort): blocks
    of up to ``OWN_PAGES_IN_A_COPY_FROM`` come from the heap, and those freed are reused. The
    window's threshold (`keep_freed_memory`), inherited, mapped each block of a megabyte or
    more apart and faulted its pages in anew: half the page faults of a million rows' sort
    keys, and a fifth of their time. Whether the setting is made (glibc only)."""
    return _settings_made(((_M_MMAP_THRESHOLD, OWN_PAGES_IN_A_COPY_FROM),))


def _settings_made(settings: tuple[tuple[int, int], ...]) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: nothing that reads no statement waits for it

    try:
        mallopt = ctypes.CDLL(None).mallopt  # glibc's, in the process already
    except (AttributeError, OSError):  # another C library
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 when it took the setting
    return all(mallopt(option, value) for option, value in settings)
