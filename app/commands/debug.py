"""``skillshelf debug skill`` (SPEC G1) and ``skillshelf debug agent NAME`` (SPEC G2)."""

from __future__ import annotations

import json
import sys
from typing import Any

from skillshelf.app.common import open_catalog, terminal_text
from skillshelf.core.hostlint import host_targets
from skillshelf.core.lint import Target
from skillshelf.core.report import debug_agent_report, debug_agent_text, debug_skill_document, debug_skill_text


def add_parser(sub: Any, common: Any) -> None:
    """Register ``debug skill`` and ``debug agent``."""
    p = sub.add_parser("debug", help="reports: debug skill | debug agent NAME")
    dsub = p.add_subparsers(dest="debug_what", metavar="WHAT", required=True)
    ps = dsub.add_parser("skill", parents=[common], help="every source, rejected file and warning (SPEC G1)")
    ps.add_argument("--json", action="store_true", help="print the G1 JSON document")
    ps.add_argument("--lint-target", default=None, choices=[t.value for t in Target] + list(host_targets()) + ["none"],
                    help="lint target shown beside the host verdict (default: the host's own; none to skip)")
    ps.set_defaults(run=run_skill)
    pa = dsub.add_parser("agent", parents=[common], help="one agent's filtered view and budgets (SPEC G2)")
    pa.add_argument("name", metavar="NAME")
    pa.add_argument("--json", action="store_true", help="print the G2 JSON document")
    pa.set_defaults(run=run_agent)


def run_skill(ns: Any) -> int:
    """Print the G1 document (text or JSON). Exit 0 (reports never fail on bad skills)."""
    cat = open_catalog(ns)
    target = ns.lint_target or cat.host.lint_target
    if target == "none":
        target = None
    doc = debug_skill_document(cat.current, lint_target=target, client=cat.host.describe())
    if ns.json:
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(terminal_text(debug_skill_text(doc)))  # SPEC X1
    return 0


def run_agent(ns: Any) -> int:
    """Print the G2 document; exit 1 when the agent would fail to start (S2, U3)."""
    cat = open_catalog(ns)
    report = debug_agent_report(cat, ns.name)
    if ns.json:
        json.dump(report.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(terminal_text(debug_agent_text(report)))  # SPEC X1
    return 0 if report.ok else 1
