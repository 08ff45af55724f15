"""The Problems view's entries (``e``): a generation's warnings, catalog diagnostics and rejected
files, folded and grouped (SPEC K1, D2, D4, R, H3, F6), and the one-line summary under the header."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from skillshelf.core.model import Diagnostic, Generation, Severity
from skillshelf.core.textsafe import visible

__all__ = [
    "ERROR_NAMED_MAX",
    "REJECTED_KIND",
    "SOURCE_NAMED_MAX",
    "Problem",
    "ProblemCounts",
    "first_error",
    "problem_counts",
    "problems",
    "problems_summary",
    "single_error_text",
]


#: Severity of a catalog warning kind that has no diagnostic twin (default ``warning``).
_WARNING_SEVERITY = {"config-invalid": Severity.ERROR}
_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
#: Group name of the host-refused files (SPEC F6).
REJECTED_KIND = "rejected"


@dataclass(frozen=True)
class Problem:
    """One entry of the Problems view.

    ``kind``: the warning kind (``PathNotFound``, ``config-invalid``, ``IndexStatus``,
    ``kept-last-valid`` …), the diagnostic code (``uncovered-folder``, ``config-not-found`` …) or
    :data:`REJECTED_KIND` for a host-refused file; entries are grouped by it. ``message``: the
    exact host / diagnostic text (unescaped: the view makes it visible, SPEC X1). ``source``: the
    path, URL or variable it is about (``""`` when none); ``hint``: the fix (for
    ``uncovered-folder`` the ``skills.paths`` snippet to add, SPEC D2); ``where``: ``line 3 col 1``
    when the finding has a position; ``code``: a rejected file's first diagnostic code;
    ``location``: the ``SKILL.md`` it names (a rejected file, a skill's own warning, or the skill
    of a sidecar), which the view can jump to, else ``None``.
    """

    severity: Severity
    kind: str
    message: str
    source: str = ""
    hint: str | None = None
    where: str = ""
    code: str = ""
    location: str | None = None


def first_error(diagnostics: Sequence[Diagnostic]) -> Diagnostic | None:
    """The first error-severity diagnostic of ``diagnostics``, ``None`` when there is none."""
    return next((d for d in diagnostics if d.severity is Severity.ERROR), None)


def _position(d: Diagnostic) -> str:
    parts = []
    if d.line is not None:
        parts.append(f"line {d.line}")
    if d.column is not None:
        parts.append(f"col {d.column}")
    return " ".join(parts)


def _skill_file(source: str) -> str | None:
    """The ``SKILL.md`` a warning's ``source`` names: the file itself, or the skill of a sidecar
    (``<skill>/agents/zuno.yaml`` / ``openai.yaml``, SPEC E2)."""
    if source.endswith("/SKILL.md"):
        return source
    head, _, name = source.rpartition("/")
    if name in ("zuno.yaml", "openai.yaml") and head.endswith("/agents"):
        return head[: -len("/agents")] + "/SKILL.md"
    return None


def problems(generation: Generation) -> tuple[Problem, ...]:
    """Everything wrong with ``generation`` that is not a lint finding, for the Problems view:
    its catalog-level diagnostics (config layers K1, ``uncovered-folder`` hints D2 …), its
    warnings (scan D4, remote R, kept-last-valid H3, sidecars E2, watch H4 …) and one entry per
    rejected file with its first diagnostic (F6).

    Nothing is listed twice: a warning repeating a diagnostic (``config-invalid`` is both), the
    host warning of a rejected file (shown by the rejected entry) and identical entries are folded. Order: groups by
    their worst severity (errors, warnings, notes), then by first appearance; entries in
    appearance order within a group. Warnings are ``warning`` severity except ``config-invalid``
    (error); rejected files are errors.
    """
    found: list[Problem] = []
    twins: set[tuple[str, str, str]] = set()
    for d in generation.diagnostics:
        # catalog diagnostics carry their position in the message (``layer:1:2: …``)
        found.append(Problem(d.severity, d.code, d.message, d.path or "", d.hint))
        twins.add((d.code, d.path or "", d.message))
    rejected_warnings = {r.warning for r in generation.rejected if r.warning is not None}
    for w in generation.warnings:
        if (w.kind, w.source, w.message) in twins or w in rejected_warnings:
            continue
        found.append(Problem(_WARNING_SEVERITY.get(w.kind, Severity.WARNING), w.kind, w.message, w.source,
                             location=_skill_file(w.source)))
    for r in generation.rejected:
        error = first_error(r.diagnostics)
        if error is not None:
            found.append(Problem(Severity.ERROR, REJECTED_KIND, error.message, r.location, error.hint, _position(error),
                                 error.code, r.location))
        else:
            message = r.warning.message if r.warning is not None else "refused by the host"
            code = r.warning.kind if r.warning is not None else ""
            found.append(Problem(Severity.ERROR, REJECTED_KIND, message, r.location, code=code, location=r.location))
    # one finding reported twice (the same warning from two layers or two passes) is one entry
    found = list(dict.fromkeys(found))
    order: dict[str, tuple[int, int]] = {}
    for i, p in enumerate(found):
        rank = _SEVERITY_RANK[p.severity]
        if p.kind in order:
            order[p.kind] = (min(order[p.kind][0], rank), order[p.kind][1])
        else:
            order[p.kind] = (rank, i)
    return tuple(sorted(found, key=lambda p: order[p.kind]))  # stable: appearance order within a group


class ProblemCounts(NamedTuple):
    """How many problems of each severity (notes = ``info``)."""

    errors: int
    warnings: int
    notes: int


def problem_counts(found: Sequence[Problem]) -> ProblemCounts:
    """:class:`ProblemCounts` of ``found``."""
    errors = sum(1 for p in found if p.severity is Severity.ERROR)
    warnings = sum(1 for p in found if p.severity is Severity.WARNING)
    return ProblemCounts(errors, warnings, len(found) - errors - warnings)


def problems_summary(found: Sequence[Problem]) -> str:
    """``1 error · 2 warnings · 1 note`` (zero counts left out); ``""`` when ``found`` is empty."""
    parts = []
    for n, word in zip(problem_counts(found), ("error", "warning", "note"), strict=True):
        if n:
            parts.append(f"{n:,} {word}{'' if n == 1 else 's'}")
    return " · ".join(parts)


#: Most characters of the one error's text named in the main screen's problems line.
ERROR_NAMED_MAX = 100
#: Most characters of the path in it (longer ones keep their end: ``…/broken/SKILL.md``).
SOURCE_NAMED_MAX = 40


def single_error_text(found: Sequence[Problem], limit: int = ERROR_NAMED_MAX) -> str:
    """The problems line when ``found`` holds exactly one error: the error named —
    ``config-invalid: $ZUNO_CONFIG_CONTENT:1:2: Expecting …`` or ``rejected: …/broken/SKILL.md
    line 3 col 14: mapping values …`` (kind, the path — its last
    :data:`SOURCE_NAMED_MAX` characters — when the message does not start with it, position,
    message; cut to ``limit`` characters with ``…``) — then the
    other counts (`` · 1 warning · 1 note``). Plain text, made visible (SPEC X1). Falls back to
    :func:`problems_summary` when there is not exactly one error."""
    errors = [p for p in found if p.severity is Severity.ERROR]
    if len(errors) != 1:
        return problems_summary(found)
    p = errors[0]
    head = "rejected" if p.kind == REJECTED_KIND else p.kind
    where = p.source
    if where and not p.message.startswith(where):
        if len(where) > SOURCE_NAMED_MAX:  # the end of a path tells files apart
            where = "…" + where[-(SOURCE_NAMED_MAX - 1):]
        where += (f" {p.where}" if p.where else "") + ": "
    else:
        where = ""
    # the rule code is for the Problems view (e); here the line's room goes to the message
    text = visible(" ".join(f"{head}: {where}{p.message}".split()))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    rest = problems_summary([q for q in found if q is not p])
    return text + (f" · {rest}" if rest else "")
