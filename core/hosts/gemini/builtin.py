"""Gemini CLI's built-in skills: what skillshelf knows of them, and where an installed copy is.

Gemini CLI 0.61.0 ships two skills in ``<bundle>/builtin/<name>/SKILL.md``. skillshelf keeps only
their names, sizes and digests (no text): when an installed ``@google/gemini-cli`` 0.61.0 bundle
is found whose files match those digests, its files are read like any root; otherwise each
built-in is a marker of the right size (:func:`marker_sources`) and the catalog says so.

Where a bundle is looked for, in order: ``$SKILLSHELF_CLIENTS_DIR/gemini/node_modules/
@google/gemini-cli/bundle`` (the real-client folder of skillshelf's tests), then every
``gemini`` on ``$PATH`` whose link leads to ``…/@google/gemini-cli/bundle/gemini.js``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import Provenance, Source, Status

__all__ = ["BUILTINS", "Builtin", "find_bundle", "marker_description", "marker_sources"]

#: The client version whose built-ins are listed here.
VERSION = "0.61.0"


@dataclass(frozen=True)
class Builtin:
    """One built-in skill: ``name`` (also its folder), ``size`` of ``SKILL.md`` in bytes,
    ``sha256`` of it, ``description`` and ``body`` lengths in characters (as Gemini CLI holds
    them: the description folded, the body trimmed)."""

    name: str
    size: int
    sha256: str
    description: int
    body: int


#: In the client's processing order (descending folder names, SPEC N: the root walk).
BUILTINS: tuple[Builtin, ...] = (
    Builtin("skill-creator", 20_225, "aab93935325978cb5a54b4907ae1ca11d7b4a903925ed0cc1739345392280db9", 230, 19_809),
    Builtin("antigravity-support", 3_364, "2b866bce962f642be8c0dd74ffc2548fa29f2100bc945518b2f738b7d7d6fd38", 273, 3_033),
)


def _bundle_ok(bundle: str) -> bool:
    """``bundle`` is Gemini CLI 0.61.0's and its built-in files are the known ones."""
    try:
        meta = json.loads(read_regular(os.path.join(os.path.dirname(bundle), "package.json"), 1 << 20))
        if not isinstance(meta, dict) or meta.get("name") != "@google/gemini-cli" or meta.get("version") != VERSION:
            return False
        for b in BUILTINS:
            data = read_regular(os.path.join(bundle, "builtin", b.name, "SKILL.md"), 1 << 20)
            if hashlib.sha256(data).hexdigest() != b.sha256:
                return False
    except (OSError, ValueError):
        return False
    return True


def find_bundle(env: Mapping[str, str]) -> str | None:
    """The real path of an installed Gemini CLI 0.61.0 ``bundle`` folder, or ``None``."""
    candidates: list[str] = []
    clients = env.get("SKILLSHELF_CLIENTS_DIR")
    if clients:
        candidates.append(os.path.join(clients, "gemini", "node_modules", "@google", "gemini-cli", "bundle"))
    for folder in (env.get("PATH") or "").split(os.pathsep):
        if not folder:
            continue
        exe = os.path.join(folder, "gemini")
        try:
            real = os.path.realpath(exe) if os.path.exists(exe) else ""
        except OSError:
            continue
        if real.endswith(os.path.join("@google", "gemini-cli", "bundle", "gemini.js")):
            candidates.append(os.path.dirname(real))
    for c in candidates:
        real = os.path.realpath(c)
        if os.path.isdir(real) and _bundle_ok(real):
            return real
    return None


def marker_description(b: Builtin) -> str:
    """The stand-in for a built-in's description: says what it is and has its exact length."""
    text = f"[built-in {b.name}: {b.description}-character description, read from an installed Gemini CLI]"
    return (text + "." * b.description)[:b.description] if len(text) < b.description else text


def marker_location(b: Builtin) -> str:
    """The locator of a built-in when no bundle is installed."""
    return f"builtin://gemini/{b.name}"


def marker_sources() -> tuple[Source, ...]:
    """Both built-ins as sized markers (no installed bundle), in processing order."""
    return tuple(
        Source(name=b.name, location=marker_location(b), provenance=Provenance.BUILTIN,
               canonical=marker_location(b), root="builtin://gemini", description=marker_description(b),
               exposure_reason="built-in", status=Status.OK, content_sha256=b.sha256, size=b.size,
               frontmatter={"name": b.name})
        for b in BUILTINS
    )
