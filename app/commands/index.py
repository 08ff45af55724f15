"""``skillshelf index [COMMON] [--form index|list|verbose] [--budget CHARS] [--agent NAME] [--json]``
(SPEC C, P; conformance Z-P).

``--form index`` (the default) prints exactly what the host puts in the model's prompt for its
skills, followed by one newline: for Zuno the two sections joined as Zuno joins them — the
trigger policy, then the budgeted ``<skill_index>`` with Zuno's coverage sentences — for
``--agent`` (default: the host's default agent). Nothing is printed when nothing is sent
(``skills.includeInstructions: false``, no searchable skill); the notes say why on stderr.
``--form list|verbose`` print the skill tool's other render forms. The budget is ``--budget``
characters, else the host's rule (``maxContextTokens``, the model's context window).
``--json`` prints one document with the text, each section and its size, the counts and the
budget rule. A configuration Zuno would refuse is said on stderr first (Z-K).

On a terminal, control characters from skill text are made visible (SPEC X1); piped output
is the exact text. Exit codes (SPEC C2): 0 rendered; 2 usage error or unreadable ``--cwd`` /
``--config``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from skillshelf.app.output import print_json

if TYPE_CHECKING:
    from skillshelf.core.catalog import Catalog


def _budget_chars(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of characters: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more characters, got {n}")
    return n


def add_parser(sub: Any, common: Any) -> None:
    """Register ``index``."""
    p = sub.add_parser("index", parents=[common], help="print the prompt index the agent would see")
    p.add_argument("--form", choices=["index", "list", "verbose"], default="index",
                   help="render form (default index)")
    p.add_argument("--budget", metavar="CHARS", type=_budget_chars, default=None,
                   help="budget in characters (default: the host's rule, from maxContextTokens / --context-window)")
    p.add_argument("--json", action="store_true",
                   help="print {text, sections, rendered, truncated, omitted, omittedNames, truncatedNames, "
                        "searchOnly, budget, budgetRule, window}")
    p.add_argument("--agent", metavar="NAME", default=None,
                   help="whose prompt (hosts with agents; default: the host's default agent)")
    p.set_defaults(run=run)


def default_budget(catalog: Catalog, context_window: int | None) -> int:
    """SPEC U1 budget in characters: the configuration's ``maxContextTokens`` and
    ``context_window`` tokens."""
    from skillshelf.core.budget import index_budget_chars

    return index_budget_chars(max_context_tokens=catalog.config.max_context_tokens, context_window=context_window)


def result_document(result: Any) -> dict[str, Any]:
    """The ``--json`` document for a :class:`skillshelf.core.render.Budgeted`."""
    return {
        "text": result.text,
        "rendered": result.rendered,
        "truncated": result.truncated,
        "omitted": result.omitted,
        "omittedNames": list(result.omitted_names),
        "truncatedNames": list(result.truncated_names),
        "searchOnly": result.search_only,
        "budget": result.budget,
    }


def run(ns: Any) -> int:
    """Render the current generation's catalog within the budget and print it."""
    from skillshelf.app.common import open_catalog
    from skillshelf.core.hosts.base import Feature
    from skillshelf.core.render import Form, render_budgeted

    catalog = open_catalog(ns, announce=True)
    if Feature.FORMS not in catalog.host.features or ns.form == "index":
        return _run_host_catalog(ns, catalog)
    budget = ns.budget if ns.budget is not None else catalog.index_budget
    form = Form(ns.form)
    result = render_budgeted(catalog.current.entries(), form, budget if budget is not None else 8_000)
    if ns.json:
        doc = {"host": catalog.host.name, "client": catalog.host.describe(), **result_document(result)}
        doc["budgetRule"] = (catalog.model_catalog().budget_rule if ns.budget is None
                             else f"--budget {ns.budget:,} characters")
        print_json(doc)
    else:
        _write_text(result.text)
    return 0


def _write_text(text: str) -> None:
    from skillshelf.app.common import terminal_text

    sys.stdout.write(terminal_text(text) + "\n")  # SPEC X1: never emit a skill's control characters raw


def _run_host_catalog(ns: Any, catalog: Any) -> int:
    """``index``: exactly the text the host puts in the prompt for its skills (SPEC P, Z3, N5;
    for Zuno both sections, the trigger policy and the index with its coverage sentences,
    conformance Z-P). ``--form`` other than ``index`` does not apply to a host with one form (a
    note on stderr); ``--budget`` replaces the host's budget rule, or is ignored with a note when
    the host has no budget; ``--agent`` chooses whose prompt. ``--json`` adds each section and
    its size, the counts, the names cut or left out, the budget and its rule, the context window
    and the host's notes (which the text form prints to stderr)."""
    from skillshelf.core.hosts.base import EntryState, Feature

    host = catalog.host
    if ns.form != "index":
        print(f"skillshelf: host {host.name} renders one catalog form; --form is ignored", file=sys.stderr)
    budget = ns.budget
    if budget is not None and catalog.index_budget is None:
        print(f"skillshelf: host {host.name} has no catalog budget; --budget is ignored", file=sys.stderr)
        budget = None
    agent = ns.agent if Feature.AGENTS in host.features else None
    if ns.agent is not None and agent is None:
        print(f"skillshelf: host {host.name} has no agents; --agent is ignored", file=sys.stderr)
    result = catalog.session.catalog(catalog.current, budget=budget, agent=agent)
    if ns.json:
        from skillshelf.core.report import section_json, window_json  # (the lint machinery: only here)

        cut = sorted(e.name for e in result.entries if e.state in (EntryState.CUT, EntryState.NAME_ONLY))
        omitted = sorted(e.name for e in result.entries if e.state is EntryState.OMITTED)
        search_only = sum(1 for e in result.entries
                          if e.state is EntryState.HIDDEN and e.note.startswith("search-only"))
        doc = {
            "host": host.name,
            "client": host.describe(),
            "text": result.text,
            "sections": [section_json(x) for x in result.sections],
            "rendered": result.listed,
            "truncated": len(cut),
            "omitted": len(omitted),
            "omittedNames": omitted,
            "truncatedNames": cut,
            "searchOnly": search_only,
            "budget": result.budget,
            "usedChars": result.used,
            "budgetRule": result.budget_rule,
            "selectedRule": result.selected_rule,
            "window": window_json(result.window),
            "notes": list(result.notes),
        }
        print_json(doc)
        return 0
    for note in result.notes:
        print(f"skillshelf: {host.name}: {note}", file=sys.stderr)
    _write_text(result.text)
    return 0
