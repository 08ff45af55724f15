"""Opening a skill's file in the user's editor (``o`` on the main screen).

The editor is ``$VISUAL``, else ``$EDITOR`` (split as a shell would: ``code --wait`` works), run
with the file's path as its last argument while the app is suspended. What the file held
before and after is compared by content, so closing the editor without saving changes nothing.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Mapping

__all__ = ["editor_command", "file_digest"]


def editor_command(environ: Mapping[str, str]) -> list[str] | None:
    """The editor's argv from ``$VISUAL`` or ``$EDITOR`` (the first non-blank one), ``None`` when
    neither is set or it does not parse (unbalanced quotes)."""
    for key in ("VISUAL", "EDITOR"):
        value = environ.get(key, "").strip()
        if not value:
            continue
        try:
            argv = shlex.split(value)
        except ValueError:
            return None
        return argv or None
    return None


def file_digest(path: str) -> str | None:
    """The SHA-256 of the file's bytes, ``None`` when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None
