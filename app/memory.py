"""Fewer malloc arenas for the TUI process (glibc).

glibc gives a thread that allocates while another holds the main heap an arena of its own, up
to eight per core. The TUI's workers (catalog, view, lint, filter index, details, body cost)
each allocate from their own arena then, and memory one of them frees is not reused by the
others: at 10,000 skills the peak RSS is ~6 MB higher, and varies from run to run with the
order the threads happened to run in. The workers mostly take turns on the interpreter lock
anyway, so :data:`ARENAS` arenas cost them nothing measurable.
"""

from __future__ import annotations

import sys

__all__ = ["ARENAS", "limit_malloc_arenas"]

#: Most malloc arenas (glibc's ``M_ARENA_MAX``; what ``MALLOC_ARENA_MAX=2`` sets).
ARENAS = 2
_M_ARENA_MAX = -8


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Limit the process to ``arenas`` malloc arenas (``mallopt(M_ARENA_MAX)``); True when the
    C library took it. Only for glibc on Linux (elsewhere, or when the call is not there, this
    does nothing and returns False); never raises. Call before any thread has allocated (the
    limit is read when a thread first needs an arena)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        return bool(mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError, TypeError, ValueError):
        return False
