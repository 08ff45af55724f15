"""How paths are spelled: what a person types for a source, and what skillshelf writes for one.

Reading (:func:`match_sources`): ``skillshelf enable|disable|expose`` and ``resolve --keep`` take
a skill name, a locator, an alias, the canonical path, the skill's folder, a path relative to
the shell's directory or the project, or a ``~/`` path; every spelling is resolved to the
sources it designates (exactly one is needed; the caller lists the candidates otherwise).

Writing (:func:`portable_spelling`): the ``path`` of a ``skills.config`` entry must designate
the same file for the agent wherever the project is checked out. Zuno expands a rule path like
``skills.paths`` (SPEC K3, D3; ``zuno-catalog`` ``skill/discovery.rs`` ``expand_path``): a leading
``~/`` joins ``$HOME``, anything else relative joins the *working directory Zuno runs in* — not
the worktree, not the config file's folder. So, best first:

1. ``relative`` — for a project config file (``<dir>/.zuno/zuno.json[c]`` or ``<dir>/zuno.json[c]``)
   when skillshelf runs in ``<dir>`` itself and the file is inside the project: the path relative
   to ``<dir>``, which Zuno resolves right whenever it starts in the project folder holding the
   config, wherever that folder is. (skillshelf decision: started in a subfolder, a relative
   entry would point elsewhere, possibly at another copy, so none is written then.)
2. ``home`` — a file under the home folder: ``~/…``; follows the home to any machine.
3. ``absolute`` — the canonical path, with the reason nothing portable fits.

Each candidate is checked the way Zuno resolves it (join, then canonicalise) before it is used.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skillshelf.core.config import CONFIG_STEM, PROJECT_DIR, resolve_rule
from skillshelf.core.model import Source

__all__ = ["Spelling", "config_anchor", "match_sources", "portable_spelling"]


@dataclass(frozen=True)
class Spelling:
    """A rule path to write: ``text`` as written, ``kind`` (``relative``; ``home``; ``project-home``
    — a project file spelled from the home, portable only to the same place; ``absolute``) and
    ``why`` (one sentence for the preview)."""

    text: str
    kind: str
    why: str


def _norm(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _within(path: str, directory: str) -> bool:
    directory = directory.rstrip(os.sep) or os.sep
    return path == directory or path.startswith(directory if directory.endswith(os.sep) else directory + os.sep)


def config_anchor(target: str) -> str | None:
    """The project folder a config file belongs to: ``<dir>`` for ``<dir>/.zuno/zuno.json[c]`` and
    for ``<dir>/zuno.json[c]``; ``None`` for any other file name."""
    target = _norm(target)
    directory, name = os.path.split(target)
    if name not in (f"{CONFIG_STEM}.json", f"{CONFIG_STEM}.jsonc"):
        return None
    if os.path.basename(directory) == PROJECT_DIR:
        return os.path.dirname(directory)
    return directory


def _resolves_to(text: str, canonical: str, *, cwd: str, home: str) -> bool:
    rule = resolve_rule(0, {"path": text}, cwd=cwd, home=home, origin="")
    return rule.path == os.path.normpath(canonical)


def portable_spelling(source: Source, *, target: str, cwd: str, home: str, project: str,
                      project_target: bool) -> Spelling:
    """The path to write for ``source`` into ``target`` (see the module docstring).

    ``cwd``: the working directory the catalog models (Zuno's); ``home``: ``$HOME``;
    ``project``: the project root (worktree, else ``cwd``); ``project_target``: ``target`` is one
    of the project's configuration layers (only those may hold a project-relative path — a
    global file applies in every project). Candidates are the locator, the aliases, then the
    canonical path; each is verified to resolve to ``source.canonical``."""
    cwd, project = _norm(cwd), _norm(project)
    home = _norm(home) if home else ""
    candidates: list[str] = []
    for c in (source.location, *source.aliases, source.canonical):
        c = _norm(c)
        if c not in candidates:
            candidates.append(c)
    anchor = config_anchor(target)
    relative_note = ""
    if project_target and anchor is not None:
        if _norm(anchor) == cwd:
            for c in candidates:
                if not _within(c, project):
                    continue
                rel = os.path.relpath(c, cwd)
                text = "./" + rel if rel.startswith("~") else rel
                if _resolves_to(text, source.canonical, cwd=cwd, home=home):
                    return Spelling(text, "relative", (
                        f"relative: Zuno joins a relative path to the folder it starts in, so this "
                        f"entry holds wherever the project is checked out, when Zuno runs in {cwd}"))
        elif any(_within(c, project) for c in candidates):
            relative_note = (f"; not relative because skillshelf runs in {cwd}, not in {anchor} where "
                             "the config applies (Zuno joins relative paths to the folder it starts in)")
    if home and home != os.sep:
        for c in candidates:
            if _within(c, home) and c != home:
                text = "~/" + os.path.relpath(c, home)
                if _resolves_to(text, source.canonical, cwd=cwd, home=home):
                    inside = any(_within(x, project) for x in candidates) and _within(project, home)
                    why = ("~/: the file is under your home folder, so the entry follows the home to "
                           "any machine")
                    if inside:
                        why = ("~/: the file is in the project, under your home folder; this entry "
                               "holds only where the project sits at the same place in the home"
                               + relative_note)
                    return Spelling(text, "project-home" if inside else "home", why)
    reason = "the file is neither in the project nor under your home folder"
    if any(_within(c, project) for c in candidates):
        if not project_target:
            reason = (f"{target} applies to every project, so a project-relative path could match "
                      "another project's file")
        else:
            reason = "no relative spelling resolves to this file from here" + relative_note
    return Spelling(_norm(source.canonical), "absolute", f"absolute: {reason}")


def match_sources(sources: Iterable[Source], spelling: str, *, bases: Sequence[str], home: str) -> list[Source]:
    """The sources ``spelling`` designates, in catalog order, without duplicates.

    ``spelling`` may be a skill name, a locator, an alias, a canonical path, a skill folder
    (the folder holding ``SKILL.md``; a folder holding several skills designates all of them),
    each absolute, ``~/``-relative (``home``) or relative to any of ``bases`` (the shell's
    directory first, then the project). A name wins only when no path matches."""
    pool = list(sources)
    if not spelling:
        return []
    raw = spelling.rstrip(os.sep) or spelling
    expanded: list[str] = []
    if raw == "~" or raw.startswith("~/"):
        expanded.append(os.path.join(home, raw[2:]) if raw != "~" else home)
    elif os.path.isabs(raw):
        expanded.append(raw)
    else:
        expanded.extend(os.path.join(b, raw) for b in bases)
    found: list[Source] = []

    def add(s: Source) -> None:
        if all(s is not f for f in found):
            found.append(s)

    for path in expanded:
        lexical = _norm(path)
        real = os.path.realpath(lexical)
        for s in pool:
            spellings = {_norm(s.location), _norm(s.canonical), *(_norm(a) for a in s.aliases)}
            if lexical in spellings or real == s.canonical:
                add(s)
                continue
            folders = {os.path.dirname(x) for x in spellings}
            if lexical in folders or real == os.path.dirname(s.canonical):
                add(s)
        if found:
            return found
        # a folder holding several skills (a root, a group): every source below it
        for s in pool:
            if _within(_norm(s.location), lexical) or _within(s.canonical, real):
                add(s)
        if found:
            return found
    return [s for s in pool if s.name == spelling]
