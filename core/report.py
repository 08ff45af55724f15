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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from skillshelf.core.agents import agent_view, resolve_required_skills
from skillshelf.core.budget import SelectedBody, SelectedBudgetExceeded, check_selected
from skillshelf.core.config import Config, ConfigRefusal
from skillshelf.core.hostlint import cached_lint
from skillshelf.core.hosts import HOSTS
from skillshelf.core.hosts.base import (
    UNKNOWN_WINDOW,
    ContextWindow,
    EntryState,
    Host,
    HostCatalog,
    HostSession,
    PromptSection,
)
from skillshelf.core.model import Exposure, Generation, Provenance, Rejected, Source, Status
from skillshelf.core.parsecache import ParseCache
from skillshelf.core.tokens import TokenSpan, approx_tokens, shared_counter

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
    "host_body",
    "rejected_json",
    "required_body",
    "section_json",
    "selected_refusal",
    "source_json",
    "summary",
    "window_json",
    "zuno_debug_agent_document",
    "zuno_debug_skill_document",
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
                lint_cache: ParseCache | None = None, memo: dict[str, str | None] | None = None,
                host: Host | None = None) -> dict[str, Any]:
    """One entry of G1 ``sources``; ``host`` adds ``slashNote`` (SPEC S1: a skill named like
    one of the host's own commands, :meth:`Host.slash_note`), ``null`` when none."""
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
        # a host's own built-in skill is that command, never a clash with it
        "slashNote": (host.slash_note(s.name)
                      if host is not None and s.provenance is not Provenance.BUILTIN else None),
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
                         refusal: ConfigRefusal | None = None, prompt: HostCatalog | None = None,
                         lint_cache: ParseCache | None = None) -> dict[str, Any]:
    """The SPEC G1 JSON document for ``gen``.

    ``lint_target`` (``spec``/``portable``/``zuno``/``zhin`` or ``None`` to skip) adds a ``lint``
    object to every file-backed source and rejected file; ``lint_cache``: the host's parse cache
    (lint from the same read as the verdict, :func:`~skillshelf.core.hostlint.cached_lint`).
    ``refusal``: why the host itself would not start (``refusal`` key, conformance Z-K);
    ``prompt``: the host's catalog, for the ``window`` the budgets use and the host's ``notes``
    (which built-ins, which agent).
    """
    counts = Counter(s.name for s in gen.sources if s.enabled and s.status is not Status.SHADOWED)
    memo: dict[str, str | None] = {}
    host = HOSTS.get(gen.host)
    return {
        "host": gen.host,
        "client": client,
        "refusal": refusal.message if refusal is not None else None,
        "window": window_json(prompt.window) if prompt is not None else None,
        "notes": list(prompt.notes) if prompt is not None else [],
        "cwd": gen.cwd,
        "generation": gen.number,
        "digest": gen.digest,
        "roots": [r.to_json() for r in gen.roots],
        "sources": [
            source_json(s, ambiguous=s.enabled and s.status is not Status.SHADOWED and counts[s.name] > 1,
                        lint_target=lint_target, lint_cache=lint_cache, memo=memo, host=host)
            for s in gen.sources
        ],
        "rejected": [rejected_json(r, lint_target=lint_target, lint_cache=lint_cache, memo=memo)
                     for r in gen.rejected],
        "warnings": [w.to_json() for w in gen.warnings],
        "diagnostics": [d.to_json() for d in gen.diagnostics],
        "summary": summary(gen),
    }


def _one(value: object) -> str:
    """``value`` on one line: ``\\r`` and ``\\n`` written as those two characters (lint's form)."""
    return str(value).replace("\r", "\\r").replace("\n", "\\n")


def _diag_line(d: dict[str, Any]) -> str:
    pos = ""
    if d.get("line") is not None:
        pos = f"line {d['line']}"
        if d.get("column") is not None:
            pos += f" col {d['column']}"
        pos += ": "
    field = f" ({d['field']})" if d.get("field") else ""
    line = f"{pos}{d['severity']}[{d['code']}]{field} {_one(d['message'])}"
    if d.get("hint"):
        line += f"\n        hint: {_one(d['hint'])}"
    return line


def debug_skill_text(doc: dict[str, Any]) -> str:
    """Readable text form of a G1 document (what ``debug skill`` prints without ``--json``).

    One item per line: a line break inside a name, path or message (a folder named with a
    newline) is written ``\\n`` (``\\r``), as ``lint`` does, so no skill can forge a line of the
    report; ``--json`` has the exact text."""
    out: list[str] = []
    s = doc["summary"]
    if doc.get("refusal"):
        out.append(doc["refusal"])
        out.append("")
    out.append(f"host {doc['host']}" + (f" ({doc['client']})" if doc.get("client") else "") + f" · cwd {_one(doc['cwd'])} · generation {doc['generation']} · digest {doc['digest'][:16]}")
    if doc.get("window"):
        out.append(f"context window: {doc['window']['text']}")
    for note in doc.get("notes", ()):
        out.append(f"note: {_one(note)}")
    out.append("")
    out.append("roots (discovery order):")
    for r in doc["roots"]:
        mark = "" if r["exists"] else "   (missing)"
        if r.get("unread"):
            mark += f"   (not read: {r['unread']})"
        out.append(f"  {r['provenance']:<16} {_one(r['path'])}  [{r['pattern']}]{_one(mark)}")
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
        out.append(f"  {_one(src['name'])}  {src['exposure']}  {src['provenance']}{flag}")
        out.append(f"      {_one(src['location'])}")
        if src["exposure"] != "index" or src["exposureReason"] not in ("default", "built-in"):
            out.append(f"      exposure: {_one(src['exposureReason'])}")
        if src.get("disabledReason"):
            out.append(f"      disabled by {_one(src['disabledReason'])}")
        if src.get("statusReason"):
            out.append(f"      {src['status']}: {_one(src['statusReason'])}")
        for by in src.get("shadowedBy", ()):
            out.append(f"      {'competes with' if src['status'] == 'race' else 'shadowed by'} {_one(by)}")
        for a in src["aliases"]:
            out.append(f"      alias {_one(a)}")
        if src.get("slashNote"):
            out.append(f"      note: {_one(src['slashNote'])}")
        shown = set()
        for d in src["diagnostics"]:
            if d["severity"] != "info":
                shown.add(_diag_line(d))
                out.append(f"      {_diag_line(d)}")
        lint = src.get("lint")
        if lint:
            for d in lint["diagnostics"]:
                # (a host's own finding, which its lint repeats, is shown once: above)
                if d["severity"] != "info" and _diag_line(d) not in shown:
                    out.append(f"      lint/{lint['target']} {_diag_line(d)}")
    if doc["rejected"]:
        out.append("")
        out.append(f"rejected ({len(doc['rejected'])}):")
        for r in doc["rejected"]:
            out.append(f"  {_one(r['name'])}  {r['provenance']}")
            out.append(f"      {_one(r['location'])}")
            if r.get("warning"):
                out.append(f"      {_one(r['warning']['message'])}")
            for d in r["diagnostics"]:
                out.append(f"      {_diag_line(d)}")
    if doc["warnings"]:
        out.append("")
        out.append(f"warnings ({len(doc['warnings'])}):")
        for w in doc["warnings"]:
            out.append(f"  [{w['kind']}] {_one(w['message'])}")
    if doc["diagnostics"]:
        out.append("")
        out.append("notes:")
        for d in doc["diagnostics"]:
            out.append(f"  {_diag_line(d)}")
            if d.get("path") and d["path"] not in d["message"]:
                out.append(f"        at {_one(d['path'])}")
    out.append("")
    out.append(
        "summary: {sources} sources · {indexed} indexed · {searchable} searchable · {explicit} explicit-only · "
        "{disabled} disabled · {described} described · {unique} unique names · {rejected} rejected".format(**s)
    )
    if s["ambiguous"]:
        out.append("ambiguous: " + ", ".join(_one(n) for n in s["ambiguous"]))
    return "\n".join(out)


# --------------------------------------------------------------------------- G2: debug agent

#: Characters of the prompt text shown in the G2 preview (SPEC G2 "a bounded preview").
AGENT_PREVIEW_CHARS = 2_000
#: Most pages read for one body (a host whose cursors never end is cut off here).
MAX_BODY_PAGES = 1_000


class AgentInputs(Protocol):
    """What :func:`debug_agent_report` needs from a catalog (a
    :class:`~skillshelf.core.catalog.Catalog` has all of it)."""

    @property
    def current(self) -> Generation: ...

    @property
    def config(self) -> Config: ...

    @property
    def host(self) -> Host: ...

    @property
    def session(self) -> HostSession: ...


@dataclass(frozen=True)
class IndexCoverage:
    """What an agent's prompt gets for its skills (conformance Z-P; SPEC U1, P6): ``text``
    exactly as sent (every section, ``""`` when none is sent), ``sections`` with their sizes,
    the index budget in characters and the characters counted against it (``used_chars``: the
    budgeted render only), the agent's token estimate of the whole text and the exact
    ``cl100k_base`` count (``exact`` False when tiktoken is unavailable or the text holds
    stand-ins for Zuno's prose), and what the budget did. ``rule``: the budget rule in words."""

    text: str
    sections: tuple[PromptSection, ...]
    budget_chars: int | None
    used_chars: int
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
    rule: str = ""


@dataclass(frozen=True)
class RequiredBody:
    """One required skill's body (SPEC S2, conformance Z-U): its ``size`` in the selected-body
    unit (UTF-8 bytes for Zuno; ``None`` when not known: a stand-in of unknown size), the agent's
    token estimate ``tokens`` and the exact count ``exact_tokens`` (``None`` when not exact)."""

    name: str
    location: str
    size: int | None
    tokens: int
    exact_tokens: int | None
    stand_in: bool = False


@dataclass(frozen=True)
class SelectedCoverage:
    """The selected-body budget (conformance Z-U; SPEC U2–U3): ``budget`` in ``unit`` (``None``:
    the host has none), the required ``bodies`` that could be read, the refusal text when they
    do not fit, and the rule in words."""

    budget: int | None
    unit: str
    bodies: tuple[RequiredBody, ...]
    error: str | None
    rule: str = ""

    @property
    def used(self) -> int:
        """Sum of the bodies' known sizes, in :attr:`unit`."""
        return sum(b.size or 0 for b in self.bodies)


@dataclass(frozen=True)
class AgentReport:
    """What one agent sees and whether it would start (SPEC G2, conformance Z-A, Z-K).

    ``native``: one of the host's own agents; ``configured``: an ``agents.<name>`` entry
    exists. ``visible``: the agent's enabled sources; ``hidden``: the built-ins it may not see.
    ``required_names``: its required skills (native or configured); ``required``: those
    resolved to one source each; ``failures``: ``(name, reason)`` in the host's words.
    ``refusal``: the configuration refusal (``Zuno would refuse to start: …``) or ``None``.
    ``problems``: why the agent would fail to start, the first being what the host stops with
    (``ok`` is True when there is none). ``window``: the context window the budgets use.
    """

    host: str
    generation: int
    agent: str
    configured: bool
    native: bool
    tools: tuple[str, ...] | None
    visible: tuple[Source, ...]
    hidden: tuple[Source, ...]
    index: IndexCoverage
    selected: SelectedCoverage
    required_names: tuple[str, ...]
    required: tuple[tuple[str, str], ...]
    failures: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]
    refusal: str | None = None
    window: ContextWindow = UNKNOWN_WINDOW
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the agent would start."""
        return not self.problems

    @property
    def preview(self) -> str:
        """The prompt text bounded to :data:`AGENT_PREVIEW_CHARS` characters."""
        return self.index.text[:AGENT_PREVIEW_CHARS]

    def to_json(self) -> dict[str, Any]:
        """The SPEC G2 JSON document (skillshelf's shape; ``--format zuno`` prints Zuno's)."""
        ix, sb = self.index, self.selected
        return {
            "host": self.host,
            "generation": self.generation,
            "agent": self.agent,
            "configured": self.configured,
            "native": self.native,
            "tools": list(self.tools) if self.tools is not None else None,
            "window": window_json(self.window),
            "sources": len(self.visible),
            "hidden": [{"name": s.name, "location": s.location,
                        "reason": "built-in not allowed for this agent's name or tools"} for s in self.hidden],
            "budgets": {
                "index": {
                    "budgetChars": ix.budget_chars,
                    "usedChars": ix.used_chars,
                    "promptChars": len(ix.text),
                    "approxTokens": ix.approx_tokens,
                    "tokens": ix.tokens,
                    "exact": ix.exact,
                    "rule": ix.rule,
                },
                "selected": {
                    "budget": sb.budget,
                    "unit": sb.unit,
                    "used": sb.used,
                    "bodies": [{"name": b.name, "location": b.location, "size": b.size, "tokens": b.tokens,
                                "exactTokens": b.exact_tokens, "standIn": b.stand_in} for b in sb.bodies],
                    "error": sb.error,
                    "rule": sb.rule,
                },
            },
            "index": {
                "includeInstructions": ix.include_instructions,
                "sections": [section_json(x) for x in ix.sections],
                "rendered": ix.rendered,
                "truncated": ix.truncated,
                "truncatedNames": list(ix.truncated_names),
                "omitted": ix.omitted,
                "omittedNames": list(ix.omitted_names),
                "searchOnly": ix.search_only,
            },
            "requiredSkills": {
                "names": list(self.required_names),
                "ok": not self.failures,
                "resolved": [{"name": n, "location": loc} for n, loc in self.required],
                "failures": [{"name": n, "reason": r} for n, r in self.failures],
            },
            "refusal": self.refusal,
            "preview": self.preview,
            "previewTruncated": len(ix.text) > AGENT_PREVIEW_CHARS,
            "ok": self.ok,
            "problems": list(self.problems),
            "notes": list(self.notes),
        }


def window_json(window: ContextWindow) -> dict[str, Any]:
    """``{"tokens", "origin", "model", "source", "note", "text"}`` of a context window."""
    return {"tokens": window.tokens, "origin": window.origin.value, "model": window.model,
            "source": window.source or None, "note": window.note or None, "text": window.describe()}


def section_json(section: PromptSection) -> dict[str, Any]:
    """``{"id", "source", "text", "characters", "bytes", "budgeted", "standIn"}`` of a prompt section."""
    return {"id": section.id, "source": section.source, "text": section.text, "characters": section.characters,
            "bytes": section.bytes, "budgeted": section.budgeted, "standIn": section.stand_in}


def host_body(session: HostSession, source: Source) -> tuple[str | None, str | None]:
    """``(body, error)``: what ``session``'s host hands over when ``source`` is loaded, every page
    joined (the body between the host's own wrapper lines), or its refusal."""
    parts: list[str] = []
    cursor: str | None = None
    for _ in range(MAX_BODY_PAGES):
        page = session.load_page(source, cursor)
        if page.error is not None:
            return None, page.error
        parts.append(page.body if page.body is not None else page.text)
        if page.complete or page.next_cursor is None:
            break
        cursor = page.next_cursor
    return "".join(parts), None


def _exact_tokens(text: str, spans: Sequence[TokenSpan] = ()) -> tuple[int, bool]:
    """(tokens, exact): the ``cl100k_base`` count (stand-in ``spans`` counted as the real texts),
    or the estimate when tiktoken is unavailable or a stand-in's count is not known."""
    count = shared_counter().count_spliced(text, spans)
    return count.tokens, count.exact


def selected_refusal(bodies: Sequence[RequiredBody], budget: int) -> str | None:
    """Zuno's refusal for the first body that would raise the selected bodies above ``budget``
    bytes (conformance Z-U), else ``None``. Bodies of unknown size are not counted."""
    used = 0
    for body in bodies:
        if body.size is None:
            continue
        projected = used + body.size
        if projected > budget:
            return (f"selected Skill `{body.name}` from `{body.location}` ({body.size} bytes) would raise selected "
                    f"Skill bodies to {projected} bytes, exceeding the {budget}-byte aggregate prompt budget")
        used = projected
    return None


def required_body(session: HostSession, source: Source, unit: str) -> tuple[RequiredBody | None, str | None]:
    """The :class:`RequiredBody` of ``source`` (its size in ``unit``: ``bytes`` or tokens) or the
    host's refusal to load it."""
    body, error = host_body(session, source)
    if body is None:
        return None, error
    stand_in = "body" in source.stand_ins
    real = source.real_tokens("body") if stand_in else None
    exact, is_exact = _exact_tokens(body, (TokenSpan(0, len(body), real),) if stand_in else ())
    approx = approx_tokens(body)
    size: int | None
    if stand_in and source.size == 0:
        size = None  # a stand-in whose real size is not known
    elif unit == "bytes":
        size = len(body.encode("utf-8", "surrogatepass"))
    else:
        size = approx
    return RequiredBody(source.name, source.location, size, approx, exact if is_exact else None, stand_in), None


def agent_report(generation: Generation, name: str, *, session: HostSession, config: Config,
                 selected_unit: str = "tokens") -> AgentReport:
    """The SPEC G2 report for agent ``name`` over ``generation`` (conformance Z-A, Z-P, Z-U, Z-K).

    ``session`` supplies the agent (:meth:`HostSession.agent`), the prompt it gets
    (:meth:`HostSession.catalog`), both budgets and the bodies (:meth:`HostSession.load_page`);
    ``config`` the refusal and ``skills.includeInstructions``. Reads the required bodies.
    """
    setup = session.agent(name)
    enabled = [s for s in generation.sources if s.enabled]
    visible = agent_view(enabled, setup)
    hidden = tuple(s for s in enabled if s not in visible)
    prompt = session.catalog(generation, agent=name)
    include = config.include_instructions
    text = prompt.text
    states = {e.location: e for e in prompt.entries}
    cut = [e for e in prompt.entries if e.state in (EntryState.CUT, EntryState.NAME_ONLY)]
    omitted = [e for e in prompt.entries if e.state is EntryState.OMITTED]
    listed = sum(1 for e in prompt.entries if e.state in (EntryState.LISTED, EntryState.CUT, EntryState.NAME_ONLY))
    search_only = sum(1 for s in visible if s.exposure is Exposure.SEARCH and s.described
                      and states.get(s.location) is not None)
    exact, is_exact = _exact_tokens(text, prompt.token_spans)
    index = IndexCoverage(
        text=text, sections=prompt.sections, budget_chars=prompt.budget, used_chars=prompt.used,
        approx_tokens=approx_tokens(text), tokens=exact if is_exact else None,
        exact=is_exact, include_instructions=include, rendered=listed,
        truncated=len(cut), truncated_names=tuple(sorted(e.name for e in cut)), omitted=len(omitted),
        omitted_names=tuple(sorted(e.name for e in omitted)), search_only=search_only, rule=prompt.budget_rule)

    outcome = resolve_required_skills(name, setup.required_skills, visible)
    problems: list[str] = []
    refusal = config.refusal.message if config.refusal is not None else None
    if refusal is not None:
        problems.append(refusal)
    if outcome.refusal is not None:
        problems.append(outcome.refusal)
    rows: list[RequiredBody] = []
    for _req, src in outcome.resolved:
        row, error = required_body(session, src, selected_unit)
        if row is None:
            problems.append(f"required skill `{src.name}` cannot be read: {error}")
            continue
        rows.append(row)
    budget = session.selected_budget(None)
    selected_error = None
    if budget is not None:
        if selected_unit == "bytes":
            selected_error = selected_refusal(rows, budget)
        else:
            try:
                check_selected([SelectedBody(f"requiredSkills: {b.name}", b.location, b.tokens) for b in rows], budget)
            except SelectedBudgetExceeded as exc:
                selected_error = str(exc).splitlines()[0]
        if selected_error is not None:
            problems.append(selected_error)
    notes = list(setup.notes)
    unknown = [b.name for b in rows if b.size is None]
    if unknown:
        notes.append("the size of " + ", ".join(f"`{n}`" for n in unknown) + " is not known here (Zuno's own "
                     "text, not installed): it is not counted")
    return AgentReport(
        host=generation.host, generation=generation.number, agent=name, configured=setup.configured,
        native=setup.native, tools=setup.tools, visible=tuple(visible), hidden=hidden, index=index,
        selected=SelectedCoverage(budget, selected_unit, tuple(rows), selected_error, prompt.selected_rule),
        required_names=setup.required_skills,
        required=tuple((req, src.location) for req, src in outcome.resolved), failures=outcome.failures,
        problems=tuple(problems), refusal=refusal, window=prompt.window, notes=tuple(notes))


def debug_agent_report(catalog: AgentInputs, name: str) -> AgentReport:
    """:func:`agent_report` for agent ``name`` over ``catalog``'s current generation."""
    return agent_report(catalog.current, name, session=catalog.session, config=catalog.config,
                        selected_unit=catalog.host.labels.selected_unit)


def debug_agent_document(catalog: AgentInputs, name: str) -> dict[str, Any]:
    """The SPEC G2 JSON document for agent ``name`` over ``catalog``'s current generation."""
    return debug_agent_report(catalog, name).to_json()


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "unbounded"


def debug_agent_text(report: AgentReport) -> str:
    """Readable form of a G2 report (what ``debug agent`` prints without ``--json``)."""
    out: list[str] = []
    if report.refusal:
        out.append(report.refusal)
        out.append("")
    kind = "native agent" if report.native else "agent"
    conf = "" if report.configured else "  (no agents." + report.agent + " configuration)"
    out.append(f"{kind} {report.agent} · host {report.host} · generation {report.generation}{conf}")
    tools = ", ".join(report.tools) if report.tools is not None else "any"
    out.append(f"tools {tools} · its name is its profile")
    out.append(f"visible sources {len(report.visible)}"
               + (f" · hidden built-ins {len(report.hidden)}" if report.hidden else ""))
    for h in report.hidden:
        out.append(f"  hidden {h.name}  {h.location}")
    out.append(f"context window: {report.window.describe()}")
    ix = report.index
    tok = f"{ix.tokens:,} tok" if ix.tokens is not None else "? tok"
    label = "" if ix.exact else " (approx)"
    out.append(f"index budget  {ix.used_chars:,} / {_count(ix.budget_chars)} chars · prompt {len(ix.text):,} chars · "
               f"{tok}{label} · agent estimate {ix.approx_tokens:,} tok")
    if ix.rule:
        out.append(f"  {ix.rule}")
    for section in ix.sections:
        mark = "  (stand-in of Zuno's text)" if section.stand_in else ""
        out.append(f"  section {section.id} ({section.source}): {section.characters:,} chars, "
                   f"{section.bytes:,} bytes, {section.budgeted:,} in the budget{mark}")
    if not ix.include_instructions:
        out.append("  includeInstructions: false — no section is sent (list and search still work)")
    out.append(f"  rendered {ix.rendered} · truncated {ix.truncated} · omitted {ix.omitted} · "
               f"search-only {ix.search_only}")
    if ix.truncated_names:
        out.append("  truncated: " + ", ".join(ix.truncated_names))
    if ix.omitted_names:
        out.append("  omitted: " + ", ".join(ix.omitted_names))
    sb = report.selected
    out.append(f"selected-body budget  {sb.used:,} / {_count(sb.budget)} {sb.unit}")
    if sb.rule:
        out.append(f"  {sb.rule}")
    for body in sb.bodies:
        size = f"{body.size:,} {sb.unit}" if body.size is not None else f"? {sb.unit}"
        mark = "  (stand-in of Zuno's text)" if body.stand_in else ""
        out.append(f"  {body.name}: {size}  {body.location}{mark}")
    names = ", ".join(report.required_names) if report.required_names else "none"
    out.append(f"requiredSkills ({names}): " + ("FAIL" if report.failures else "ok"))
    for rname, location in report.required:
        out.append(f"  ✓ {rname}  {location}")
    for rname, reason in report.failures:
        out.append(f"  ✗ {rname}: {reason}")
    for note in report.notes:
        out.append(f"note: {note}")
    out.append("")
    out.append("prompt preview:")
    out.append(report.preview + ("\n…" if len(ix.text) > AGENT_PREVIEW_CHARS else ""))
    out.append("")
    if report.ok:
        out.append(f"agent {report.agent} would start")
    else:
        out.append(f"agent {report.agent} would FAIL to start:")
        for problem in report.problems:
            out.append(f"  - {problem}")
    return "\n".join(out)


# --------------------------------------------------------------------------- Zuno's own shapes

#: ``zuno debug agent`` lists at most this many skills (``SKILL_PREVIEW_LIMIT``).
ZUNO_PREVIEW_LIMIT = 50


def _zuno_skill_json(s: Source) -> dict[str, Any]:
    return {"name": s.name, "description": s.description, "location": s.location,
            "displayName": s.display_name, "shortDescription": s.short_description,
            "exposure": s.exposure.value, "metadataSources": list(s.metadata_sources)}


def zuno_debug_skill_document(gen: Generation, config: Config) -> dict[str, Any]:
    """``zuno debug skill --json`` in Zuno's own shape (conformance Z-T): raw discovery of the
    enabled sources, same-name entries kept, built-ins included, and Zuno's warnings only.

    ``{"view": {"kind": "raw_discovery", "agentFiltered": false, "extensionOverlayApplied":
    false}, "summary": {"sourceCount", "describedSourceCount", "uniqueNameCount",
    "promptMetadataEnabled", "warningCount", "ambiguousNames": [{"name", "sources"}]},
    "warnings": [{"source", "message"}], "skills": [...]}``. The entries of ``skills`` hold the
    fields skillshelf knows of Zuno's serialized skill (name, description, location, display
    name, short description, exposure, metadata sources)."""
    enabled = [s for s in gen.sources if s.enabled]
    names: dict[str, list[str]] = {}
    for s in enabled:
        names.setdefault(s.name, []).append(s.location)
    warnings = [w for w in gen.warnings if w.kind[:1].isupper()]
    return {
        "view": {"kind": "raw_discovery", "agentFiltered": False, "extensionOverlayApplied": False},
        "summary": {
            "sourceCount": len(enabled),
            "describedSourceCount": sum(1 for s in enabled if s.described),
            "uniqueNameCount": len(names),
            "promptMetadataEnabled": config.include_instructions,
            "warningCount": len(warnings),
            "ambiguousNames": [{"name": n, "sources": locs} for n, locs in names.items() if len(locs) > 1],
        },
        "warnings": [{"source": w.source, "message": w.message} for w in warnings],
        "skills": [_zuno_skill_json(s) for s in enabled],
    }


def zuno_debug_agent_document(report: AgentReport, gen: Generation, config: Config) -> dict[str, Any]:
    """``zuno debug agent <name>`` in Zuno's own shape (``schemaVersion: 2``): the ``skills``
    section exactly as Zuno computes it over the agent's sources; ``agent`` and ``model`` with
    what skillshelf knows; the sections skillshelf does not compute (tools, MCP, sandbox,
    delegates, policy sources) are ``null``."""
    visible = report.visible
    names: dict[str, int] = {}
    for s in visible:
        names[s.name] = names.get(s.name, 0) + 1
    enabled = config.include_instructions
    budget = report.index.budget_chars if enabled else None
    required = {loc for _, loc in report.required}
    ix = report.index
    return {
        "schemaVersion": 2,
        "agent": {"name": report.agent, "native": report.native},
        "model": {"effective": report.window.model},
        "tools": None,
        "mcp": None,
        "skills": {
            "generation": gen.number,
            "digest": gen.digest,
            "warnings": [w.message for w in gen.warnings if w.kind[:1].isupper()],
            "required": [{"name": n, "source": loc} for n, loc in report.required],
            "summary": {
                "sourceCount": len(visible),
                "describedSourceCount": sum(1 for s in visible if s.described),
                "indexedSourceCount": sum(1 for s in visible if s.entry.indexed),
                "searchableSourceCount": sum(1 for s in visible if s.entry.searchable),
                "explicitSourceCount": sum(1 for s in visible if s.exposure is Exposure.EXPLICIT),
                "disabledSourceCount": sum(1 for s in gen.sources if not s.enabled),
                "uniqueNameCount": len(names),
                "ambiguousNameCount": sum(1 for c in names.values() if c > 1),
                "metadataEnabled": enabled,
                "metadataBudgetCharacters": budget,
                "metadataBudgetApproxTokens": budget // 4 if budget is not None else None,
                "metadataCoverage": ({"rendered": ix.rendered, "omitted": ix.omitted, "truncated": ix.truncated}
                                     if enabled else None),
                "selectedBodyBudgetBytes": report.selected.budget,
                "selectedBodyBudgetApproxTokens": (report.selected.budget // 4
                                                   if report.selected.budget is not None else None),
                "previewLimit": ZUNO_PREVIEW_LIMIT,
                "previewOmitted": max(0, len(visible) - ZUNO_PREVIEW_LIMIT),
            },
            "available": [{"name": s.name, "displayName": s.display_name or s.name, "source": s.location,
                           "exposure": s.exposure.value, "required": s.location in required}
                          for s in visible[:ZUNO_PREVIEW_LIMIT]],
            "parentExpandedBodiesInherited": False,
            "configurationInheritedByChildren": True,
        },
        "delegates": None,
        "sandbox": None,
        "policySources": None,
        "notes": list(report.notes),
    }
