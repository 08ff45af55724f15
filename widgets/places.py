"""Where a row's file lives, in few cells: a short root label (``project .zuno``, ``global
.agents``, ``path``, ``user .claude``) and, for copies of one name, the shortest part of each
path that tells the copies apart (``~/…``, ``…/proj/…``, ``…/vendor-a/…``).

Pure functions over strings (tested without an app); the text they return is raw (callers make
it visible, SPEC X1).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from skillshelf.core.model import Provenance

__all__ = ["LABEL_MAX", "distinguishing_parts", "home_path", "short_root_label"]

#: Most cells of a root label (longer host labels are cut in the middle).
LABEL_MAX = 17

#: Folder names that say little on their own (the roots' scan sub-folders).
_GENERIC = frozenset({"skill", "skills"})

#: Zuno's root kinds in words (SPEC D1): the tier, then the folder kind.
_PROVENANCE_LABEL = {
    Provenance.BUILTIN: "built-in",
    Provenance.PROJECT_ZUNO: "project .zuno",
    Provenance.PROJECT_AGENTS: "project .agents",
    Provenance.GLOBAL_ZUNO: "global zuno",
    Provenance.GLOBAL_AGENTS: "global .agents",
    Provenance.CONFIGURED_PATH: "path",
    Provenance.REMOTE: "remote",
    Provenance.ZHIN_PLUGIN: "plugin",
    Provenance.ZHIN_AGENT: "agent",
    Provenance.PROJECT: "project",
    Provenance.USER: "user",
    Provenance.SYSTEM: "system",
    Provenance.MANAGED: "managed",
}


def short_root_label(provenance: Provenance, host_label: str = "") -> str:
    """The root's kind in at most :data:`LABEL_MAX` cells: the host's own label when it has one
    (``user ~/.claude/skills`` → ``user .claude``: ``~/`` and a trailing ``/skills`` dropped;
    still longer ones keep their start and end, ``admin /etc/c…/skills``), else the provenance
    in words (``project .zuno``, ``global .agents``, ``path`` for a ``skills.paths`` entry)."""
    if not host_label:
        return _PROVENANCE_LABEL.get(provenance, provenance.value)
    label = " ".join(host_label.split())
    label = label.replace(" ~/", " ")
    for tail in ("/skills", "/skill"):
        if label.endswith(tail) and len(label) > len(tail) and label[-len(tail) - 1] != " ":
            label = label[: -len(tail)]
            break
    if len(label) > LABEL_MAX:
        head = (LABEL_MAX - 1) // 2
        label = label[:head] + "…" + label[-(LABEL_MAX - 1 - head):]
    return label


def home_path(path: str, home: str | None) -> str:
    """``path`` with ``home`` shown as ``~`` (unchanged outside it)."""
    home = (home or "").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path


def _segments(location: str, home: str | None) -> list[str]:
    """The folder of a ``SKILL.md`` (the locator itself for other locators), ``~`` for the
    home, split at ``/``; an absolute path starts with the segment ``""`` (its root)."""
    folder = location[: -len("/SKILL.md")] if location.endswith("/SKILL.md") else location
    return home_path(folder, home).split("/")


def _holds(haystack: Sequence[str], run: Sequence[str]) -> bool:
    """Whether ``run`` occurs as consecutive segments of ``haystack``."""
    n = len(run)
    return any(list(haystack[i:i + n]) == list(run) for i in range(len(haystack) - n + 1))


def _shown(segments: Sequence[str], start: int, end: int) -> str:
    """Segments ``start:end`` as a path, ``…`` marking what was left out before and after."""
    text = "/".join(segments[start:end])
    if start > 0:
        text = "…/" + text
    if end < len(segments):
        text += "/…"
    return text


def distinguishing_parts(locations: Sequence[str], home: str | None = None) -> Mapping[str, str]:
    """For copies of one skill at ``locations`` (two or more distinct files), the shortest run
    of folder names of each that no other copy's path holds, with ``…`` for the rest:
    ``~/.agents/skills/pdf`` and ``~/proj/.agents/skills/pdf`` → ``~/.agents/…`` and
    ``…/proj/…``. Of runs equally short, the one nearest the end of the path wins (the end
    tells folders apart), unless it is only ``skill`` / ``skills``; the home folder alone
    (``~/…``) is preferred to any other single folder. A path that lies wholly inside another is shown whole. ``home`` is
    shown as ``~``. Locator → text (raw)."""
    return _distinguishing_parts(tuple(locations), home)


@functools.lru_cache(maxsize=4096)
def _distinguishing_parts(locations: tuple[str, ...], home: str | None) -> Mapping[str, str]:
    """:func:`distinguishing_parts`, kept for the same copies: the rows of a list are built
    again for every generation (and first for the last run's list), mostly for the same copies."""
    split = {loc: _segments(loc, home) for loc in locations}
    out: dict[str, str] = {}
    for loc, segments in split.items():
        others = [s for other, s in split.items() if other != loc]
        found = ""
        for length in range(1, len(segments) + 1):
            unique = [start for start in range(len(segments) - length, -1, -1)
                      if segments[start:start + length] != [""]
                      and not any(_holds(o, segments[start:start + length]) for o in others)]
            if unique:
                # nearest the end, but a run of the roots' own sub-folders (skill, skills) only
                # when nothing else tells the copy apart: ".zuno" says more than "skill"
                telling = [s for s in unique if not set(segments[s:s + length]) <= _GENERIC]
                # the home folder alone says most of all: "~/…" rather than "…/zuno/…"
                home_run = [s for s in telling if segments[s:s + length] == ["~"]]
                start = (home_run or telling or unique)[0]
                found = _shown(segments, start, start + length)
                break
        out[loc] = found or "/".join(segments)
    return MappingProxyType(out)  # (shared by every caller: read-only)
