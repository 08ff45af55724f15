"""``skillshelf resolve NAME --keep SOURCE [--others disable|search|explicit] [--file CONFIG]
[--global] [--dry-run] [--json] [COMMON]``: the ambiguity picker without the screen (SPEC K5, C),
and the write flow shared with ``enable`` / ``disable`` / ``expose`` (:func:`write_choices`).

The source ``SOURCE`` designates (any spelling that resolves to exactly one source of ``NAME``:
locator, alias, canonical path, its folder, a path relative to the shell's directory or the
project, ``~/…``; :func:`skillshelf.core.spelling.match_sources`) stays; every other *enabled*
source of ``NAME`` gets ``--others`` (default ``disable``). The change goes to ``skills.config``
in the project ``.zuno/zuno.json`` (at the worktree root, else in ``--cwd``; an existing
``zuno.jsonc`` there is preferred), in the global file with ``--global``, or in ``--file CONFIG``.
Paths are written portably (relative in the project, ``~/`` under the home; an absolute path
says why). ``--dry-run`` prints the plan and writes nothing. The write holds the config
folder's lock around read-plan-write (a write made meanwhile by another process is planned on
top of, up to 5 times); it is recorded in the undo journal (``skillshelf undo``). After
writing, the catalog is rebuilt: if any chosen source is not in the chosen state the write is
undone (exit 1).

Text output: the target file, one line per entry appended (``+``) or removed (``-``), why a path
is not portable, then what happened. ``--json``: one document ``{"name", "target", "entries",
"removed", "written", "backup", "created", "restores", "deletes", "dryRun", "note",
"ambiguous", "journal"}``. Exit codes (SPEC C2): 0 done (or nothing to do); 1 the file cannot
be changed safely or the result was wrong and undone, or (``resolve``) ``NAME`` is unknown or
not ambiguous; 2 usage — ``SOURCE`` designates no source or several (they are listed).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from skillshelf.app.output import print_json

_ATTEMPTS = 5


def add_target_options(p: Any) -> None:
    """``--file`` / ``--global``, ``--dry-run`` and ``--json``, shared by the writing commands."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--file", metavar="CONFIG", default=None,
                       help="config file to write (default: the project .zuno/zuno.json)")
    where.add_argument("--global", dest="global_", action="store_true",
                       help="write the global $XDG_CONFIG_HOME/zuno/zuno.json instead")
    p.add_argument("--dry-run", action="store_true", help="print the change and target; write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def add_parser(sub: Any, common: Any) -> None:
    """Register ``resolve``."""
    p = sub.add_parser(
        "resolve",
        parents=[common],
        help="resolve a same-name conflict by writing skills.config entries",
        description="Keep one source of an ambiguous skill name and disable (or hide) the others "
                    "in skills.config; every other byte of the file is kept.",
    )
    p.add_argument("name", metavar="NAME", help="the ambiguous skill name")
    p.add_argument("--keep", metavar="SOURCE", required=True,
                   help="the source that stays: its locator, folder, or a relative or ~/ path to it")
    p.add_argument("--others", choices=["disable", "search", "explicit"], default="disable",
                   help="what happens to the other sources (default disable)")
    add_target_options(p)
    p.set_defaults(run=run)


def fail(verb: str, message: str, code: int) -> int:
    """Print ``skillshelf VERB: message`` to stderr; returns ``code``."""
    from skillshelf.app.common import terminal_text

    print(terminal_text(f"skillshelf {verb}: {message}", sys.stderr), file=sys.stderr)  # SPEC X1
    return code


def refuse_host_without_config(ns: Any, verb: str) -> int | None:
    """Exit code 2 (said on stderr) when ``--host`` names a host without ``skills.config``:
    these commands write Zuno's configuration, which that client never reads, so a write under
    it would look like a fix and change nothing the client sees; ``None`` when the host has it."""
    from skillshelf.core.hosts import get_host
    from skillshelf.core.hosts.base import Feature

    host = get_host(ns.host)
    if Feature.CONFIG in host.features:
        return None
    return fail(verb, f"host {host.name} has no skills.config: {verb} writes Zuno's skills.config, which "
                f"{host.describe()} never reads (use --host zuno)", 2)


def candidates_text(sources: Any, home: str) -> str:
    """The sources a spelling could mean, one per line (``  pdf  ~/.agents/skills/pdf/SKILL.md``)."""
    from skillshelf.app.common import home_short

    return "\n".join(f"  {s.name}  {home_short(s.location, home)}"
                     + ("" if s.enabled else "  (disabled now)") for s in sources)


def spelling_bases(ns: Any, catalog: Any) -> list[str]:
    """Where a relative spelling is looked up: the shell's directory, then ``--cwd``, then the
    worktree."""
    from skillshelf.core.paths import find_worktree

    bases = [os.getcwd(), catalog.cwd]
    worktree = find_worktree(catalog.cwd)
    if worktree:
        bases.append(worktree)
    return list(dict.fromkeys(bases))


def run(ns: Any) -> int:
    """Resolve one ambiguous name; see the module docstring."""
    from skillshelf.app.common import open_catalog
    from skillshelf.core.configwrite import Choice
    from skillshelf.core.spelling import match_sources

    refused = refuse_host_without_config(ns, "resolve")
    if refused is not None:
        return refused
    catalog = open_catalog(ns, announce=True)
    gen = catalog.current
    name = ns.name
    enabled = gen.named(name)
    if not any(s.name == name for s in gen.sources):
        return fail("resolve", f"no skill named `{name}`", 1)
    if name not in gen.ambiguous_names():
        where = enabled[0].location if enabled else "no enabled source"
        return fail("resolve", f"skill `{name}` is not ambiguous ({where}); nothing to resolve — "
                    "use enable, disable or expose to change one source", 1)
    mine = [s for s in gen.sources if s.name == name and s.enabled]
    found = match_sources(mine, ns.keep, bases=spelling_bases(ns, catalog), home=catalog.env.home)
    if len(found) != 1:
        what = "designates no enabled source" if not found else f"designates {len(found)} sources"
        listing = candidates_text(found or mine, catalog.env.home)
        return fail("resolve", f"--keep {ns.keep} {what} of `{name}`; give one of:\n{listing}", 2)
    keep = found[0].location
    choices = {s.location: (Choice.KEEP if s.location == keep else Choice(ns.others)) for s in mine}
    return write_choices(ns, catalog, name, choices, verb="resolve")


def _target(ns: Any, catalog: Any) -> str:
    from skillshelf.core.configwrite import default_target, global_target
    from skillshelf.core.paths import find_worktree

    if ns.file:
        return os.path.abspath(str(ns.file))
    if ns.global_:
        xdg = str(catalog.env.xdg_config_home)
        return global_target(xdg if os.path.isabs(xdg) else os.path.join(str(catalog.cwd), xdg))
    return default_target(str(catalog.cwd), find_worktree(str(catalog.cwd)))


def _layer_text(config: Any, target: str) -> str | None:
    for layer in config.layers:
        if layer.kind != "env-content" and os.path.realpath(layer.path) == os.path.realpath(target):
            return layer.text  # type: ignore[no-any-return]
    return None


def change_summary(verb: str, name: str, choices: Mapping[str, Any], home: str) -> str:
    """One line saying what a write does: ``disable pdf: ~/.agents/skills/pdf/SKILL.md`` for one
    source, ``resolve pdf: keep ./…, disable ~/…`` for several."""
    from skillshelf.app.common import home_short

    words = {"keep": "enable", "disable": "disable", "index": "index", "search": "search-only",
             "explicit": "explicit"}
    if len(choices) == 1:
        (locator, choice), = choices.items()
        return f"{words.get(str(getattr(choice, 'value', choice)), verb)} {name}: {home_short(locator, home)}"
    parts = [f"{getattr(c, 'value', c)} {home_short(loc, home)}" for loc, c in choices.items()]
    return f"{verb} {name}: " + ", ".join(parts)


def plan_lines(plan: Any, home: str) -> list[str]:
    """The plan as text lines: the file, ``+`` / ``-`` entries, why a path is not portable."""
    from skillshelf.app.common import home_short

    lines: list[str] = []
    if not plan.changes:
        return lines
    target = home_short(plan.target, home)
    if plan.deletes:
        lines.append(f"{target} (removed: skillshelf created it and it holds nothing else now):")
    elif plan.created:
        lines.append(f"{target} (new file):")
    elif plan.restores:
        lines.append(f"{target} (back to its earlier bytes, as before skillshelf's write):")
    else:
        lines.append(f"{target} (skills.config):")
    lines.extend(f"  - {r}" for r in plan.removed)
    for e in plan.entries:
        lines.append(f"  + {e.render()}")
        if e.caveat:
            lines.append(f"      {e.caveat}")
    if plan.note:
        lines.append(f"note: {plan.note}")
    return lines


def write_choices(ns: Any, catalog: Any, name: str, choices: Mapping[str, Any], *, verb: str) -> int:
    """Plan, print and (unless ``--dry-run``) write ``choices`` for ``name``, check the outcome,
    record it in the journal; see the module docstring."""
    from skillshelf.app.undo import Journal
    from skillshelf.core.configwrite import (
        ConfigWriteError,
        apply_plan,
        config_lock,
        outcome_problems,
        plan_resolution,
        undo,
    )
    from skillshelf.core.paths import find_worktree

    target = _target(ns, catalog)
    home = catalog.env.home
    journal = Journal.for_env(catalog.env)
    worktree = find_worktree(catalog.cwd)
    result = None
    plan = None
    for _attempt in range(_ATTEMPTS):
        try:
            lock = config_lock(target) if os.path.isdir(os.path.dirname(os.path.realpath(target))) else None
            with lock if lock is not None else _nothing():
                current = _read(target)
                if current != _layer_text(catalog.config, target) and (
                        current is not None or _layer_text(catalog.config, target) is not None):
                    catalog.refresh()  # written meanwhile: plan on top of it
                gen = catalog.current
                plan = plan_resolution(gen, name, choices, target=target, config=catalog.config,
                                       cwd=catalog.cwd, home=home, project=worktree or catalog.cwd,
                                       earlier=journal.earlier_states(target))
                if ns.dry_run or not plan.changes:
                    break
                result = apply_plan(plan)
                break
        except ConfigWriteError as exc:
            if "since the plan was made" in str(exc) and _attempt + 1 < _ATTEMPTS:
                catalog.refresh()
                continue
            # core words it for every front end; on the command line "another target" means --file
            return fail(verb, str(exc).replace("choose another target file",
                                               "choose another target file with --file or --global"), 1)
    assert plan is not None
    doc: dict[str, Any] = {
        "name": name, "target": plan.target,
        "entries": [e.to_json() for e in plan.entries],
        "removed": [json.loads(r) if r.startswith("{") else r for r in plan.removed],
        "written": False, "backup": None, "created": plan.created, "restores": plan.restores,
        "deletes": plan.deletes, "dryRun": bool(ns.dry_run), "note": plan.note, "ambiguous": None,
        "journal": None,
    }
    lines = plan_lines(plan, home)
    if not plan.changes:
        lines.append(plan.note or "nothing to write")
        return _emit(ns, doc, lines, 0)
    if ns.dry_run:
        lines.append("dry run: nothing written")
        return _emit(ns, doc, lines, 0)
    assert result is not None
    doc["written"] = result.written
    doc["backup"] = result.backup
    after = catalog.refresh()
    problems = outcome_problems(after, name, choices)
    if problems:
        try:
            undo(result)
            undone = "the change was undone"
        except ConfigWriteError as exc:
            undone = f"undo failed: {exc}"
        return fail(verb, "the catalog does not show the chosen outcome (" + "; ".join(problems)
                    + f"); Zuno may not read {plan.target} from {catalog.cwd} — {undone}", 1)
    from skillshelf.app.common import home_short

    try:
        entry = journal.record(result, change_summary(verb, name, choices, home), tool="cli")
        doc["journal"] = entry.id if entry else None
        undo_hint = f"; undo: skillshelf undo {entry.id}" if entry else ""
    except (ConfigWriteError, OSError) as exc:
        undo_hint = f"; not in the undo journal ({exc})"
    wrote = "removed" if plan.deletes else "wrote"
    lines.append(f"{wrote} {home_short(plan.target, home)}"
                 + (f" (previous version in {home_short(result.backup, home)})" if result.backup else "")
                 + undo_hint)
    ambiguous = name in after.ambiguous_names()
    doc["ambiguous"] = ambiguous
    if ambiguous:
        count = len(after.named(name))
        lines.append(f"`{name}` is still ambiguous: {count} enabled sources (search/explicit sources "
                     "stay loadable by name; disable all but one to remove the ambiguity)")
    elif verb == "resolve":
        lines.append(f"`{name}` is no longer ambiguous")
    return _emit(ns, doc, lines, 0)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _read(path: str) -> str | None:
    from skillshelf.core.fileread import read_regular

    try:
        return read_regular(path).decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return None
    except OSError:
        return None


def _emit(ns: Any, doc: dict[str, Any], lines: list[str], code: int) -> int:
    if ns.json:
        print_json(doc)
    else:
        from skillshelf.app.common import terminal_text

        print(terminal_text("\n".join(lines)))  # SPEC X1
    return code
