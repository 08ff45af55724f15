"""Reports: the ``debug skill`` document (SPEC G1) and its readable text form.

The JSON document has every key SPEC G1 lists, plus a few more (``lint`` per source, display
fields, ``diagnostics`` for catalog-level findings such as ``config-invalid`` and
``uncovered-folder``). Every ``SKILL.md`` discovery reached appears exactly once, in ``sources``
(accepted, including disabled ones) or in ``rejected``.

Host verdict and lint are kept apart (SPEC F): ``diagnostics`` on a source are the host's own
findings; ``lint`` holds the Agent Skills lint for the chosen target, which never changes what the
host does.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from skillshelf.core.hostlint import host_lint_file, host_targets
from skillshelf.core.lint import Target, lint_file
from skillshelf.core.model import Exposure, Generation, Rejected, Severity, Source, Status

LintFn = Callable[[Source | Rejected], Any]


def _lint_for(item: Source | Rejected, target: str) -> dict[str, Any] | None:
    """Lint one listed file for ``target`` (SPEC F4–F5); ``None`` for built-ins or when lint is missing."""
    if item.location.startswith("builtin://"):
        return None
    hosts = host_targets()
    if target in hosts:
        rep = host_lint_file(hosts[target], item.location)
    else:
        rep = lint_file(item.location, target=Target(target))
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
    return {
        "sources": len(gen.sources),
        "indexed": sum(1 for s in enabled if s.entry.indexed),
        "searchable": sum(1 for s in enabled if s.entry.searchable),
        "explicit": sum(1 for s in enabled if s.exposure is Exposure.EXPLICIT),
        "disabled": sum(1 for s in gen.sources if not s.enabled),
        "described": sum(1 for s in enabled if s.described),
        "unique": len({s.name for s in enabled}),
        "rejected": len(gen.rejected),
        "ambiguous": list(gen.ambiguous_names()),
    }


def source_json(s: Source, *, ambiguous: bool, lint_target: str | None) -> dict[str, Any]:
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
    if s.provenance.value == "builtin":
        out["builtin"] = {
            "profiles": list(s.builtin_profiles) if s.builtin_profiles is not None else None,
            "tools": list(s.builtin_tools),
        }
    if lint_target:
        lint = _lint_for(s, lint_target)
        if lint is not None:
            out["lint"] = lint
    return out


def rejected_json(r: Rejected, *, lint_target: str | None) -> dict[str, Any]:
    """One entry of G1 ``rejected``."""
    out: dict[str, Any] = {
        "location": r.location,
        "name": r.name,
        "provenance": r.provenance.value,
        "root": r.root,
        "aliases": list(r.aliases),
        "warning": r.warning.to_json() if r.warning else None,
        "size": r.size,
        "sha256": r.content_sha256,
        "diagnostics": [d.to_json() for d in r.diagnostics],
    }
    if lint_target:
        lint = _lint_for(r, lint_target)
        if lint is not None:
            out["lint"] = lint
    return out


def debug_skill_document(gen: Generation, *, lint_target: str | None = "spec", client: str | None = None) -> dict[str, Any]:
    """The SPEC G1 JSON document for ``gen``.

    ``lint_target`` (``spec``/``portable``/``zuno``/``zhin`` or ``None`` to skip) adds a ``lint``
    object to every file-backed source and rejected file.
    """
    counts = Counter(s.name for s in gen.sources if s.enabled and s.status is not Status.SHADOWED)
    return {
        "host": gen.host,
        "client": client,
        "cwd": gen.cwd,
        "generation": gen.number,
        "digest": gen.digest,
        "roots": [r.to_json() for r in gen.roots],
        "sources": [
            source_json(s, ambiguous=s.enabled and s.status is not Status.SHADOWED and counts[s.name] > 1,
                        lint_target=lint_target)
            for s in gen.sources
        ],
        "rejected": [rejected_json(r, lint_target=lint_target) for r in gen.rejected],
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


def _read_body(source: Source) -> tuple[str | None, str | None]:
    """(body, error) of a source: embedded body for built-ins, else the file re-read (SPEC L6)."""
    if source.body is not None:
        return source.body, None
    try:
        from skillshelf.core.frontmatter import parse_skill_file

        parsed = parse_skill_file(source.location)
    except Exception as exc:  # never crash a report
        return None, str(exc)
    if parsed.warning is not None:
        return None, parsed.warning.message
    return parsed.body, None


def _approx_tokens(text: str) -> int:
    from skillshelf.core.budget import CHARS_PER_TOKEN

    return -(-len(text) // CHARS_PER_TOKEN)


def _exact_tokens(text: str) -> tuple[int | None, bool]:
    try:
        from skillshelf.core.tokens import TokenCounter
    except ImportError:  # pragma: no cover - during bring-up
        return None, False
    tc = TokenCounter().count(text)
    return tc.tokens, tc.exact


def debug_agent_document(catalog: Any, name: str) -> dict[str, Any]:
    """The SPEC G2 document for agent ``name`` over ``catalog`` (a :class:`~skillshelf.core.catalog.Catalog`).

    Contents: the agent's configuration (``agents.<name>``: profile, tools, requiredSkills — an
    agent that is not configured gets the unrestricted default view and ``configured: false``),
    the agent-filtered sources (E4) and the built-ins hidden from it, both budgets (U1 in
    characters, U2 in tokens), the index coverage (``rendered``, ``truncated``, ``omitted`` with
    names, ``searchOnly``; P6), required-skill resolution (S2), the selected-body check (U3) and a
    preview of the index text bounded to :data:`AGENT_PREVIEW_CHARS` characters. ``ok`` is false
    when the agent would fail to start (an unresolvable required skill, or the selected bodies
    over budget); ``problems`` says why, one sentence each.
    """
    from skillshelf.core.agents import agent_view
    from skillshelf.core.budget import SelectedBody, SelectedBudgetExceeded, check_selected
    from skillshelf.core.config import AgentConfig
    from skillshelf.core.render import Form, render_budgeted
    from skillshelf.core.resolve import resolve_required

    gen: Generation = catalog.current
    config = getattr(catalog, "config", None)
    agents = getattr(config, "agents", {}) or {}
    agent = agents.get(name)
    configured = agent is not None
    if agent is None:
        agent = AgentConfig(name=name)
    enabled = [s for s in gen.sources if s.enabled]
    visible = agent_view(enabled, agent)
    hidden = [s for s in enabled if s not in visible]
    entries = [s.entry for s in visible]

    include = bool(getattr(config, "include_instructions", True)) if config is not None else True
    budget_chars = catalog.index_budget
    b = render_budgeted(entries, Form.INDEX, budget_chars)
    text = b.text if include else ""
    exact, is_exact = _exact_tokens(text)

    req = resolve_required(name, list(agent.required_skills), entries)
    by_loc = {s.location: s for s in visible}
    bodies: list[SelectedBody] = []
    body_rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for e in req.resolved:
        src = by_loc.get(e.location)
        body, err = _read_body(src) if src is not None else (None, "not visible")
        if body is None:
            problems.append(f"required skill `{e.name}` cannot be read: {err}")
            continue
        tok = _approx_tokens(body)
        ex, _ = _exact_tokens(body)
        bodies.append(SelectedBody(label=f"requiredSkills: {e.name}", location=e.location, tokens=tok))
        body_rows.append({"name": e.name, "location": e.location, "tokens": tok, "exactTokens": ex})
    for rname, reason in req.failures:
        problems.append(f"required skill `{rname}`: {reason}")
    selected_budget = catalog.selected_budget
    selected_error = None
    try:
        check_selected(bodies, selected_budget)
    except SelectedBudgetExceeded as exc:
        selected_error = str(exc)
        problems.append(str(exc).splitlines()[0])

    return {
        "host": gen.host,
        "generation": gen.number,
        "agent": name,
        "configured": configured,
        "profile": agent.profile,
        "tools": list(agent.tools) if agent.tools is not None else None,
        "sources": len(visible),
        "hidden": [{"name": s.name, "location": s.location, "reason": "built-in not allowed for this profile or tool set"} for s in hidden],
        "budgets": {
            "index": {
                "budgetChars": budget_chars,
                "usedChars": len(text),
                "approxTokens": _approx_tokens(text),
                "tokens": exact,
                "exact": is_exact,
            },
            "selected": {
                "budgetTokens": selected_budget,
                "usedTokens": sum(x.tokens for x in bodies),
                "bodies": body_rows,
                "error": selected_error,
            },
        },
        "index": {
            "includeInstructions": include,
            "rendered": b.rendered,
            "truncated": b.truncated,
            "truncatedNames": list(b.truncated_names),
            "omitted": b.omitted,
            "omittedNames": list(b.omitted_names),
            "searchOnly": b.search_only,
        },
        "requiredSkills": {
            "ok": req.ok,
            "resolved": [{"name": e.name, "location": e.location} for e in req.resolved],
            "failures": [{"name": n, "reason": r} for n, r in req.failures],
        },
        "preview": text[:AGENT_PREVIEW_CHARS],
        "previewTruncated": len(text) > AGENT_PREVIEW_CHARS,
        "ok": not problems,
        "problems": problems,
    }


def debug_agent_text(doc: dict[str, Any]) -> str:
    """Readable form of a G2 document."""
    out: list[str] = []
    conf = "" if doc["configured"] else "  (not configured: default unrestricted view)"
    out.append(f"agent {doc['agent']} · host {doc['host']} · generation {doc['generation']}{conf}")
    out.append(f"profile {doc['profile'] or '—'} · tools {', '.join(doc['tools']) if doc['tools'] is not None else 'any'}")
    out.append(f"visible sources {doc['sources']}" + (f" · hidden built-ins {len(doc['hidden'])}" if doc["hidden"] else ""))
    for h in doc["hidden"]:
        out.append(f"  hidden {h['name']}  {h['location']}")
    ib = doc["budgets"]["index"]
    tok = f"{ib['tokens']:,} tok" if ib["tokens"] is not None else "? tok"
    label = "" if ib["exact"] else " (approx)"
    out.append(
        f"index budget  {ib['usedChars']:,} / {ib['budgetChars']:,} chars · {tok}{label} · agent estimate {ib['approxTokens']:,} tok"
    )
    ix = doc["index"]
    if not ix["includeInstructions"]:
        out.append("  includeInstructions: false — the index is not in the prompt (list and search still work)")
    out.append(
        f"  rendered {ix['rendered']} · truncated {ix['truncated']} · omitted {ix['omitted']} · search-only {ix['searchOnly']}"
    )
    if ix["truncatedNames"]:
        out.append("  truncated: " + ", ".join(ix["truncatedNames"]))
    if ix["omittedNames"]:
        out.append("  omitted: " + ", ".join(ix["omittedNames"]))
    sb = doc["budgets"]["selected"]
    out.append(f"selected-body budget  {sb['usedTokens']:,} / {sb['budgetTokens']:,} tok")
    for body in sb["bodies"]:
        out.append(f"  {body['name']}: {body['tokens']:,} tok  {body['location']}")
    rs = doc["requiredSkills"]
    out.append("requiredSkills: " + ("ok" if rs["ok"] else "FAIL"))
    for r in rs["resolved"]:
        out.append(f"  ✓ {r['name']}  {r['location']}")
    for f in rs["failures"]:
        out.append(f"  ✗ {f['name']}: {f['reason']}")
    out.append("")
    out.append("index preview:")
    out.append(doc["preview"] + ("\n…" if doc["previewTruncated"] else ""))
    out.append("")
    if doc["ok"]:
        out.append(f"agent {doc['agent']} would start")
    else:
        out.append(f"agent {doc['agent']} would FAIL to start:")
        for p in doc["problems"]:
            out.append(f"  - {p}")
    return "\n".join(out)
