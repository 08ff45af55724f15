"""Lint by a client host's own rules (SPEC N6): what that client would do with one file.

``skillshelf lint --target claude`` reports the client's verdict — dropped (why), loaded with
empty metadata, name from the directory, description from the first paragraph, hidden from the
model — from :meth:`Host.accept <skillshelf.core.hosts.base.Host.accept>`, so the lint and the
host can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillshelf.core.fileread import read_regular
from skillshelf.core.frontmatter import os_error_reason
from skillshelf.core.hosts import HOSTS
from skillshelf.core.hosts.base import Host
from skillshelf.core.lint import LintReport, Target, lint_paths, text_checks
from skillshelf.core.model import Diagnostic, Severity

__all__ = ["host_lint_file", "host_lint_paths", "host_targets"]

#: Largest file read (bytes), as the client hosts read them.
_MAX_BYTES = 4 * 1024 * 1024


def host_targets() -> dict[str, Host]:
    """Lint targets that are hosts' own verdicts: every registered host whose lint target is
    its own name and not one of the rule sets of :class:`~skillshelf.core.lint.Target`."""
    rule_sets = {t.value for t in Target}
    return {h.lint_target: h for h in HOSTS.values() if h.lint_target == h.name and h.name not in rule_sets}


def host_lint_file(host: Host, path: str) -> LintReport:
    """``host``'s verdict on one file as a lint report: its own diagnostics, then an error when
    it drops the file; for a loaded file the lint's text checks (invisible characters, values cut
    by a comment, references that cannot travel: :func:`~skillshelf.core.lint.text_checks`), an
    info naming how it lists it and a warning when it hides it from the model.
    ``valid`` = the host loads the file. Never raises."""
    error: str | None = None
    try:
        data: bytes | None = read_regular(path, _MAX_BYTES)
    except OSError as exc:
        data, error = None, os_error_reason(exc)
    verdict = host.accept(path, data, error=error)
    diags = list(verdict.diagnostics)
    client = host.describe()
    if not verdict.accepted or verdict.name is None:
        if not any(d.severity is Severity.ERROR for d in diags):
            diags.append(Diagnostic(Severity.ERROR, f"{host.name}-drops",
                                    f"{client} does not load this file: {verdict.reason or 'rejected'}"))
        return LintReport(path, None, False, tuple(diags))
    diags.extend(text_checks(path))
    listed = f"{client} lists it as `{verdict.name}`"
    if verdict.display_name and verdict.display_name != verdict.name:
        listed += f" (frontmatter name `{verdict.display_name}`)"
    diags.append(Diagnostic(Severity.INFO, f"{host.name}-loads", listed))
    if verdict.hidden:
        diags.append(Diagnostic(Severity.WARNING, f"{host.name}-hides", f"hidden from the model: {verdict.hidden}"))
    return LintReport(path, verdict.name, True, tuple(diags))


def host_lint_paths(host: Host, paths: Sequence[str]) -> list[LintReport]:
    """:func:`host_lint_file` over skill directories, files or trees (as
    :func:`~skillshelf.core.lint.lint_paths` finds them). Raises ``FileNotFoundError``."""
    return lint_paths(paths, linter=lambda f: host_lint_file(host, f))
