"""The compiled methods of dataclasses, kept between runs (start-up time; SPEC-neutral).

Python compiles each method ``@dataclass`` generates (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, a frozen class's ``__setattr__`` …) from source text when the class is made: ~350
of them for ``skillshelf index``, ~30 ms of its ~90 ms of imports, and more in the TUI, whose
Textual makes its own. :func:`install` has :mod:`dataclasses` compile each text once per machine
and Python: the text is looked up in a file of code objects (:mod:`marshal`) in skillshelf's cache
directory (each entry unmarshalled when a class needs it: the file holds what every kind of run
made), and compiled on a miss. The text is the key, so a class whose methods differ in any way
gets its own code; the code run is what ``exec`` compiles from that text (file name
``<string>``, no ``__future__`` flags — those of :mod:`dataclasses`, which has none). Texts
compiled by this process are added to the file when it ends (written whole to a new temporary
file, then renamed over the old one; a private folder). The file starts with a mark and the
CRC-32 of the rest, so a damaged one (a flipped bit would run as a class's method) is ignored and
replaced, as is one that cannot be read or holds anything but code by text; only a regular file
is read (a FIFO there never blocks a run). ``--no-cache`` reads and writes no file, as for the
parse cache.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import stat
import sys
import threading
import types
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["MAX_CODES", "code_file", "install"]

#: The most code objects the file keeps; past that, a process writes only the ones it used.
MAX_CODES = 5_000

_lock = threading.RLock()  # (exec holds it while _load takes it too)
#: The first bytes of the file (then the CRC-32 of the rest, 4 bytes little-endian).
_MAGIC = b"skillshelf dataclass code 1\n"


def code_file(environ: Mapping[str, str]) -> str | None:
    """The file of this Python's dataclass code in skillshelf's cache directory
    (``$XDG_CACHE_HOME/skillshelf``, else — unset or relative — ``$HOME/.cache/skillshelf``, as
    the parse cache's);
    ``None`` when that is not an absolute path (no home directory to be found: nothing is
    written in the working directory) and off Linux and other XDG systems (their cache folder
    needs a library to find)."""
    if sys.platform in ("darwin", "win32"):
        return None
    home = environ.get("HOME") or os.path.expanduser("~")
    cache = environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(cache):  # (unset, empty or relative: the XDG specification ignores it)
        cache = os.path.join(home, ".cache")
    if not os.path.isabs(cache):
        return None
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}"
    return os.path.join(cache, "skillshelf", "code", f"dataclasses-{tag}.marshal")


class _Codes:
    """The code objects by text: those of the file (each kept marshalled until a class needs it:
    the file holds what every kind of run made, a run unmarshals only what it uses) and those
    compiled here."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.stored: dict[str, bytes] | None = None  # (read at the first class made)
        self.codes: dict[str, types.CodeType] = {}
        self.new = False

    def _load(self) -> dict[str, bytes]:
        loaded = None
        try:
            fd = os.open(self.file, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:  # (missing, unreadable: made again)
            fd = -1
        if fd >= 0:
            try:
                with os.fdopen(fd, "rb") as fh:
                    data = fh.read() if stat.S_ISREG(os.fstat(fh.fileno()).st_mode) else b""
                head = len(_MAGIC) + 4
                body = memoryview(data)[head:]
                if data[:len(_MAGIC)] == _MAGIC and zlib.crc32(body) == int.from_bytes(data[len(_MAGIC):head], "little"):
                    loaded = marshal.loads(body)
            except Exception:  # (cut short, damaged, another format: made again)
                loaded = None
        stored: dict[str, bytes] = {}
        if isinstance(loaded, dict):
            stored = {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, bytes)}
        with _lock:
            if self.stored is None:
                self.stored = stored
            return self.stored

    def _code(self, source: str) -> types.CodeType:
        code = self.codes.get(source)
        if code is not None:
            return code
        stored = self.stored if self.stored is not None else self._load()
        data = stored.get(source)
        if data is not None:
            try:
                code = marshal.loads(data)
            except Exception:  # (a damaged entry: compiled again)
                code = None
        if not isinstance(code, types.CodeType):
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.new = True
        self.codes[source] = code
        return code

    def exec(self, source: Any, globals: dict[str, Any] | None = None,
             locals: Mapping[str, object] | None = None) -> None:
        """``exec`` as :mod:`dataclasses` calls it, a text's code compiled once."""
        if not isinstance(source, str):
            return builtins.exec(source, globals, locals)
        with _lock:
            code = self._code(source)
        return builtins.exec(code, globals, locals)

    def save(self) -> None:
        """Write the file when this process compiled a text (never raises): what it held, and
        what this process used, unless that makes more than :data:`MAX_CODES` (then only the
        latter)."""
        with _lock:
            if not self.new:
                return
            self.new = False
            used = {k: marshal.dumps(v) for k, v in self.codes.items()}
            stored = self.stored or {}
            entries = {**stored, **used} if len(stored) + len(used) <= MAX_CODES else used
        try:
            from skillshelf.core.paths import write_private

            payload = marshal.dumps(entries)
            write_private(self.file, _MAGIC + zlib.crc32(payload).to_bytes(4, "little") + payload)
        except Exception:  # (a read-only or full disk: the next run compiles again)
            pass


def install(environ: Mapping[str, str], argv: Sequence[str]) -> bool:
    """Have :mod:`dataclasses` take its methods' code from the file (:func:`code_file` of
    ``environ``) from now on, and add what this process compiles at its exit; False (nothing
    done) with ``--no-cache`` in ``argv`` (the command line without the program), where there is
    no such file, or when :mod:`dataclasses` has its own ``exec``. Call it before the modules
    whose classes should benefit are imported."""
    if any(a.startswith("--no-c") for a in argv):
        return False
    file = code_file(environ)
    if file is None or "exec" in vars(dataclasses):
        return False
    codes = _Codes(file)
    setattr(dataclasses, "exec", codes.exec)  # noqa: B010  (a module global: found before the builtin)
    atexit.register(codes.save)
    return True
