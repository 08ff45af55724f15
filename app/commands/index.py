"""``skillshelf index [COMMON] [--form index|list|verbose] [--budget CHARS] [--json]`` (SPEC C, P).

Prints exactly the budgeted render of the current catalog (SPEC P5) followed by one newline
(the rendered text itself never ends with one, Z085). The budget is ``--budget`` characters,
else the U1 budget from the catalog (``skills.maxContextTokens`` and ``--context-window``).
``--json`` prints one document ``{"host", "client", "text", "rendered", "truncated", "omitted",
"omittedNames", "truncatedNames", "searchOnly", "budget", "budgetRule"}`` (budget in characters;
client hosts add their ``notes``).

On a terminal, control characters from skill text are made visible (SPEC X1); piped output
is the exact text.

When ``skills.includeInstructions`` is false the index is not sent to the model (SPEC P7): the
text is still printed (so it can be inspected) and a note goes to stderr.
Exit codes (SPEC C2): 0 rendered; 2 usage error or unreadable ``--cwd`` / ``--config``.
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
    p = sub.add_parser("index", parents=[common], help="print the prompt index the agent would see (SPEC P)")
    p.add_argument("--form", choices=["index", "list", "verbose"], default="index",
                   help="render form (default index)")
    p.add_argument("--budget", metavar="CHARS", type=_budget_chars, default=None,
                   help="budget in characters (default: SPEC U1 from maxContextTokens / --context-window)")
    p.add_argument("--json", action="store_true",
                   help="print {text, rendered, truncated, omitted, omittedNames, truncatedNames, searchOnly, budget}")
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
    if Feature.FORMS not in catalog.host.features:
        return _run_host_catalog(ns, catalog)
    budget = ns.budget if ns.budget is not None else default_budget(catalog, ns.context_window)
    form = Form(ns.form)
    result = render_budgeted(catalog.current.entries(), form, budget)
    if form is Form.INDEX and catalog.config.include_instructions is False:
        print("skillshelf: skills.includeInstructions is false: this index is not sent to the model (SPEC P7)",
              file=sys.stderr)
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
    """``index`` for a host with one catalog form (zhin, the clients): exactly the text the host
    puts in the prompt (SPEC Z3, N5). ``--form`` other than ``index`` does not apply (a note on
    stderr); ``--budget`` replaces the host's budget rule, or is ignored with a note when the
    host has no budget. ``--json`` adds the counts, the names cut or left out, the budget and the
    host's notes (which the text form prints to stderr)."""
    from skillshelf.core.hosts.base import EntryState

    host = catalog.host
    if ns.form != "index":
        print(f"skillshelf: host {host.name} renders one catalog form; --form is ignored", file=sys.stderr)
    budget = ns.budget
    if budget is not None and catalog.index_budget is None:
        print(f"skillshelf: host {host.name} has no catalog budget; --budget is ignored", file=sys.stderr)
        budget = None
    result = catalog.model_catalog(budget=budget)
    cut = sorted(e.name for e in result.entries if e.state in (EntryState.CUT, EntryState.NAME_ONLY))
    omitted = sorted(e.name for e in result.entries if e.state is EntryState.OMITTED)
    if ns.json:
        doc = {
            "host": host.name,
            "client": host.describe(),
            "text": result.text,
            "rendered": result.listed,
            "truncated": len(cut),
            "omitted": len(omitted),
            "omittedNames": omitted,
            "truncatedNames": cut,
            "searchOnly": 0,
            "budget": result.budget,
            "budgetRule": result.budget_rule,
            "notes": list(result.notes),
        }
        print_json(doc)
        return 0
    for note in result.notes:
        print(f"skillshelf: {host.name}: {note}", file=sys.stderr)
    _write_text(result.text)
    return 0
