"""The known-differences file: every accepted disagreement with a real client, with its reason."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

FILE = Path(__file__).with_name("known_differences.tsv")


@dataclass(frozen=True)
class Known:
    """One accepted difference: ``host``, the ``workspace`` it occurs in (a test's name for its
    workspace), a ``path`` pattern (relative to the workspace, ``~/`` for the home), the
    ``field`` that differs (``listed``, ``name``, ``description``, ``shadowed``, ``catalog`` …) and
    the ``reason``."""

    host: str
    workspace: str
    path: str
    field: str
    reason: str

    def covers(self, host: str, workspace: str, path: str, field: str) -> bool:
        """Whether this entry accepts that difference."""
        return (self.host == host and fnmatch.fnmatch(workspace, self.workspace)
                and fnmatch.fnmatch(path, self.path) and self.field in (field, "*"))


def load() -> tuple[Known, ...]:
    """Every entry of :data:`FILE` (comment and blank lines skipped). Raises ``ValueError`` for a
    line without five tab-separated columns or with an empty reason."""
    out = []
    for n, line in enumerate(FILE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 5 or not cols[4].strip():
            raise ValueError(f"{FILE.name}:{n}: expected host, workspace, path, field, reason")
        out.append(Known(*cols))
    return tuple(out)


def unexplained(host: str, workspace: str, differences: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """``differences`` as (path, field, detail) minus those the file accepts."""
    known = load()
    return [d for d in differences if not any(k.covers(host, workspace, d[0], d[1]) for k in known)]
