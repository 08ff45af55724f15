"""What the source pane says when a generation lists no file at all (SPEC D1, Z1)."""

from __future__ import annotations

from skillshelf.core.hosts import UnknownHostError, get_host
from skillshelf.core.model import Generation, Provenance, Root

__all__ = ["empty_catalog_text", "root_pattern"]


def root_pattern(root: Root) -> str:
    """``<root>/skills/<name>/SKILL.md``: where a skill's file goes under ``root`` (its glob pattern
    with each ``*`` folder as ``<name>``; ``**`` as ``…``)."""
    pattern = str(root.to_json()["pattern"])
    return "<root>/" + pattern.replace("**", "…").replace("*", "<name>")


def empty_catalog_text(generation: Generation) -> str:
    """The text for a ``generation`` without sources or rejected files: the roots searched
    (``path/pattern``, ``(missing)`` for folders that do not exist) and the layouts those roots
    expect. Raw text (the pane makes it visible)."""
    try:  # the client's name, as the header says it (not the registry key)
        who = get_host(generation.host).client
    except UnknownHostError:
        who = f"host {generation.host}"
    lines = [f"No skills found for {who}.", "", "Searched:"]
    roots = [r for r in generation.roots if r.provenance is not Provenance.BUILTIN]
    for root in roots:
        state = "" if root.exists else "  (missing)"
        lines.append(f"  {root.path.rstrip('/')}/{root.to_json()['pattern']}{state}")
    if not roots:
        lines.append("  (no roots)")
    layouts = list(dict.fromkeys(root_pattern(r) + (f"  ({r.label})" if r.label else "") for r in roots))
    lines += ["", "Expected layout (a folder per skill, SKILL.md inside):"]
    lines += [f"  {layout}" for layout in layouts] or ["  <root>/<name>/SKILL.md"]
    return "\n".join(lines)
