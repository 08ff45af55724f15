"""``skillshelf undo [ID] [--list] [--json]``: revert a configuration write skillshelf made, byte
for byte, in any later session (SPEC K5; the journal is :mod:`skillshelf.app.undo`).

Without ``ID`` the newest write not undone yet is reverted; with it, that write. An undo is
refused when the file changed since the write (a later edit is never clobbered; exit 1).
``--list`` prints the journal instead, newest first: id, time, state (``current``: undoable,
``changed``: the file changed since, ``undone``), file and what changed. ``--json``: one
document (``{"undone": {...}}`` or ``{"writes": [...]}``). Exit codes (SPEC C2): 0 done, 1 nothing
to undo or refused, 2 usage.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from typing import Any

from skillshelf.app.commands.resolve import fail
from skillshelf.app.output import print_json


def add_parser(sub: Any, common: Any) -> None:
    """Register ``undo`` (no COMMON options: the journal is the user's, not a project's)."""
    p = sub.add_parser("undo", help="revert the last config write skillshelf made (or write ID); --list shows them",
                       description="Revert a skills.config write skillshelf made, byte for byte.")
    p.add_argument("id", metavar="ID", nargs="?", type=int, default=None, help="the write to revert (see --list)")
    p.add_argument("--list", action="store_true", help="list past writes, newest first")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(run=run)


def run(ns: Any) -> int:
    """Undo or list; see the module docstring."""
    from skillshelf.app.common import environment, home_short, terminal_text
    from skillshelf.app.undo import Journal, undo_words
    from skillshelf.core.configwrite import ConfigWriteError

    env = environment()
    journal = Journal.for_env(env)
    if ns.list:
        entries = list(reversed(journal.entries()))
        if journal.problem is not None:  # an empty list would hide the damage
            return fail("undo", f"the undo journal {journal.problem}; it is started anew (and kept as "
                        f"{os.path.basename(journal.file)}.damaged) at the next write", 1)
        if ns.json:
            docs = [dict(asdict(e), state=journal.state(e)) for e in entries]
            print_json({"writes": docs})
            return 0
        if not entries:
            print(f"no writes recorded (journal: {home_short(journal.file, env.home)})")
            return 0
        for e in entries:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.when))
            print(terminal_text(f"#{e.id:<4} {when}  {journal.state(e):<7}  {home_short(e.target, env.home)}  "
                                f"{e.summary}"))
        return 0
    target = None
    if ns.id is not None:
        target = journal.find(ns.id)
        if target is None:
            return fail("undo", f"no write #{ns.id} in the journal (skillshelf undo --list shows them)", 1)
    try:
        done = journal.undo(target)
    except ConfigWriteError as exc:
        return fail("undo", str(exc), 1)
    words = undo_words(journal.result_of(done)).replace(done.target, home_short(done.target, env.home), 1)
    if ns.json:
        print_json({"undone": asdict(done)})
    else:
        print(terminal_text(f"undone #{done.id} ({done.summary}): {words}"))
    return 0
