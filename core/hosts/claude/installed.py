"""Built-in skill descriptions read from an installed Claude Code, when one can be found.

skillshelf does not ship Claude's prose. The native ``claude`` executable (a Bun-compiled
binary) keeps every string constant of its JavaScript in a bytecode string table: a 32-bit
little-endian length (bit 31 set for Latin-1, clear for UTF-16), 4 bytes of hash, then the
characters. :mod:`.builtins` records, for each built-in skill, how its description is put
together from such strings (their length, encoding and a SHA-256 prefix) and the SHA-256 of the
whole description. :func:`builtin_texts` looks those strings up in the installed binary and
returns only descriptions whose hash matches, so another version can never put a wrong line in
the catalog: a description not found stays unknown (the catalog then shows a sized marker).

Where a Claude is looked for: ``claude`` on ``PATH``, ``$SKILLSHELF_CLIENTS_DIR`` (the test
installation), the native installer's ``~/.local/share/claude/versions/<version>``; an npm
wrapper is followed to its ``@anthropic-ai/claude-code-<platform>/claude`` sibling. Offsets
found are remembered per binary (path, size, mtime) in ``$XDG_CACHE_HOME/skillshelf``; the
first lookup in a binary reads about 20 MB of it (~0.5 s), later ones a few kilobytes.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import mmap
import os
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skillshelf.core.fileread import mapped, read_regular
from skillshelf.core.hosts.claude.builtins import BUILTIN_SKILLS, BuiltinSkill
from skillshelf.core.paths import Environment, write_private

__all__ = ["BuiltinTexts", "builtin_texts", "candidates", "read_texts"]

VERSION = "2.1.332"
_LATIN1 = 0x80000000
#: Bytes searched on each side of the first string found before the whole file is searched.
_WINDOW = 8 * 1024 * 1024
_MIN_BINARY = 10 * 1024 * 1024
_CACHE_NAME = "claude-builtins.json"


@dataclass(frozen=True)
class BuiltinTexts:
    """Verified built-in descriptions by name and where they were read (``origin``, empty when
    none was found)."""

    texts: Mapping[str, str] = field(default_factory=dict)
    origin: str = ""

    def text(self, skill: BuiltinSkill) -> str | None:
        """The exact description of ``skill``, or ``None`` when not available."""
        return self.texts.get(skill.name)


def _native(path: str) -> str | None:
    """The native binary behind ``path`` (itself, or the platform package beside an npm wrapper)."""
    try:
        real = os.path.realpath(path)
        if os.path.isfile(real) and os.path.getsize(real) >= _MIN_BINARY:
            return real
    except OSError:
        return None
    here = os.path.dirname(real)
    for _ in range(4):
        if os.path.basename(here) == "@anthropic-ai":
            for p in sorted(glob.glob(os.path.join(here, "claude-code-*", "claude"))):
                if os.path.isfile(p) and os.path.getsize(p) >= _MIN_BINARY:
                    return p
            return None
        here = os.path.dirname(here)
    return None


def candidates(env: Environment) -> list[str]:
    """Native Claude Code binaries for ``env``, most specific first, each once."""
    found: list[str] = []
    clients = env.get("SKILLSHELF_CLIENTS_DIR")
    paths = [os.path.join(d, "claude") for d in (env.get("PATH") or "").split(os.pathsep) if d]
    if clients:
        paths.insert(0, os.path.join(clients, "claude", "node_modules", ".bin", "claude"))
    paths.append(os.path.join(env.home, ".local", "share", "claude", "versions", VERSION))
    for p in paths:
        if os.access(p, os.X_OK) or os.path.isfile(p):
            native = _native(p)
            if native is not None and native not in found:
                found.append(native)
    return found


def _header(length: int, encoding: str) -> bytes:
    return struct.pack("<I", length | (_LATIN1 if encoding == "latin1" else 0))


def _string_at(data: mmap.mmap, offset: int, length: int, encoding: str) -> str:
    size = length if encoding == "latin1" else 2 * length
    raw = data[offset + 8: offset + 8 + size]
    return raw.decode("latin-1") if encoding == "latin1" else raw.decode("utf-16-le", "replace")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _search(data: mmap.mmap, part: tuple[int, str, str], start: int, end: int) -> int | None:
    length, encoding, prefix = part
    header = _header(length, encoding)
    i = data.find(header, max(0, start), min(len(data), end))
    while i >= 0:
        if _digest(_string_at(data, i, length, encoding)).startswith(prefix):
            return i
        i = data.find(header, i + 1, min(len(data), end))
    return None


def _assemble(data: mmap.mmap, skill: BuiltinSkill, offsets: Sequence[int | None]) -> str | None:
    out: list[str] = []
    k = 0
    for part in skill.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        off = offsets[k] if k < len(offsets) else None
        k += 1
        if off is None:
            return None
        out.append(_string_at(data, off, part[0], part[1]))
    text = "".join(out)
    return text if _digest(text) == skill.sha256 else None


def _locate(data: mmap.mmap, anchor: int | None) -> dict[str, list[int | None]]:
    """Offsets of every stored part, searched near ``anchor`` first, then in the whole file."""
    out: dict[str, list[int | None]] = {}
    for skill in BUILTIN_SKILLS:
        offs: list[int | None] = []
        for part in skill.parts:
            if isinstance(part, str):
                continue
            hit = None
            if anchor is not None:
                hit = _search(data, part, anchor - _WINDOW, anchor + _WINDOW)
            if hit is None:
                hit = _search(data, part, 0, len(data))
            if hit is not None and anchor is None:
                anchor = hit
            offs.append(hit)
        out[skill.name] = offs
    return out


def read_texts(binary: str, offsets: Mapping[str, Sequence[int | None]] | None = None,
               ) -> tuple[dict[str, str], dict[str, list[int | None]]]:
    """(verified descriptions, offsets of their parts) from ``binary``: at the given
    ``offsets`` only, or searched for when ``None``. Never raises for an unreadable file."""
    try:
        with mapped(binary) as data:
            found = _locate(data, None) if offsets is None else {k: list(v) for k, v in offsets.items()}
            texts: dict[str, str] = {}
            for skill in BUILTIN_SKILLS:
                text = _assemble(data, skill, found.get(skill.name) or [])
                if text is not None:
                    texts[skill.name] = text
            return texts, found
    except (OSError, ValueError):
        return {}, {}


def _cache_path(env: Environment) -> str:
    from skillshelf.core.parsecache import default_cache_dir  # (skillshelf's own cache folder)

    return os.path.join(default_cache_dir(env.xdg_cache_home, env.home), _CACHE_NAME)


def _load_cache(path: str) -> dict[str, object]:
    try:
        doc = json.loads(read_regular(path).decode("utf-8"))
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_cache(path: str, doc: Mapping[str, object]) -> None:
    with contextlib.suppress(OSError):
        write_private(path, json.dumps(doc).encode("utf-8"))


def builtin_texts(env: Environment) -> BuiltinTexts:
    """The verified built-in descriptions of the first installed Claude Code found for ``env``
    (module docstring); empty when none is found or none of its strings match."""
    cache_file = _cache_path(env)
    cache = _load_cache(cache_file)
    for binary in candidates(env):
        try:
            st = os.stat(binary)
        except OSError:
            continue
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
        entry = cache.get(binary)
        if isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("offsets"), dict):
            texts, _ = read_texts(binary, entry["offsets"])
        else:
            texts, offsets = read_texts(binary)
            cache[binary] = {"stamp": stamp, "offsets": offsets}
            _save_cache(cache_file, cache)
        if texts:
            return BuiltinTexts(texts, binary)
    return BuiltinTexts()
