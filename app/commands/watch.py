"""``skillshelf watch [COMMON] [--json]``: print every published catalog generation (SPEC C, H1–H4).

The catalog is opened for ``--cwd`` and kept live by :class:`skillshelf.core.watch.CatalogWatcher`.
One line per published generation, flushed at once:

- text: ``generation N  +A ~C -R  (digest16)`` then, on the same line, the changed sources as
  ``+name``, ``~name``, ``-name`` (catalog order; added, then changed, then removed) and
  ``!W`` when the generation carries W warnings. ``digest16`` = the first 16 hex characters of
  the generation digest.
- ``--json``: one JSON object per line, ``{"generation", "digest", "sources", "added",
  "changed", "removed", "warnings"}``; ``added``/``changed``/``removed`` are lists of locators,
  ``sources`` the number of sources, ``warnings`` the generation's warnings as
  ``{"kind", "source", "message"}``.

The first line is the initial generation: ``added``, ``changed`` and ``removed`` are empty
(``sources`` says how many there are) — a diff against nothing would just list everything.
It is printed once the watches are in place, so anything written after it is reported.
A source is *changed* when its locator stays but anything the host or the browser shows about it
differs (name, descriptions, exposure, enabled/status, metadata sources, file digest, aliases).

Ctrl-C ends it with exit 0. ``--exit-after N`` stops after N lines (N ≥ 1; for tests and scripts).
``--debounce``/``--step`` (ms) tune the watcher's batching (defaults 1600 / 50).
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from skillshelf.app.output import json_text
from skillshelf.core.model import Generation, Source


def _millis(value: str) -> int:
    """``--debounce`` / ``--step``: whole milliseconds, 0 or more (a negative one was accepted)."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of milliseconds: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more milliseconds, got {n}")
    return n


def add_parser(sub: Any, common: Any) -> None:
    """Register ``watch``."""
    p = sub.add_parser(
        "watch",
        parents=[common],
        help="watch the skill roots and print one line per published catalog generation",
        description="Keep the catalog live and print one line per published generation (Ctrl-C to stop, "
                    "exit 0): `generation N  +added ~changed -removed  (digest)`, then the changed skills "
                    "as +name ~name -name, and !W when the generation has W warnings (debug skill lists "
                    "them). The first line is the catalog as it is now.",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--exit-after", metavar="N", type=int, default=None,
                   help="stop after printing N generations (the initial one counts)")
    p.add_argument("--debounce", metavar="MS", type=_millis, default=1600, help="longest batch window in ms (default 1600)")
    p.add_argument("--step", metavar="MS", type=_millis, default=50, help="quiet period ending a batch in ms (default 50)")
    # an interactive exit (Ctrl-C) never waits long for a cache write (finish_cache_writes)
    p.set_defaults(run=run, save_wait=0.25, one_shot=False)


def _shown(s: Source) -> tuple[Any, ...]:
    return (s.name, s.description, s.display_name, s.short_description, s.exposure, s.enabled,
            s.status, s.metadata_sources, s.content_sha256, s.aliases)


def diff(old: Generation | None, new: Generation) -> tuple[list[Source], list[Source], list[Source]]:
    """``(added, changed, removed)`` sources of ``new`` against ``old`` by locator, catalog order
    (removed in ``old``'s order). ``old`` None → three empty lists (the initial line)."""
    if old is None:
        return [], [], []
    before = {s.location: s for s in old.sources}
    after = {s.location for s in new.sources}
    added = [s for s in new.sources if s.location not in before]
    changed = [s for s in new.sources if s.location in before and _shown(before[s.location]) != _shown(s)]
    removed = [s for s in old.sources if s.location not in after]
    return added, changed, removed


def format_line(old: Generation | None, new: Generation, *, as_json: bool) -> str:
    """The output line for ``new`` (see the module docstring), without the newline."""
    added, changed, removed = diff(old, new)
    if as_json:
        return json_text(
            {
                "generation": new.number,
                "digest": new.digest,
                "sources": len(new.sources),
                "added": [s.location for s in added],
                "changed": [s.location for s in changed],
                "removed": [s.location for s in removed],
                "warnings": [w.to_json() for w in new.warnings],
            },
            indent=None,
        )
    parts = [f"generation {new.number}  +{len(added)} ~{len(changed)} -{len(removed)}  ({new.digest[:16]})"]
    names = [f"+{s.name}" for s in added] + [f"~{s.name}" for s in changed] + [f"-{s.name}" for s in removed]
    if names:
        parts.append(" ".join(names))
    if new.warnings:
        parts.append(f"!{len(new.warnings)}")
    return "  ".join(parts)


def run(ns: Any) -> int:
    """Open the catalog, print the initial generation, then one line per publish until Ctrl-C
    (exit 0) or ``--exit-after`` lines (exit 0). Exit 2 for an unusable ``--cwd``/``--exit-after``.
    A line that cannot be written ends it: ``BrokenPipeError`` (a reader that has gone) or
    :class:`~skillshelf.app.output.OutputFailed` is raised here, whichever thread wrote it."""
    from skillshelf.app.common import open_catalog, terminal_text
    from skillshelf.app.output import OutputFailed
    from skillshelf.core.watch import CatalogWatcher

    if ns.exit_after is not None and ns.exit_after < 1:
        print("skillshelf watch: --exit-after must be at least 1", file=sys.stderr)
        return 2
    catalog = open_catalog(ns, announce=True)
    done = threading.Event()
    lock = threading.Lock()
    state: dict[str, Any] = {"last": None, "printed": 0, "failed": None}

    def emit(gen: Generation) -> None:
        with lock:
            last = state["last"]
            if done.is_set() or (last is not None and gen.number <= last.number):
                return
            line = format_line(last, gen, as_json=ns.json)
            try:
                sys.stdout.write((line if ns.json else terminal_text(line)) + "\n")  # SPEC X1
                sys.stdout.flush()
            except (BrokenPipeError, OutputFailed) as exc:  # (raised here for the publishing thread's
                state["failed"] = exc  # lines too: the main loop ends the command with it)
                done.set()
                return
            state["last"] = gen
            state["printed"] += 1
            if ns.exit_after is not None and state["printed"] >= ns.exit_after:
                done.set()

    # Watches first, then the initial line: whatever is written after that line is seen.
    catalog.subscribe(emit)
    watcher = CatalogWatcher(catalog, step=ns.step, debounce=ns.debounce)
    watcher.start()
    emit(catalog.current)
    try:
        while not done.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
    if state["failed"] is not None:  # (a reader that has gone ends it with 0, a failed write with 120)
        raise state["failed"]
    return 0
