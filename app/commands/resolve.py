"""``skillshelf resolve NAME --keep LOCATOR [--others disable|search|explicit] [--file CONFIG]
[--global] [--dry-run] [--json] [COMMON]``: the ambiguity picker without the screen (SPEC K5, C).

The source at ``LOCATOR`` stays; every other *enabled* source of ``NAME`` gets ``--others``
(default ``disable``). The entries are appended to ``skills.config`` in the project
``.zuno/zuno.json`` (at the worktree root, else in ``--cwd``; an existing ``zuno.jsonc`` there is
preferred), in the global file with ``--global``, or in ``--file CONFIG`` (relative to the
current directory). ``--dry-run`` prints the plan and writes nothing. After writing, the catalog
is rebuilt: if any chosen source is not in the chosen state the write is undone (exit 1);
otherwise the command says whether ``NAME`` is still ambiguous (``search`` / ``explicit``
sources stay loadable by name, so only ``disable`` removes the ambiguity).

Text output: the target file, one entry per line, then what happened. ``--json``: one document
``{"name", "target", "entries", "written", "backup", "created", "dryRun", "note", "ambiguous"}``
(``ambiguous``: after the write, ``null`` on a dry run). Exit codes (SPEC C2): 0 done (or nothing
to do); 1 ``NAME`` is unknown or not ambiguous, the file cannot be changed safely (unparsable,
overridden by a higher layer, changed meanwhile) or the result was wrong and undone; 2 usage —
``--keep`` is not one of ``NAME``'s locators (they are listed), ``--cwd`` unusable.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def add_parser(sub: Any, common: Any) -> None:
    """Register ``resolve``."""
    p = sub.add_parser(
        "resolve",
        parents=[common],
        help="resolve a same-name conflict by writing skills.config entries (SPEC K5)",
        description="Keep one source of an ambiguous skill name and disable (or hide) the others "
                    "by appending skills.config entries; every other byte of the file is kept.",
    )
    p.add_argument("name", metavar="NAME", help="the ambiguous skill name")
    p.add_argument("--keep", metavar="LOCATOR", required=True,
                   help="the locator (SKILL.md path) of the source that stays")
    p.add_argument("--others", choices=["disable", "search", "explicit"], default="disable",
                   help="what happens to the other sources (default disable)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--file", metavar="CONFIG", default=None,
                       help="config file to write (default: the project .zuno/zuno.json)")
    where.add_argument("--global", dest="global_", action="store_true",
                       help="write the global $XDG_CONFIG_HOME/zuno/zuno.json instead")
    p.add_argument("--dry-run", action="store_true", help="print the entries and target; write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(run=run)


def _fail(message: str, code: int) -> int:
    from skillshelf.app.common import terminal_text

    print(terminal_text(f"skillshelf resolve: {message}", sys.stderr), file=sys.stderr)  # SPEC X1
    return code


def run(ns: Any) -> int:
    """Plan, print and (unless ``--dry-run``) write the resolution; see the module docstring."""
    from skillshelf.app.common import open_catalog
    from skillshelf.core.configwrite import (
        Choice,
        ConfigWriteError,
        apply_plan,
        default_target,
        global_target,
        outcome_problems,
        plan_resolution,
        undo,
    )
    from skillshelf.core.paths import find_worktree

    catalog = open_catalog(ns, announce=True)
    gen = catalog.current
    name = ns.name
    enabled = gen.named(name)
    if not any(s.name == name for s in gen.sources):
        return _fail(f"no skill named `{name}`", 1)
    if name not in gen.ambiguous_names():
        where = enabled[0].location if enabled else "no enabled source"
        return _fail(f"skill `{name}` is not ambiguous ({where}); nothing to resolve", 1)
    locators = [s.location for s in enabled]
    keep = ns.keep
    if keep not in locators:
        # accept a later spelling (alias) or the canonical path of the same file
        for s in enabled:
            if keep in s.aliases or os.path.normpath(keep) == s.canonical:
                keep = s.location
                break
        else:
            listing = "\n".join(f"  {loc}" for loc in locators)
            return _fail(f"--keep {ns.keep} is not a source of `{name}`; its locators are:\n{listing}", 2)
    choices = {loc: (Choice.KEEP if loc == keep else Choice(ns.others)) for loc in locators}

    if ns.file:
        target = os.path.abspath(ns.file)
    elif ns.global_:
        target = global_target(catalog.env.xdg_config_home)
    else:
        target = default_target(catalog.cwd, find_worktree(catalog.cwd))

    try:
        plan = plan_resolution(gen, name, choices, target=target, config=catalog.config)
    except ConfigWriteError as exc:
        # core words it for every front end; on the command line "another target" means --file
        return _fail(str(exc).replace("choose another target file", "choose another target file with --file or --global"), 1)

    doc: dict[str, Any] = {
        "name": name,
        "target": plan.target,
        "entries": [e.to_json() for e in plan.entries],
        "written": False,
        "backup": None,
        "created": plan.created,
        "dryRun": bool(ns.dry_run),
        "note": plan.note,
        "ambiguous": None,
    }
    lines: list[str] = []
    if plan.entries:
        state = "new file" if plan.created else "appended to skills.config"
        lines.append(f"{plan.target} ({state}):")
        lines.extend(f"  {e.render()}" for e in plan.entries)
    if plan.note:
        lines.append(f"note: {plan.note}")

    if ns.dry_run or not plan.changes:
        if ns.dry_run:
            lines.append("dry run: nothing written")
        return _emit(ns, doc, lines, 0)

    try:
        result = apply_plan(plan)
    except ConfigWriteError as exc:
        return _fail(str(exc), 1)
    doc["written"] = result.written
    doc["backup"] = result.backup
    lines.append(f"wrote {plan.target}" + (f" (previous version in {result.backup})" if result.backup else ""))

    after = catalog.refresh()
    problems = outcome_problems(after, name, choices)
    if problems:
        try:
            undo(result)
            undone = "the change was undone"
        except ConfigWriteError as exc:
            undone = f"undo failed: {exc}"
        return _fail("the catalog does not show the chosen outcome (" + "; ".join(problems)
                     + f"); Zuno may not read {plan.target} from {catalog.cwd} — {undone}", 1)
    still = name in after.ambiguous_names()
    doc["ambiguous"] = still
    if still:
        count = len(after.named(name))
        lines.append(f"`{name}` is still ambiguous: {count} enabled sources (search/explicit sources "
                     "stay loadable by name; --others disable removes them)")
    else:
        lines.append(f"`{name}` is no longer ambiguous")
    return _emit(ns, doc, lines, 0)


def _emit(ns: Any, doc: dict[str, Any], lines: list[str], code: int) -> int:
    if ns.json:
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        if not lines:
            lines = ["nothing to write"]
        from skillshelf.app.common import terminal_text

        print(terminal_text("\n".join(lines)))  # SPEC X1
    return code
