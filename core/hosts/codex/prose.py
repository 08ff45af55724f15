"""Codex's own catalog sentences, read at run time from an installed Codex binary.

The catalog opens with one of two intro paragraphs (the aliased and the absolute form) and, for
models that ask for it, ends with one of two usage texts. They are Codex's prose, so they are not
stored here: only their lengths and SHA-256 digests are. :func:`find_texts` locates them in the
native ``codex`` executable (found from ``$SKILLSHELF_CODEX_BIN`` or ``codex`` on ``PATH``; the
npm launcher script leads to the native binary beside it) by a short anchor and checks each
candidate's digest. Offsets found are remembered per binary (path, size, mtime) in memory and in
the cache folder, so later runs read four small slices. When no matching binary is found,
:func:`marker` stands in: a visible text of the same length in bytes, so budgets come out the same.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import mmap
import os
from collections.abc import Mapping
from dataclasses import dataclass

from skillshelf.core.fileread import mapped, read_regular
from skillshelf.core.paths import Environment, write_private

__all__ = ["PROSE", "Texts", "find_binary", "find_texts", "marker"]

#: key → (length in bytes = characters, SHA-256 hex, anchor the text starts with) for Codex 0.171.0.
PROSE: Mapping[str, tuple[int, str, bytes]] = {
    "intro_aliased": (261, "1e24ced81a2ad9e9b1ae49124c2a7dbafce3d4bbdac215eab60e310811af0140", b"A skill is a set of "),
    "intro_unaliased": (418, "fbbf22e992dd5c52e3c939b4351ecbce342669e247ecf3550e2e5b97b2a95a27", b"A skill is a set of "),
    "usage_aliased": (2531, "a542ff08e01add3661080ddc80c5a0239cbfb15d4dceb85c73d800b5ed9e0547", b"- Discovery: "),
    "usage_unaliased": (3031, "57619bb7be4fd6a9bfe61616c3fd5cd9dfcce98a3756d45f07b89cd8ee761c68", b"- Discovery: "),
}
_CACHE_NAME = "codex-0.171.0-texts.json"


@dataclass(frozen=True)
class Texts:
    """The four texts by key; ``source`` is the binary they were read from (``None`` = markers);
    ``note`` says where they came from or why markers stand in."""

    values: Mapping[str, str]
    source: str | None
    note: str

    def __getitem__(self, key: str) -> str:
        return self.values[key]


def marker(key: str) -> str:
    """A visible stand-in for Codex's text ``key``, exactly as long (ASCII, so bytes = characters)."""
    n = PROSE[key][0]
    head = f"[Codex 0.171.0 {key.replace('_', ' ')} text: {n} characters, not shown: no Codex binary found]"
    return (head + "." * n)[:n] if len(head) <= n else head[:n]


def _markers(note: str) -> Texts:
    return Texts({k: marker(k) for k in PROSE}, None, note)


def _native(path: str) -> list[str]:
    """Candidate native binaries for ``path`` (itself, or those beside an npm launcher)."""
    real = os.path.realpath(path)
    out: list[str] = []
    try:
        head = read_regular(real, 1)[:2]
    except OSError:
        return out
    if head != b"#!":
        return [real]
    package = os.path.dirname(os.path.dirname(real))        # …/@openai/codex
    scope = os.path.dirname(package)                        # …/@openai
    for pattern in (os.path.join(package, "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex"),
                    os.path.join(scope, "codex-*", "vendor", "*", "bin", "codex"),
                    os.path.join(package, "vendor", "*", "bin", "codex"),
                    os.path.join(package, "vendor", "*", "codex", "codex")):
        out.extend(sorted(glob.glob(pattern)))
    return out


def find_binary(env: Environment) -> list[str]:
    """Native Codex executables to try, from ``$SKILLSHELF_CODEX_BIN`` then ``codex`` on
    ``$PATH`` (first hit)."""
    out: list[str] = []
    explicit = env.get("SKILLSHELF_CODEX_BIN")
    if explicit:
        out.extend(_native(explicit))
    for folder in (env.get("PATH") or "").split(os.pathsep):
        candidate = os.path.join(folder, "codex") if folder else ""
        if candidate and os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            out.extend(_native(candidate))
            break
    return list(dict.fromkeys(out))


def _check(data: bytes | mmap.mmap, offsets: Mapping[str, int]) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for key, (n, digest, _) in PROSE.items():
        at = offsets.get(key)
        if not isinstance(at, int) or at < 0:
            return None
        piece = bytes(data[at:at + n])
        if hashlib.sha256(piece).hexdigest() != digest:
            return None
        out[key] = piece.decode("utf-8")
    return out


def _scan(data: mmap.mmap) -> dict[str, int]:
    found: dict[str, int] = {}
    for anchor in dict.fromkeys(a for _, _, a in PROSE.values()):
        keys = [k for k, v in PROSE.items() if v[2] == anchor]
        at = data.find(anchor)
        while at >= 0 and len(found) < len(PROSE):
            for key in keys:
                n, digest = PROSE[key][:2]
                if key not in found and hashlib.sha256(data[at:at + n]).hexdigest() == digest:
                    found[key] = at
            if all(k in found for k in keys):
                break
            at = data.find(anchor, at + 1)
    return found


_MEMO: dict[tuple[str, int, int], dict[str, str] | None] = {}


def _from_binary(path: str, cache_file: str | None) -> dict[str, str] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (path, st.st_size, st.st_mtime_ns)
    if key in _MEMO:
        return _MEMO[key]
    cache: dict[str, object] = {}
    if cache_file:
        try:
            loaded = json.loads(read_regular(cache_file).decode("utf-8"))
            cache = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            cache = {}
    ident = f"{path}|{st.st_size}|{st.st_mtime_ns}"
    texts: dict[str, str] | None = None
    try:
        with mapped(path) as data:
            known = cache.get(ident)
            if isinstance(known, dict):
                texts = _check(data, known)
            if texts is None:
                offsets = _scan(data)
                texts = _check(data, offsets)
                if texts is not None and cache_file:
                    cache[ident] = offsets
                    with contextlib.suppress(OSError):
                        write_private(cache_file, json.dumps(cache).encode("utf-8"))
    except (OSError, ValueError):
        texts = None
    _MEMO[key] = texts
    return texts


def find_texts(env: Environment) -> Texts:
    """Codex 0.171.0's catalog texts from the first installed binary that holds all four
    (digests checked), else same-length markers with a note saying why."""
    candidates = find_binary(env)
    from skillshelf.core.parsecache import default_cache_dir  # (skillshelf's own cache folder)

    cache_file = os.path.join(default_cache_dir(env.xdg_cache_home, env.home), _CACHE_NAME) if env.xdg_cache_home else None
    for path in candidates:
        texts = _from_binary(path, cache_file)
        if texts is not None:
            return Texts(texts, path, f"Codex's own catalog sentences are read from {path} (SHA-256 checked)")
    if candidates:
        return _markers(f"the Codex binary found ({candidates[0]}) does not hold Codex 0.171.0's catalog "
                        "sentences: they are shown as markers of the same length")
    return _markers("no Codex binary found (codex on PATH or $SKILLSHELF_CODEX_BIN): Codex's own catalog "
                    "sentences are shown as markers of the same length")
