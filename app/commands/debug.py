"""``skillshelf debug skill`` (SPEC G1) and ``skillshelf debug agent NAME`` (SPEC G2)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from skillshelf.app.cli import LazyChoices
from skillshelf.app.output import json_escaped, print_json


def _lint_targets() -> list[str]:
    from skillshelf.core.hostlint import host_targets
    from skillshelf.core.lint import Target

    return [t.value for t in Target] + list(host_targets()) + ["none"]


def _agent_name(value: str) -> str:
    """``debug agent NAME``: a name with a character other than white space (an empty name
    made a report of an agent called nothing)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("an agent name is needed (for example orchestrator or review)")
    return value


def add_parser(sub: Any, common: Any) -> None:
    """Register ``debug skill`` and ``debug agent``."""
    p = sub.add_parser("debug", help="reports: debug skill | debug agent NAME")
    dsub = p.add_subparsers(dest="debug_what", metavar="WHAT", required=True)
    ps = dsub.add_parser("skill", parents=[common], help="every source, rejected file and warning",
                         description="Every root the host reads, every skill source with its status "
                                     "and why, every rejected file and every warning, with the lint "
                                     "beside the host's verdict. Always exits 0.")
    ps.add_argument("--json", action="store_true",
                    help="print one JSON document (roots, sources, rejected, warnings, summary)")
    ps.add_argument("--lint-target", default=None, choices=LazyChoices(_lint_targets), metavar="TARGET",
                    help="lint target shown beside the host verdict (default: the host's own; none to skip)")
    ps.add_argument("--format", choices=["skillshelf", "zuno"], default="skillshelf",
                    help="JSON shape: skillshelf's (default) or Zuno's own `zuno debug skill --json` (implies --json)")
    ps.set_defaults(run=run_skill)
    pa = dsub.add_parser("agent", parents=[common], help="one agent's filtered view and budgets",
                         description="What one Zuno agent sees: the skills its profile and tools leave "
                                     "visible, its budgets, its required skills; exit 1 when it would "
                                     "not start. Hosts without agents refuse it (exit 2).")
    pa.add_argument("name", metavar="NAME", type=_agent_name,
                    help="a Zuno native agent (orchestrator, review, deep …) or an agents.<name> entry "
                         "of the configuration; any other name is a custom agent with no configuration")
    pa.add_argument("--json", action="store_true",
                    help="print one JSON document (the agent, its visible and hidden sources, budgets)")
    pa.add_argument("--format", choices=["skillshelf", "zuno"], default="skillshelf",
                    help="JSON shape: skillshelf's (default) or Zuno's own `zuno debug agent` (implies --json)")
    pa.set_defaults(run=run_agent)


def _native_format(ns: Any, cat: Any) -> bool:
    """True when ``--format zuno`` was asked for; exits 2 when the host has no such shape."""
    from skillshelf.core.hosts.base import Feature

    if ns.format == "skillshelf":
        return False
    if Feature.NATIVE_REPORTS not in cat.host.features:
        print(f"skillshelf: --format zuno: host {cat.host.name} has no Zuno report shape", file=sys.stderr)
        raise SystemExit(2)
    return True


def _refusal(cat: Any) -> None:
    """Say on stderr, prominently, that the agent would not start with this configuration."""
    from skillshelf.app.common import terminal_text

    refusal = cat.config.refusal
    if refusal is not None:
        print(f"skillshelf: {terminal_text(refusal.message, sys.stderr)}", file=sys.stderr)


def run_skill(ns: Any) -> int:
    """Print the G1 document (text or JSON; ``--format zuno``: Zuno's own shape). Exit 0 (reports
    never fail on bad skills); a configuration Zuno would refuse is said first (text) or on
    stderr (Zuno's shape), conformance Z-K."""
    from skillshelf.app.common import context_from, terminal_text
    from skillshelf.app.keptrun import depends_on
    from skillshelf.core import fsprobe
    from skillshelf.core.catalog import Catalog
    from skillshelf.core.hostlint import lint_product
    from skillshelf.core.hosts import get_host
    from skillshelf.core.lint import Target
    from skillshelf.core.report import debug_skill_document, debug_skill_text

    host = get_host(ns.host)
    target = ns.lint_target or host.lint_target
    if target == "none":
        target = None
    context = context_from(ns)
    if context.cache is not None and target is not None and ns.format == "skillshelf":
        context.cache.produce(f"lint:{target}", lint_product(target))  # lint from the host's own read
    cat = Catalog.from_context(host, context)
    if _native_format(ns, cat):
        from skillshelf.core.report import zuno_debug_skill_document

        _refusal(cat)
        json.dump(zuno_debug_skill_document(cat.current, cat.config), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    lint_cache = context.cache.for_host(host.name, host.version) if context.cache is not None else None
    with fsprobe.recording() as asked:  # what the lint looks at besides the files (a kept output's proof)
        doc = debug_skill_document(cat.current, lint_target=target, client=cat.host.describe(),
                                   lint_cache=lint_cache, refusal=cat.config.refusal, prompt=cat.model_catalog())
    # a client's own lint (a host target) reads in ways not recorded: its report is never kept
    depends_on(asked if target is None or target in {t.value for t in Target} else None)
    if ns.json:
        # one line per top-level key keeps the document readable; each value is written by the C
        # encoder (an indented dump of 10,000 sources takes seconds in the pure-Python one)
        sys.stdout.write(json_escaped(_json_document(doc)))  # SPEC X1: C1 controls and surrogates escaped
    else:
        print(terminal_text(debug_skill_text(doc)))  # SPEC X1
    sys.stdout.flush()
    cat.save_cache()  # the lint worked out for the report is kept for the next run
    return 0


def _json_document(doc: dict[str, Any]) -> str:
    """``doc`` as JSON: an object with one key per line and each source / rejected file / warning
    on its own line (compact inside), ending with a newline."""
    lines = ["{"]
    items = list(doc.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        head = f"  {json.dumps(key, ensure_ascii=False)}: "
        if isinstance(value, list) and value:
            inner = ",\n".join("    " + json.dumps(v, ensure_ascii=False) for v in value)
            lines.append(f"{head}[\n{inner}\n  ]{comma}")
        else:
            lines.append(f"{head}{json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_agent(ns: Any) -> int:
    """Print the G2 document (``--format zuno``: Zuno's own shape); exit 1 when the agent would
    fail to start (S2, U3, a configuration Zuno refuses, Z-K)."""
    from skillshelf.app.common import open_catalog, terminal_text
    from skillshelf.core.hosts import get_host
    from skillshelf.core.hosts.base import Feature
    from skillshelf.core.report import debug_agent_report, debug_agent_text

    host = get_host(ns.host)
    if Feature.AGENTS not in host.features:
        # a report of an agent the client has no notion of would invent one (a demanding user
        # reads "visible sources 32" as that agent's view): refused as a usage error instead
        print(f"skillshelf debug agent: host {host.name} has no agent profiles: {host.describe()} gives every "
              "conversation the same skills (debug skill shows them; agents are Zuno's: use --host zuno)",
              file=sys.stderr)
        return 2
    cat = open_catalog(ns)
    report = debug_agent_report(cat, ns.name)
    if _native_format(ns, cat):
        from skillshelf.core.report import zuno_debug_agent_document

        _refusal(cat)
        doc = zuno_debug_agent_document(report, cat.current, cat.config)
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0 if report.ok else 1
    if ns.json:
        print_json(report.to_json())
    else:
        print(terminal_text(debug_agent_text(report)))  # SPEC X1
    return 0 if report.ok else 1
