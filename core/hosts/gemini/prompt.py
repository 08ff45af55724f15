"""What Gemini CLI shows: the ``# Available Agent Skills`` prompt section and ``skills list``.

The section (``renderAgentSkills``): a header, one sentence that depends on the model, and one
``<skill>`` element per enabled skill in catalog order, with name, description and location
exactly as held — no escaping, no per-entry cap, no total budget. The whole prompt then has
every run of three or more line breaks collapsed to two, descriptions included. No enabled
skill, or ``GEMINI_PROMPT_AGENTSKILLS`` = ``0``/``false``: no section.

The sentence: models of the Gemini 3 family, and any model whose name does not start with
``gemini-``, get "… call the `activate_skill` tool …"; others (``gemini-2.5-*``) "… you can call
the `activate_skill` tool …". The default model ``auto`` resolves to ``gemini-3-pro-preview``.

``skills list --all`` prints every skill (disabled ones too): non-built-ins first, then
built-ins, each part sorted by ``localeCompare`` of the name (ties keep catalog order).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skillshelf.core.hosts.gemini.collate import collation_key
from skillshelf.core.hosts.jsorder import keyer
from skillshelf.core.model import Provenance, Source

__all__ = [
    "SECTION_HEADER",
    "render_section",
    "resolve_model",
    "skills_list_text",
    "supports_modern",
]

SECTION_HEADER = "# Available Agent Skills"
_MODERN_LEAD = "call the `activate_skill` tool"
_LEGACY_LEAD = "you can call the `activate_skill` tool"
_ENTRY = ("  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n"
          "    <location>{location}</location>\n  </skill>")


def resolve_model(model: str) -> str:
    """``resolveModel`` for a model named in settings or ``$GEMINI_MODEL`` (preview access
    assumed, as for a new account)."""
    m = model.strip()
    if m in ("auto", "pro", "gemini-3-pro-preview", "auto-gemini-3"):
        return "gemini-3-pro-preview"
    if m == "auto-gemini-2.5":
        return "gemini-2.5-pro"
    if m == "flash":
        return "gemini-3-flash-preview"
    if m in ("flash-lite", "none"):
        return "gemini-3.1-flash-lite"
    return m


def supports_modern(model: str) -> bool:
    """``supportsModernFeatures(resolveModel(model))``: the Gemini 3 family or a model whose
    name does not start with ``gemini-``."""
    resolved = resolve_model(model)
    return bool(re.match(r"^gemini-3(\.|-|$)", resolved)) or not resolved.startswith("gemini-")


def render_section(skills: Sequence[Source], model: str) -> str:
    """The prompt section for ``skills`` (enabled winners, catalog order), after the
    prompt-wide collapse of line-break runs; ``""`` when there is none."""
    if not skills:
        return ""
    xml = "\n".join(_ENTRY.format(name=s.name, description=s.description or "", location=s.location) for s in skills)
    lead = _MODERN_LEAD if supports_modern(model) else _LEGACY_LEAD
    text = (f"{SECTION_HEADER}\n\nYou have access to the following specialized skills. To activate a skill and "
            f"receive its detailed instructions, {lead} with the skill's name.\n\n<available_skills>\n{xml}\n"
            "</available_skills>")
    return re.sub(r"\n{3,}", "\n\n", text)


def skills_list_text(skills: Sequence[Source], *, include_builtin: bool = True) -> str:
    """``gemini skills list [--all]`` for ``skills`` (one per name, catalog order)."""
    shown = [s for s in skills if include_builtin or s.provenance is not Provenance.BUILTIN]
    if not shown:
        return "No skills discovered.\n"
    key = keyer((s.name for s in shown), collation_key)
    ordered = sorted(range(len(shown)), key=lambda i: (shown[i].provenance is Provenance.BUILTIN, key(shown[i].name), i))
    out = ["Discovered Agent Skills:\n\n"]
    for i in ordered:
        s = shown[i]
        state = "[Enabled]" if s.enabled else "[Disabled]"
        tag = " [Built-in]" if s.provenance is Provenance.BUILTIN else ""
        out.append(f"{s.name} {state}{tag}\n  Description: {s.description or ''}\n  Location:    {s.location}\n\n")
    return "".join(out)
