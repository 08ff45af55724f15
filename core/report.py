"""Reports: the ``debug skill`` document (SPEC G1), the ``debug agent`` report (SPEC G2) and
their readable text forms.

The G1 JSON document has every key SPEC G1 lists, plus a few more (``lint`` per source, display
fields, ``diagnostics`` for catalog-level findings such as ``config-invalid`` and
``uncovered-folder``). Every ``SKILL.md`` discovery reached appears exactly once, in ``sources``
(accepted, including disabled ones) or in ``rejected``.

Host verdict and lint are kept apart (SPEC F): ``diagnostics`` on a source are the host's own
findings; ``lint`` holds the Agent Skills lint for the chosen target, which never changes what the
host does.

The G2 report is an :class:`AgentReport` (:func:`agent_report`); its JSON document is
:meth:`AgentReport.to_json`.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any, Protocol

from skillshelf.core.agents import agent_view
from skillshelf.core.budget import SelectedBody, SelectedBudgetExceeded, check_selected
from skillshelf.core.config import AgentConfig, Config
from skillshelf.core.frontmatter import parse_skill_file
from skillshelf.core.hostlint import cached_lint
from skillshelf.core.model import Exposure, Generation, Provenance, Rejected, Source, Status
from skillshelf.core.parsecache import ParseCache
from skillshelf.core.render import Form, render_budgeted
from skillshelf.core.resolve import resolve_required
from skillshelf.core.tokens import approx_tokens, shared_counter

__all__ = [
    "AGENT_PREVIEW_CHARS",
    "AgentInputs",
    "AgentReport",
    "IndexCoverage",
    "RequiredBody",
    "SelectedCoverage",
    "agent_report",
    "debug_agent_document",
    "debug_agent_report",
    "debug_agent_text",
    "debug_skill_document",
    "debug_skill_text",
    "rejected_json",
    "source_json",
    "summary",
]

log = logging.getLogger(__name__)


def _lint_for(item: Source | Rejected, target: str, cache: ParseCache | None = None,
              memo: dict[str, str | None] | None = None) -> dict[str, Any] | None:
    """Lint one listed file for ``target`` (SPEC F4–F5) through the parse ``cache`` (no second
    read of a file its host verdict already read, :func:`~skillshelf.core.hostlint.cached_lint`);
    ``None`` for built-ins."""
    if item.location.startswith("builtin://"):
        return None
    rep = cached_lint(item.location, item.canonical, target, cache, memo)
    return {
        "target": target,
        "valid": rep.valid,
        "diagnostics": [d.to_json() for d in rep.diagnostics],
    }


def summary(gen: Generation) -> dict[str, Any]:
    """Counts of SPEC G1 ``summary``.

    ``sources``: listed sources including disabled ones; ``indexed`` / ``searchable`` /
    ``explicit`` / ``described`` / ``unique`` are over enabled sources; ``rejected`` counts
    host-refused files; ``ambiguous`` lists names with two or more enabled sources (shadowed
    copies not counted).
    """
    enabled = [s for s in gen.sources if s.enabled]
    entries = [s.entry for s in enabled]
    return {
        "sources": len(gen.sources),
        "indexed": sum(1 for e in entries if e.indexed),
        "searchable": sum(1 for e in entries if e.searchable),
        "explicit": sum(1 for s in enabled if s.exposure is Exposure.EXPLICIT),
        "disabled": sum(1 for s in gen.sources if not s.enabled),
        "described": sum(1 for s in enabled if s.described),
        "unique": len({s.name for s in enabled}),
        "rejected": len(gen.rejected),
        "ambiguous": list(gen.ambiguous_names()),
    }


def source_json(s: Source, *, ambiguous: bool, lint_target: str | None,
                lint_cache: ParseCache | None = None, memo: dict[str, str | None] | None = None) -> dict[str, Any]:
    """One entry of G1 ``sources``."""
    out: dict[str, Any] = {
        "name": s.name,
        "location": s.location,
        "provenance": s.provenance.value,
        "root": s.root,
        "aliases": list(s.aliases),
        "description": s.description,
        "displayName": s.display_name,
        "shortDescription": s.short_description,
        "exposure": s.exposure.value,
        "exposureReason": s.exposure_reason,
        "enabled": s.enabled,
        "disabledReason": s.disabled_reason,
        "described": s.described,
        "ambiguous": ambiguous,
        "status": s.status.value,
        "shadowedBy": list(s.shadowed_by),
        "statusReason": s.status_reason,
        "metadataSources": list(s.metadata_sources),
        "size": s.size,
        "sha256": s.content_sha256,
        "diagnostics": [d.to_json() for d in s.diagnostics],
    }
    if s.provenance is Provenance.BUILTIN:
        out["builtin"] = {
            "profiles": list(s.builtin_profiles) if s.builtin_profiles is not None else None,
            "tools": list(s.builtin_tools),
        }
    if lint_target:
        lint = _lint_for(s, lint_target, lint_cache, memo)
        if lint is not None:
            out["lint"] = lint
    return out


def rejected_json(r: Rejected, *, lint_target: str | None, lint_cache: ParseCache | None = None,
                  memo: dict[str, str | None] | None = None) -> dict[str, Any]:
    """One entry of G1 ``rejected``: ``status`` is always ``rejected`` and ``statusReason`` the
    host's reason (the same keys as a source's, so a consumer can read both lists alike)."""
    out: dict[str, Any] = {
        "location": r.location,
        "name": r.name,
        "provenance": r.provenance.value,
        "root": r.root,
        "aliases": list(r.aliases),
        "status": "rejected",
        "shadowedBy": [],
        "statusReason": r.reason,
        "warning": r.warning.to_json() if r.warning else None,
        "size": r.size,
        "sha256": r.content_sha256,
        "diagnostics": [d.to_json() for d in r.diagnostics],
    }
    if lint_target:
        lint = _lint_for(r, lint_target, lint_cache, memo)
        if lint is not None:
            out["lint"] = lint
    return out


def debug_skill_document(gen: Generation, *, lint_target: str | None = "spec", client: str | None = None,
                         lint_cache: ParseCache | None = None) -> dict[str, Any]:
    """The SPEC G1 JSON document for ``gen``.

    ``lint_target`` (``spec``/``portable``/``zuno``/``zhin`` or ``None`` to skip) adds a ``lint``
    object to every file-backed source and rejected file; ``lint_cache``: the host's parse cache
    (lint from the same read as the verdict, :func:`~skillshelf.core.hostlint.cached_lint`).
    """
    counts = Counter(s.name for s in gen.sources if s.enabled and s.status is not Status.SHADOWED)
    memo: dict[str, str | None] = {}
    return {
        "host": gen.host,
        "client": client,
        "cwd": gen.cwd,
        "generation": gen.number,
        "digest": gen.digest,
        "roots": [r.to_json() for r in gen.roots],
        "sources": [
            source_json(s, ambiguous=s.enabled and s.status is not Status.SHADOWED and counts[s.name] > 1,
                        lint_target=lint_target, lint_cache=lint_cache, memo=memo)
            for s in gen.sources
        ],
        "rejected": [rejected_json(r, lint_target=lint_target, lint_cache=lint_cache, memo=memo)
                     for r in gen.rejected],
        "warnings": [w.to_json() for w in gen.warnings],
        "diagnostics": [d.to_json() for d in gen.diagnostics],
        "summary": summary(gen),
    }


def _diag_line(d: dict[str, Any]) -> str:
    pos = ""
    if d.get("line") is not None:
        pos = f"line {d['line']}"
        if d.get("column") is not None:
            pos += f" col {d['column']}"
        pos += ": "
    field = f" ({d['field']})" if d.get("field") else ""
    line = f"{pos}{d['severity']}[{d['code']}]{field} {d['message']}"
    if d.get("hint"):
        line += f"\n        hint: {d['hint']}"
    return line


def debug_skill_text(doc: dict[str, Any]) -> str:
    """Readable text form of a G1 document (what ``debug skill`` prints without ``--json``)."""
    out: list[str] = []
    s = doc["summary"]
    out.append(f"host {doc['host']}" + (f" ({doc['client']})" if doc.get("client") else "") + f" · cwd {doc['cwd']} · generation {doc['generation']} · digest {doc['digest'][:16]}")
    out.append("")
    out.append("roots (discovery order):")
    for r in doc["roots"]:
        mark = "" if r["exists"] else "   (missing)"
        if r.get("unread"):
            mark += f"   (not read: {r['unread']})"
        out.append(f"  {r['provenance']:<16} {r['path']}  [{r['pattern']}]{mark}")
    out.append("")
    out.append(f"sources ({len(doc['sources'])}):")
    for src in doc["sources"]:
        flags = []
        if src["ambiguous"]:
            flags.append("AMBIGUOUS")
        if not src["enabled"]:
            flags.append("disabled")
        if src["status"] in ("kept-last-valid", "shadowed", "hidden", "race"):
            flags.append("either may win" if src["status"] == "race" else src["status"])
        if not src["described"]:
            flags.append("no description")
        flag = f"  [{', '.join(flags)}]" if flags else ""
        out.append(f"  {src['name']}  {src['exposure']}  {src['provenance']}{flag}")
        out.append(f"      {src['location']}")
        if src["exposure"] != "index" or src["exposureReason"] not in ("default", "built-in"):
            out.append(f"      exposure: {src['exposureReason']}")
        if src.get("disabledReason"):
            out.append(f"      disabled by {src['disabledReason']}")
        if src.get("statusReason"):
            out.append(f"      {src['status']}: {src['statusReason']}")
        for by in src.get("shadowedBy", ()):
            out.append(f"      {'competes with' if src['status'] == 'race' else 'shadowed by'} {by}")
        for a in src["aliases"]:
            out.append(f"      alias {a}")
        for d in src["diagnostics"]:
            if d["severity"] != "info":
                out.append(f"      {_diag_line(d)}")
        lint = src.get("lint")
        if lint:
            for d in lint["diagnostics"]:
                if d["severity"] != "info":
                    out.append(f"      lint/{lint['target']} {_diag_line(d)}")
    if doc["rejected"]:
        out.append("")
        out.append(f"rejected ({len(doc['rejected'])}):")
        for r in doc["rejected"]:
            out.append(f"  {r['name']}  {r['provenance']}")
            out.append(f"      {r['location']}")
            if r.get("warning"):
                out.append(f"      {r['warning']['message']}")
            for d in r["diagnostics"]:
                out.append(f"      {_diag_line(d)}")
    if doc["warnings"]:
        out.append("")
        out.append(f"warnings ({len(doc['warnings'])}):")
        for w in doc["warnings"]:
            out.append(f"  [{w['kind']}] {w['message']}")
    if doc["diagnostics"]:
        out.append("")
        out.append("notes:")
        for d in doc["diagnostics"]:
            out.append(f"  {_diag_line(d)}")
            if d.get("path") and d["path"] not in d["message"]:
                out.append(f"        at {d['path']}")
    out.append("")
    out.append(
        "summary: {sources} sources · {indexed} indexed · {searchable} searchable · {explicit} explicit-only · "
        "{disabled} disabled · {described} described · {unique} unique names · {rejected} rejected".format(**s)
    )
    if s["ambiguous"]:
        out.append("ambiguous: " + ", ".join(s["ambiguous"]))
    return "\n".join(out)


# --------------------------------------------------------------------------- G2: debug agent

#: Characters of the index text shown in the G2 preview (SPEC G2 "a bounded preview").
AGENT_PREVIEW_CHARS = 2_000


class AgentInputs(Protocol):
    """What :func:`debug_agent_document` needs from a catalog (a
    :class:`~skillshelf.core.catalog.Catalog` has all of it)."""

    @property
    def current(self) -> Generation: ...

    @property
    def config(self) -> Config: ...

    @property
    def index_budget(self) -> int | None: ...

    @property
    def selected_budget(self) -> int | None: ...


@dataclass(frozen=True)
class IndexCoverage:
    """The index an agent gets (SPEC U1, P6): ``text`` exactly as rendered (``""`` when
    ``skills.includeInstructions`` is false), its budget and size in characters, the agent's
    token estimate and the exact ``cl100k_base`` count (``None`` without tiktoken, then
    ``exact`` is False), and what the budget did: ``rendered``, ``truncated`` and ``omitted``
    entries with their names, ``search_only`` skills."""

    text: str
    budget_chars: int | None
    approx_tokens: int
    tokens: int | None
    exact: bool
    include_instructions: bool
    rendered: int
    truncated: int
    truncated_names: tuple[str, ...]
    omitted: int
    omitted_names: tuple[str, ...]
    search_only: int

    @property
    def used_chars(self) -> int:
        """Characters of :attr:`text`."""
        return len(self.text)


@dataclass(frozen=True)
class RequiredBody:
    """One required skill's body (SPEC S2, U3): the agent's estimate ``tokens`` and the exact
    count ``exact_tokens`` (``None`` without tiktoken)."""

    name: str
    location: str
    tokens: int
    exact_tokens: int | None


@dataclass(frozen=True)
class SelectedCoverage:
    """The selected-body budget (SPEC U2–U3): ``budget_tokens`` (``None``: the host has none),
    the required ``bodies`` that could be read, and the U3 refusal text when they do not fit."""

    budget_tokens: int | None
    bodies: tuple[RequiredBody, ...]
    error: str | None

    @property
    def used_tokens(self) -> int:
        """Sum of the bodies' estimated tokens."""
        return sum(b.tokens for b in self.bodies)


@dataclass(frozen=True)
class AgentReport:
    """What one agent sees and whether it would start (SPEC G2).

    ``configured`` is False for an agent without ``agents.<name>`` (the unrestricted default
    view). ``visible``: the agent-filtered enabled sources (E4); ``hidden``: the built-ins it may
    not see. ``required``: required skills resolved to one source each; ``failures``:
    ``(name, reason)`` for the others. ``problems``: why the agent would fail to start, one
    sentence each (``ok`` is True when there is none).
    """

    host: str
    generation: int
    agent: str
    configured: bool
    profile: str | None
    tools: tuple[str, ...] | None
    visible: tuple[Source, ...]
    hidden: tuple[Source, ...]
    index: IndexCoverage
    selected: SelectedCoverage
    required: tuple[tuple[str, str], ...]
    failures: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when the agent would start."""
        return not self.problems

    @property
    def preview(self) -> str:
        """The index text bounded to :data:`AGENT_PREVIEW_CHARS` characters."""
        return self.index.text[:AGENT_PREVIEW_CHARS]

    def to_json(self) -> dict[str, Any]:
        """The SPEC G2 JSON document."""
        ix, sb = self.index, self.selected
        return {
            "host": self.host,
            "generation": self.generation,
            "agent": self.agent,
            "configured": self.configured,
            "profile": self.profile,
            "tools": list(self.tools) if self.tools is not None else None,
            "sources": len(self.visible),
            "hidden": [{"name": s.name, "location": s.location,
                        "reason": "built-in not allowed for this profile or tool set"} for s in self.hidden],
            "budgets": {
                "index": {
                    "budgetChars": ix.budget_chars,
                    "usedChars": ix.used_chars,
                    "approxTokens": ix.approx_tokens,
                    "tokens": ix.tokens,
                    "exact": ix.exact,
                },
                "selected": {
                    "budgetTokens": sb.budget_tokens,
                    "usedTokens": sb.used_tokens,
                    "bodies": [{"name": b.name, "location": b.location, "tokens": b.tokens,
                                "exactTokens": b.exact_tokens} for b in sb.bodies],
                    "error": sb.error,
                },
            },
            "index": {
                "includeInstructions": ix.include_instructions,
                "rendered": ix.rendered,
                "truncated": ix.truncated,
                "truncatedNames": list(ix.truncated_names),
                "omitted": ix.omitted,
                "omittedNames": list(ix.omitted_names),
                "searchOnly": ix.search_only,
            },
            "requiredSkills": {
                "ok": not self.failures,
                "resolved": [{"name": n, "location": loc} for n, loc in self.required],
                "failures": [{"name": n, "reason": r} for n, r in self.failures],
            },
            "preview": self.preview,
            "previewTruncated": len(ix.text) > AGENT_PREVIEW_CHARS,
            "ok": self.ok,
            "problems": list(self.problems),
        }


def _read_body(source: Source) -> tuple[str | None, str | None]:
    """(body, error) of a source: embedded body for built-ins, else the file re-read (SPEC L6)."""
    if source.body is not None:
        return source.body, None
    parsed = parse_skill_file(source.location)  # never raises: failures are its warning
    if parsed.warning is not None:
        return None, parsed.warning.message
    return parsed.body, None


def _exact_tokens(text: str) -> tuple[int, bool]:
    """(tokens, exact): the ``cl100k_base`` count, or the estimate when tiktoken is unavailable."""
    count = shared_counter().count(text)
    return count.tokens, count.exact


def agent_report(generation: Generation, name: str, *, config: Config, index_budget: int | None,
                 selected_budget: int | None) -> AgentReport:
    """The SPEC G2 report for agent ``name`` over ``generation``.

    ``config`` supplies ``agents.<name>`` (profile, tools, requiredSkills) and
    ``skills.includeInstructions``; ``index_budget`` is the index budget in characters (U1,
    ``None`` = unbounded) and ``selected_budget`` the selected-body budget in tokens (U2,
    ``None`` = not checked). Reads the required skills' bodies from disk (SPEC L6).
    """
    agent = config.agents.get(name)
    configured = agent is not None
    if agent is None:
        agent = AgentConfig(name=name)
    enabled = [s for s in generation.sources if s.enabled]
    visible = agent_view(enabled, agent)
    hidden = tuple(s for s in enabled if s not in visible)
    entries = [s.entry for s in visible]

    include = config.include_instructions
    rendered = render_budgeted(entries, Form.INDEX, index_budget if index_budget is not None else sys.maxsize)
    text = rendered.text if include else ""
    exact, is_exact = _exact_tokens(text)
    index = IndexCoverage(
        text=text, budget_chars=index_budget, approx_tokens=approx_tokens(text), tokens=exact,
        exact=is_exact, include_instructions=include, rendered=rendered.rendered,
        truncated=rendered.truncated, truncated_names=tuple(rendered.truncated_names),
        omitted=rendered.omitted, omitted_names=tuple(rendered.omitted_names),
        search_only=rendered.search_only)

    req = resolve_required(name, list(agent.required_skills), entries)
    by_loc = {s.location: s for s in visible}
    bodies: list[SelectedBody] = []
    rows: list[RequiredBody] = []
    problems: list[str] = []
    for e in req.resolved:
        src = by_loc.get(e.location)
        body, err = _read_body(src) if src is not None else (None, "not visible")
        if body is None:
            problems.append(f"required skill `{e.name}` cannot be read: {err}")
            continue
        tok = approx_tokens(body)
        ex, _ = _exact_tokens(body)
        bodies.append(SelectedBody(label=f"requiredSkills: {e.name}", location=e.location, tokens=tok))
        rows.append(RequiredBody(e.name, e.location, tok, ex))
    for rname, reason in req.failures:
        problems.append(f"required skill `{rname}`: {reason}")
    selected_error = None
    if selected_budget is not None:
        try:
            check_selected(bodies, selected_budget)
        except SelectedBudgetExceeded as exc:
            selected_error = str(exc)
            problems.append(str(exc).splitlines()[0])

    return AgentReport(
        host=generation.host, generation=generation.number, agent=name, configured=configured,
        profile=agent.profile, tools=agent.tools, visible=tuple(visible), hidden=hidden, index=index,
        selected=SelectedCoverage(selected_budget, tuple(rows), selected_error),
        required=tuple((e.name, e.location) for e in req.resolved), failures=tuple(req.failures),
        problems=tuple(problems))


def debug_agent_report(catalog: AgentInputs, name: str) -> AgentReport:
    """:func:`agent_report` for agent ``name`` over ``catalog``'s current generation."""
    return agent_report(catalog.current, name, config=catalog.config, index_budget=catalog.index_budget,
                        selected_budget=catalog.selected_budget)


def debug_agent_document(catalog: AgentInputs, name: str) -> dict[str, Any]:
    """The SPEC G2 JSON document for agent ``name`` over ``catalog``'s current generation."""
    return debug_agent_report(catalog, name).to_json()


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "unbounded"


def debug_agent_text(report: AgentReport) -> str:
    """Readable form of a G2 report (what ``debug agent`` prints without ``--json``)."""
    out: list[str] = []
    conf = "" if report.configured else "  (not configured: default unrestricted view)"
    out.append(f"agent {report.agent} · host {report.host} · generation {report.generation}{conf}")
    tools = ", ".join(report.tools) if report.tools is not None else "any"
    out.append(f"profile {report.profile or '—'} · tools {tools}")
    out.append(f"visible sources {len(report.visible)}"
               + (f" · hidden built-ins {len(report.hidden)}" if report.hidden else ""))
    for h in report.hidden:
        out.append(f"  hidden {h.name}  {h.location}")
    ix = report.index
    tok = f"{ix.tokens:,} tok" if ix.tokens is not None else "? tok"
    label = "" if ix.exact else " (approx)"
    out.append(f"index budget  {ix.used_chars:,} / {_count(ix.budget_chars)} chars · {tok}{label} · "
               f"agent estimate {ix.approx_tokens:,} tok")
    if not ix.include_instructions:
        out.append("  includeInstructions: false — the index is not in the prompt (list and search still work)")
    out.append(f"  rendered {ix.rendered} · truncated {ix.truncated} · omitted {ix.omitted} · "
               f"search-only {ix.search_only}")
    if ix.truncated_names:
        out.append("  truncated: " + ", ".join(ix.truncated_names))
    if ix.omitted_names:
        out.append("  omitted: " + ", ".join(ix.omitted_names))
    sb = report.selected
    out.append(f"selected-body budget  {sb.used_tokens:,} / {_count(sb.budget_tokens)} tok")
    for body in sb.bodies:
        out.append(f"  {body.name}: {body.tokens:,} tok  {body.location}")
    out.append("requiredSkills: " + ("FAIL" if report.failures else "ok"))
    for rname, location in report.required:
        out.append(f"  ✓ {rname}  {location}")
    for rname, reason in report.failures:
        out.append(f"  ✗ {rname}: {reason}")
    out.append("")
    out.append("index preview:")
    out.append(report.preview + ("\n…" if len(ix.text) > AGENT_PREVIEW_CHARS else ""))
    out.append("")
    if report.ok:
        out.append(f"agent {report.agent} would start")
    else:
        out.append(f"agent {report.agent} would FAIL to start:")
        for problem in report.problems:
            out.append(f"  - {problem}")
    return "\n".join(out)
