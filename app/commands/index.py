"""``skillshelf index [COMMON] [--form index|list|verbose] [--budget CHARS] [--json]`` (SPEC C, P).

Prints exactly the budgeted render of the current catalog (SPEC P5) followed by one newline
(the rendered text itself never ends with one, Z085). The budget is ``--budget`` characters,
else the U1 budget from the catalog (``skills.maxContextTokens`` and ``--context-window``).
``--json`` prints one document ``{"text", "rendered", "truncated", "omitted", "omittedNames",
"truncatedNames", "searchOnly", "budget"}`` (budget in characters).

On a terminal, control characters from skill text are made visible (SPEC X1); piped output
is the exact text.

When ``skills.includeInstructions`` is false the index is not sent to the model (SPEC P7): the
text is still printed (so it can be inspected) and a note goes to stderr.
Exit codes (SPEC C2): 0 rendered; 2 usage error or unreadable ``--cwd`` / ``--config``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


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


def default_budget(catalog: Any, context_window: int | None) -> int:
    """SPEC U1 budget in characters: the catalog's config ``max_context_tokens`` (when it exposes
    one) and ``context_window`` tokens."""
    from skillshelf.core.budget import index_budget_chars

    max_context_tokens = getattr(getattr(catalog, "config", None), "max_context_tokens", None)
    return index_budget_chars(max_context_tokens=max_context_tokens, context_window=context_window)


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
    """Render the current generation's entries in ``--form`` within the budget and print it."""
    from skillshelf.app.common import open_catalog
    from skillshelf.core.render import Form, render_budgeted

    catalog = open_catalog(ns, announce=True)
    if catalog.host == "zhin":
        return _run_zhin(ns, catalog)
    budget = ns.budget if ns.budget is not None else default_budget(catalog, ns.context_window)
    form = Form(ns.form)
    result = render_budgeted(catalog.current.entries(), form, budget)
    config = getattr(catalog, "config", None)
    if form is Form.INDEX and getattr(config, "include_instructions", True) is False:
        print("skillshelf: skills.includeInstructions is false: this index is not sent to the model (SPEC P7)",
              file=sys.stderr)
    if ns.json:
        json.dump(result_document(result), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        text = result.text
        if sys.stdout.isatty():  # SPEC X1: never emit a skill's control characters raw
            from skillshelf.core.textsafe import visible

            text = visible(text, multiline=True)
        sys.stdout.write(text + "\n")
    return 0


def _run_zhin(ns: Any, catalog: Any) -> int:
    """``index --host zhin``: the ``# Skills (catalog)`` section (SPEC Z3). Zhin has no
    character budget for its catalog, so ``--budget`` and ``--form`` do not apply (a note on
    stderr says so when given); each description is cut at 96 characters instead."""
    from skillshelf.core.hosts.zhin import catalog_description, render_zhin_catalog

    if ns.budget is not None or ns.form != "index":
        print("skillshelf: host zhin renders one catalog section; --form and --budget are ignored", file=sys.stderr)
    sources = [s for s in catalog.current.sources if s.enabled]
    text = render_zhin_catalog(sources)
    shown = [s for s in sources if s.provenance.value == "zhin-plugin"]
    cut = sorted(s.name for s in shown if catalog_description(s.description).endswith("…")
                 and not " ".join((s.description or "").split()).endswith("…"))
    if ns.json:
        doc = {
            "host": "zhin",
            "text": text,
            "rendered": len(shown),
            "truncated": len(cut),
            "omitted": 0,
            "omittedNames": [],
            "truncatedNames": cut,
            "searchOnly": 0,
            "budget": None,
        }
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if sys.stdout.isatty():
        from skillshelf.core.textsafe import visible

        text = visible(text, multiline=True)
    sys.stdout.write(text + "\n")
    return 0
