"""``skillshelf lint PATH... [--target spec|portable|zuno|zhin|claude|codex|opencode|gemini] [--json]`` (SPEC C, F4–F5, N6).

Text output, one line per diagnostic like a compiler::

    skills/a/SKILL.md:3:14: error[quote-description] unquoted `: ` inside ...
      hint: description: "Triage build logs: list errors first"

(``:line`` / ``:col`` omitted when unknown), then a summary line on stderr that counts files and
diagnostics apart (:func:`summary_line`). ``--json`` prints one document ``{"target", "files":
[{"path", "name", "valid", "diagnostics"}], "summary": {"files", "valid", "invalid", "errors",
"warnings", "notes"}}``. Exit codes (SPEC C2): 0 no errors, 1 errors found, 2 a path does
not exist or there is nothing to lint.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from skillshelf.app.cli import DefaultHost, LazyChoices
from skillshelf.app.output import print_json

if TYPE_CHECKING:
    from skillshelf.core.lint import LintReport


def _targets() -> list[str]:
    from skillshelf.core.hostlint import host_targets
    from skillshelf.core.lint import Target

    return [t.value for t in Target] + list(host_targets())


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Register ``lint`` (accepts the COMMON options harmlessly)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "lint",
        parents=[common],
        help="check SKILL.md files against the Agent Skills standard or a host",
        description="Lint skill directories, SKILL.md files or whole trees against the Agent Skills rules. "
                    "--host NAME without --target lints by that host's rules (--target NAME); the other "
                    "common options do not apply to lint.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="skill directory, SKILL.md file or tree")
    p.add_argument("--target", choices=LazyChoices(_targets), default=None, metavar="TARGET",
                   help="rule set (default spec): one of %(choices)s — spec, portable, zuno and zhin are "
                        "rule sets, a client host's name is that client's own verdict")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(run=run)
    return p


def format_report(report: LintReport) -> list[str]:
    """The text lines for one report: ``path[:line[:col]]: severity[code] message`` plus an
    indented ``hint:`` line per hint."""
    lines: list[str] = []
    for d in report.diagnostics:
        where = _one_line(report.path)  # a folder named with a newline cannot forge a line
        if d.line is not None:
            where += f":{d.line}"
            if d.column is not None:
                where += f":{d.column}"
        lines.append(f"{where}: {d.severity.value}[{d.code}] {_one_line(d.message)}")
        if d.hint:
            lines.append(f"  hint: {_one_line(d.hint)}")
    return lines


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


def summary(reports: list[LintReport]) -> dict[str, int]:
    """Counts over ``reports``: files (``files``, ``valid``, ``invalid``: with at least one
    error) and diagnostics (``errors``, ``warnings``, ``notes``: info)."""
    errors = sum(r.errors for r in reports)
    warnings = sum(r.warnings for r in reports)
    valid = sum(1 for r in reports if r.valid)
    return {
        "files": len(reports),
        "valid": valid,
        "invalid": len(reports) - valid,
        "errors": errors,
        "warnings": warnings,
        "notes": sum(len(r.diagnostics) for r in reports) - errors - warnings,
    }


def summary_line(target: str, counts: dict[str, int]) -> str:
    """``3 files checked (spec): 2 valid, 1 invalid — 2 errors, 4 warnings, 1 note``: files and
    diagnostics counted apart (``1 error`` is one finding, not one file)."""
    return (f"{_plural(counts['files'], 'file')} checked ({target}): {counts['valid']} valid, {counts['invalid']} "
            f"invalid — {_plural(counts['errors'], 'error')}, {_plural(counts['warnings'], 'warning')}, "
            f"{_plural(counts['notes'], 'note')}")


def with_slash_note(report: LintReport, target: str) -> LintReport:
    """``report`` with the info ``slash-command`` when ``target`` is a host (``zuno``, a client)
    and the skill is named like one of its own commands (SPEC S1, :meth:`Host.slash_note
    <skillshelf.core.hosts.base.Host.slash_note>`)."""
    from dataclasses import replace

    from skillshelf.core.hosts import HOSTS
    from skillshelf.core.model import Diagnostic, Severity

    host = HOSTS.get(target)
    note = host.slash_note(report.name) if host is not None and report.name else None
    if note is None:
        return report
    return replace(report, diagnostics=report.diagnostics + (Diagnostic(Severity.INFO, "slash-command", note,
                                                                            field="name"),))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def run(ns: argparse.Namespace) -> int:
    """Run the lint; returns the exit code (0, 1 or 2)."""
    from skillshelf.app.common import terminal_text
    from skillshelf.core.hostlint import host_lint_paths, host_targets
    from skillshelf.core.lint import Target, lint_paths

    hosts = host_targets()
    if ns.target is None:
        # a --host given on purpose chooses the rules (`lint --host claude` means Claude Code's
        # verdict, never the spec's in silence); every host's name is a target
        ns.target = "spec" if isinstance(ns.host, DefaultHost) else str(ns.host)
    try:
        if ns.target in hosts:
            reports = host_lint_paths(hosts[ns.target], ns.paths)
        else:
            reports = lint_paths(ns.paths, target=Target(ns.target))
    except FileNotFoundError as exc:
        print(f"skillshelf lint: path does not exist: {exc.args[0]}", file=sys.stderr)
        return 2
    if not reports:
        print("skillshelf lint: no SKILL.md found under " + ", ".join(ns.paths), file=sys.stderr)
        return 2
    reports = [with_slash_note(r, ns.target) for r in reports]
    counts = summary(reports)
    if ns.json:
        doc = {"target": ns.target, "files": [r.to_json() for r in reports], "summary": counts}
        print_json(doc)
    else:
        for r in reports:
            for line in format_report(r):
                print(terminal_text(line))  # SPEC X1: a skill's escapes never reach the terminal raw
    print(summary_line(ns.target, counts), file=sys.stderr)
    return 1 if counts["errors"] else 0
