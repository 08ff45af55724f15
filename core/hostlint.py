"""Lint by a client host's own rules (SPEC N6): what that client would do with one file.

``skillshelf lint --target claude`` reports the client's verdict — dropped (why), loaded with
empty metadata, name from the directory, description from the first paragraph, hidden from the
model — from :meth:`Host.accept <skillshelf.core.hosts.base.Host.accept>`, so the lint and the
host can never disagree.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Sequence
from functools import partial

from skillshelf.core.fileread import read_regular
from skillshelf.core.frontmatter import os_error_reason, parse_skill_bytes, parse_skill_file
from skillshelf.core.hosts import HOSTS
from skillshelf.core.hosts.base import Host
from skillshelf.core.lint import (
    LintDraft,
    LintReport,
    Reference,
    Target,
    finish_lint,
    lint_draft,
    lint_file,
    lint_paths,
    text_draft,
    travel_checks,
)
from skillshelf.core.model import Diagnostic, Severity
from skillshelf.core.parsecache import ParseCache, Product

__all__ = ["cached_lint", "finish_host_lint", "host_lint_bytes", "host_lint_file", "host_lint_paths", "host_target",
           "host_targets", "keep_lint", "lint_product"]

#: Largest file read (bytes), as the client hosts read them.
_MAX_BYTES = 4 * 1024 * 1024
#: Largest file linted from the bytes a host read (no host reads less than this).
_PRODUCT_MAX = 1024 * 1024


@functools.cache
def _host_targets() -> dict[str, Host]:
    rule_sets = {t.value for t in Target}
    return {h.lint_target: h for h in HOSTS.values() if h.lint_target == h.name and h.name not in rule_sets}


def host_target(target: str) -> Host | None:
    """The host whose own verdict lint target ``target`` is (see :func:`host_targets`), or
    ``None`` for a rule set; imports only that host."""
    if target in _RULE_SETS or target not in HOSTS:
        return None
    host = HOSTS[target]
    return host if host.lint_target == host.name else None


_RULE_SETS = frozenset(t.value for t in Target)


def host_targets() -> dict[str, Host]:
    """Lint targets that are hosts' own verdicts: every registered host whose lint target is
    its own name and not one of the rule sets of :class:`~skillshelf.core.lint.Target`."""
    return dict(_host_targets())


def host_lint_file(host: Host, path: str) -> LintReport:
    """``host``'s verdict on one file as a lint report: its own diagnostics, then an error when
    it drops the file; for a loaded file the lint's text checks (values cut by a comment,
    invisible characters, then references that cannot travel: :func:`~skillshelf.core.lint.text_draft`,
    :func:`~skillshelf.core.lint.travel_checks`), an info naming how it lists it and a warning
    when it hides it from the model. ``valid`` = the host loads the file. Never raises."""
    return finish_host_lint(_host_draft(host, path))


def _host_draft(host: Host, path: str) -> LintReport:
    error: str | None = None
    try:
        data: bytes | None = read_regular(path, _MAX_BYTES)
    except OSError as exc:
        data, error = None, os_error_reason(exc)
    return host_lint_bytes(host, path, data, error)


def finish_host_lint(report: LintReport) -> LintReport:
    """``report`` (:func:`host_lint_bytes`) with its references checked against the skill
    folder as it is now (``missing-reference``, ``reference-outside``). Never raises."""
    if not report.refs:
        return report
    found = travel_checks(report.path, report.refs)
    return LintReport(report.path, report.name, report.valid, report.diagnostics + found)


def host_lint_bytes(host: Host, path: str, data: bytes | None, error: str | None = None) -> LintReport:
    """:func:`host_lint_file` on bytes already read (``None``: unreadable, ``error`` why),
    before its references are checked (``refs``: :func:`finish_host_lint` does it)."""
    if data is not None and len(data) > _MAX_BYTES:
        data = data[: _MAX_BYTES + 1]  # what host_lint_file reads of a larger file
    verdict = host.accept(path, data, error=error)
    diags = list(verdict.diagnostics)
    client = host.describe()
    if not verdict.accepted or verdict.name is None:
        if not any(d.severity is Severity.ERROR for d in diags):
            diags.append(Diagnostic(Severity.ERROR, f"{host.name}-drops",
                                    f"{client} does not load this file: {verdict.reason or 'rejected'}"))
        return LintReport(path, None, False, tuple(diags))
    refs: tuple[Reference, ...] = ()
    if data is not None:
        try:
            found, refs = text_draft(data.decode("utf-8"))
        except UnicodeDecodeError:  # the host decoded it its own way; the text checks need UTF-8
            found = ()
        diags.extend(found)
    listed = f"{client} lists it as `{verdict.name}`"
    if verdict.display_name and verdict.display_name != verdict.name:
        listed += f" (frontmatter name `{verdict.display_name}`)"
    diags.append(Diagnostic(Severity.INFO, f"{host.name}-loads", listed))
    if verdict.hidden:
        diags.append(Diagnostic(Severity.WARNING, f"{host.name}-hides", f"hidden from the model: {verdict.hidden}"))
    return LintReport(path, verdict.name, True, tuple(diags), refs=refs)


def lint_product(target: str) -> Product:
    """The parse-cache product that lints, for ``target``, the bytes a host read for its verdict
    (:meth:`~skillshelf.core.parsecache.ParseCache.produce`): one read serves both. Rule-set
    targets keep a :class:`~skillshelf.core.lint.LintDraft` labelled by the folder name, host
    targets the host's report labelled by the path it was read as."""
    host = host_target(target)
    rule = None if host is not None else Target(target)

    def product(path: str, data: bytes) -> tuple[str, object] | None:
        if len(data) > _PRODUCT_MAX:
            return None  # a host may have read only part of a large file: lint reads it whole itself
        if host is not None:
            return path, host_lint_bytes(host, path, data)
        folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
        assert rule is not None
        return folder, lint_draft(parse_skill_bytes(data, path), folder, target=rule)

    return product


def cached_lint(location: str, canonical: str, target: str, cache: ParseCache | None,
                memo: dict[str, str | None] | None = None) -> LintReport:
    """The lint of the file at ``location`` (its canonical path ``canonical``) for ``target`` —
    a rule set or a host's own verdict — through the parse ``cache``: nothing is read when the
    file is unchanged since its lint (or its host verdict, with :func:`lint_product`) was kept;
    the checks that look at other files run now (:func:`~skillshelf.core.lint.finish_lint`).
    ``memo``: shared by the files of one report (:func:`~skillshelf.core.lint.finish_lint`).
    Equal to :func:`~skillshelf.core.lint.lint_file` / :func:`host_lint_file`. Never raises."""
    host = host_target(target)
    entry = _lint_entry(target, location, canonical, cache) if cache is not None and cache.enabled else None
    if entry is None:
        return host_lint_file(host, location) if host is not None else lint_file(location, target=Target(target),
                                                                                 memo=memo)
    if isinstance(entry, LintReport):
        return finish_host_lint(entry)
    assert isinstance(entry, LintDraft)
    return finish_lint(location, entry, memo)


def keep_lint(target: str, location: str, canonical: str, cache: ParseCache) -> None:
    """What :func:`cached_lint` keeps in ``cache`` for the file, made now when it is not kept
    (its checks of other files are left to :func:`cached_lint`): for a process reading ahead
    (:meth:`~skillshelf.core.hosts.base.HostSession.read_ahead`). Never raises."""
    _lint_entry(target, location, canonical, cache)


def _lint_entry(target: str, location: str, canonical: str, cache: ParseCache) -> LintReport | LintDraft | None:
    """The lint kept in ``cache`` for the file (made and kept now when it is not): a host
    target's report before its references are checked, a rule set's draft; ``None`` for a
    file that is not regular or cannot be stat-ed (never kept)."""
    try:
        st = os.stat(canonical)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    kind = f"lint:{target}"
    host = host_target(target)
    if host is not None:
        report, _ = cache.lookup(kind, canonical, partial(_host_draft, host, location), label=location, st=st,
                                 derive=False)
        return report
    folder = os.path.basename(os.path.dirname(os.path.abspath(location)))
    draft, _ = cache.lookup(kind, canonical, partial(_file_draft, location, folder, Target(target)), label=folder,
                            st=st, derive=False)
    return draft


def _file_draft(path: str, folder: str, target: Target) -> LintDraft:
    return lint_draft(parse_skill_file(path), folder, target=target)


def host_lint_paths(host: Host, paths: Sequence[str]) -> list[LintReport]:
    """:func:`host_lint_file` over skill directories, files or trees (as
    :func:`~skillshelf.core.lint.lint_paths` finds them). Raises ``FileNotFoundError``."""
    return lint_paths(paths, linter=lambda f: host_lint_file(host, f))
