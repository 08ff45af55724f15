"""Host ``zuno``: Zuno's built-ins as catalog sources (conformance Z-B).

:func:`builtin_sources` turns the pack of :mod:`.pack` into :class:`~skillshelf.core.model.Source`
records, in pack order, before any discovered source: exposure ``index``, the locator
``builtin://zuno-orchestration/<version>/<name>``, the allowed profiles and required tools, the
body embedded. Texts come from an installed Zuno when one was read (:mod:`.installed`),
stand-ins of the same size otherwise (``Source.stand_ins`` says which).

When the installed Zuno's built-ins are another version than the pack skillshelf knows, what it
lists wins (names, descriptions, locators); profiles and tools are taken from the known pack by
name, and a built-in skillshelf has no data for is visible to every agent (said in its reason).
"""

from __future__ import annotations

from dataclasses import dataclass

from skillshelf.core.hosts.zuno.installed import ZunoTexts
from skillshelf.core.hosts.zuno.pack import (
    PACK_VERSION,
    PackSkill,
    body_marker,
    description_marker,
    locator,
    pack,
)
from skillshelf.core.model import Exposure, Provenance, Source

__all__ = ["BuiltinPack", "builtin_pack"]


@dataclass(frozen=True)
class BuiltinPack:
    """Zuno's built-ins for one session: ``sources`` in pack order, the Zuno ``version`` they are
    Zuno's built-ins of, and ``label``: which Zuno, and whether its texts were read
    (``Zuno 0.10.3 (texts read from /usr/bin/zuno)`` / ``Zuno 0.10.3 (skillshelf's data;
    texts are stand-ins)``)."""

    sources: tuple[Source, ...]
    version: str
    label: str


def _source(skill: PackSkill | None, name: str, loc: str, description: str, description_stand_in: bool,
            body: str | None, version: str) -> Source:
    stand_ins: list[str] = []
    if description_stand_in:
        stand_ins.append("description")
    if body is None:
        stand_ins.append("body")
        body = body_marker(skill, version) if skill is not None else (
            f"[Zuno {version} built-in `{name}`: its body is Zuno's text, not shown here]\n")
    reason = f"Zuno {version} built-in"
    if skill is None:
        reason += " (not in skillshelf's data for this version: its profiles and tools are not known)"
    known_size = "body" not in stand_ins or (skill is not None and skill.body_bytes is not None)
    size = len(body.encode("utf-8")) if known_size else 0  # 0: the size is not known
    return Source(
        name=name,
        location=loc,
        provenance=Provenance.BUILTIN,
        canonical=loc,
        description=description,
        exposure=Exposure.INDEX,
        exposure_reason=reason,
        content_sha256=skill.body_sha256 if skill is not None else "",
        size=size,
        body=body,
        builtin_profiles=skill.profiles if skill is not None else None,
        builtin_tools=skill.tools if skill is not None else (),
        stand_ins=tuple(stand_ins),
    )


def builtin_pack(texts: ZunoTexts) -> BuiltinPack:
    """The built-in sources for a session given what was read from an installed Zuno."""
    if texts.builtins and texts.version is not None and texts.version != PACK_VERSION:
        known = {s.name: s for s in pack(texts.version) or pack(PACK_VERSION)}
        out = []
        for item in texts.builtins:
            skill = known.get(item.name)
            out.append(_source(skill, item.name, item.location, item.description or "", False,
                               texts.bodies.get(item.name), texts.version))
        return BuiltinPack(tuple(out), texts.version, f"Zuno {texts.version} (built-ins listed by {texts.executable})")
    listed = {b.name: b.description for b in texts.builtins}
    out = []
    for skill in pack(PACK_VERSION):
        real = listed.get(skill.name)
        description = real if real is not None else description_marker(skill)
        out.append(_source(skill, skill.name, locator(skill.name), description, real is None,
                           texts.bodies.get(skill.name), PACK_VERSION))
    if texts.builtins:
        label = f"Zuno {PACK_VERSION} (texts read from {texts.executable})"
    else:
        label = f"Zuno {PACK_VERSION} (skillshelf's data; Zuno's own texts are stand-ins of the same size)"
    return BuiltinPack(tuple(out), PACK_VERSION, label)
