"""``skillshelf compare [COMMON] [--hosts a,b,…] [--differ] [--json]``: one workspace seen by
every host side by side (SPEC N4).

Text: one line per skill file (canonical path, ``~`` for the home directory) with one cell per
host (legend below the table), then per host the number of skills listed and the catalog
characters against its budget. ``--differ`` keeps only the files the hosts disagree on.
``--json`` prints ``{"hosts": [...], "rows": [{"location", "cells": {...}}]}``.
Exit codes (SPEC C2): 0; 2 usage error (an unknown host) or unreadable ``--cwd``.
"""

from __future__ import annotations

import argparse
from typing import Any

from skillshelf.app.output import print_json
from skillshelf.core.hosts import HOSTS, UnknownHostError, get_host

#: Cell glyphs (the TUI uses the same; colour only reinforces them).
GLYPHS = {
    "listed": "✓",
    "cut": "✓ cut",
    "name-only": "✓ name",
    "omitted": "− omit",
    "shadowed": "↓",
    "race": "⇄ race",
    "hidden": "◌",
    "disabled": "○",
    "rejected": "✗",
    "not-read": "·",
}
LEGEND = ("✓ listed  cut: description shortened  name: description dropped  − omitted by the budget  "
          "↓ shadowed  ⇄ either copy may win  ◌ hidden from the model  ○ disabled  ✗ rejected  · not read")


def _hosts(value: str) -> list[str]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:  # `--hosts ,` or `--hosts ""` named none: never "all" in silence
        raise argparse.ArgumentTypeError(f"no host named; choose from: {', '.join(HOSTS)}")
    for n in names:
        try:
            get_host(n)
        except UnknownHostError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return names


def add_parser(sub: Any, common: Any) -> None:
    """Register ``compare``."""
    p = sub.add_parser("compare", parents=[common], help="one workspace seen by every host side by side")
    p.add_argument("--hosts", type=_hosts, default=None, metavar="A,B,…",
                   help=f"hosts to compare (default: all — {','.join(HOSTS)})")
    p.add_argument("--differ", action="store_true", help="only the skill files the hosts disagree on")
    p.add_argument("--json", action="store_true", help="print {hosts, rows}")
    p.set_defaults(run=run)


def _short(path: str, cwd: str, home: str) -> str:
    """``path`` relative to the working directory (``./…``), else with ``~`` for the home."""
    cwd, home = cwd.rstrip("/"), home.rstrip("/")
    if cwd and path.startswith(cwd + "/"):
        return "./" + path[len(cwd) + 1:]
    if home and path.startswith(home + "/"):
        return "~" + path[len(home):]
    return path


def run(ns: Any) -> int:
    """Compare the workspace under the chosen hosts and print the table or the JSON document."""
    from skillshelf.app.common import context_from, terminal_text
    from skillshelf.core.compare import compare

    context = context_from(ns)
    hosts = [get_host(n) for n in (ns.hosts or list(HOSTS))]
    result = compare(context, hosts)
    rows = result.disagreeing() if ns.differ else result.rows
    if ns.json:
        doc = result.to_json()
        if ns.differ:
            rows_doc = doc["rows"]
            assert isinstance(rows_doc, list)
            doc["rows"] = [r for r, row in zip(rows_doc, result.rows, strict=True) if row.disagree]
        print_json(doc, indent=None)  # compact: thousands of rows
        return 0
    home = context.env.home
    names = [h.name for h in hosts]
    paths = [_short(r.location, context.cwd, home) for r in rows]
    width = min(max([len("skill file")] + [len(p) for p in paths]), 70)
    cols = {n: max(len(n), 8) for n in names}
    out = [f"{len(result.rows)} skill files · {len(hosts)} hosts"
           + (f" · showing {len(rows)} that differ" if ns.differ else ""), ""]
    out.append("skill file".ljust(width) + "  " + "  ".join(n.ljust(cols[n]) for n in names))
    for row, path in zip(rows, paths, strict=True):
        shown = path if len(path) <= width else "…" + path[-(width - 1):]
        cells = "  ".join(GLYPHS[row.cells[n].state.value].ljust(cols[n]) for n in names)
        out.append(shown.ljust(width) + "  " + cells)
    out.append("")
    for h in result.hosts:
        # against its budget what the host counts, in its unit (Zuno: the index section, Claude
        # Code: columns, Codex: tokens); the characters of the text it sends beside it when they differ
        if h.budget is None:
            line = f"catalog {h.catalog_chars:,} chars (no budget)"
        else:
            line = f"{h.budget_used:,} / {h.budget:,} {h.budget_unit}"
            if h.budget_unit != "characters" or h.budget_used != h.catalog_chars:
                line += f" · sends {h.catalog_chars:,} chars"
        out.append(f"{h.name:<9} {h.client} {h.version}: {h.listed:,} listed · {line}")
    out.append("")
    out.append(LEGEND)
    print(terminal_text("\n".join(out)))
    return 0
