"""skillshelf's own first-party skills, shipped as package data (SPEC B1, D1 row 0).

Each built-in lives in ``skills/<name>/SKILL.md`` inside this package and is read with
:mod:`importlib.resources`, so it works from a wheel, a zip or an editable install. The
metadata a ``SKILL.md`` cannot carry portably — which agent profiles may see the skill and
which tools it needs (SPEC E4) — is declared here in :data:`_PACK`.

Built-ins come first in catalog order, in :data:`PACK_ORDER` (conformance §7). Their locator
is ``builtin://skillshelf/<version>/<name>``; a user copy of one under a root is a separate
source of the same name (visible ambiguity, never an override: SPEC B1, Z231, Z233).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from skillshelf import __version__
from skillshelf.core.frontmatter import parse_skill_bytes
from skillshelf.core.model import Exposure, Provenance, Source

__all__ = [
    "LOCATOR_SCHEME",
    "PACK_ORDER",
    "BuiltinSkill",
    "builtin_locator",
    "builtin_skills",
    "builtin_sources",
    "is_builtin_locator",
    "parse_builtin_locator",
    "visible_to_agent",
]

LOCATOR_SCHEME = "builtin://skillshelf/"
"""Prefix of every built-in locator (SPEC 0 "locator")."""

# name -> (allowed agent profiles or None for every profile, required tools)
_PACK: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...]]] = {
    # Creating a skill means writing files: not for read-only profiles such as "plan".
    "writing-skills": (("build", "orchestrator"), ("read", "write")),
    # A review only reads files; any profile may do it.
    "reviewing-skills": (None, ("read",)),
    # Tuning works through the skill tool's list/search output and the config file.
    "tuning-skill-budget": (None, ("skill", "read")),
}

PACK_ORDER: tuple[str, ...] = ("writing-skills", "reviewing-skills", "tuning-skill-budget")
"""Catalog order of the built-ins (they precede every discovered source)."""


@dataclass(frozen=True)
class BuiltinSkill:
    """One packaged first-party skill (SPEC B1).

    ``body`` is the Markdown after the frontmatter, exactly as the host would load it;
    ``sha256`` is the hex SHA-256 of ``body`` encoded as UTF-8. ``profiles`` lists the agent
    profiles allowed to see it (``None`` = every profile); ``tools`` the tools an agent must
    have (SPEC E4). ``content`` is the whole ``SKILL.md`` as bytes (hashed into
    ``Source.content_sha256``); ``frontmatter`` the parsed mapping.
    """

    name: str
    description: str
    body: str
    sha256: str
    profiles: tuple[str, ...] | None
    tools: tuple[str, ...]
    content: bytes = b""
    frontmatter: Any = None


def _parse(data: bytes, location: str) -> tuple[str, str, str, dict[str, Any]]:
    """(name, description, body, frontmatter mapping) of one packaged ``SKILL.md``, read by the
    host parser (SPEC F2–F3) like every other source. Raises ``ValueError`` if a packaged file
    is not a valid skill with a description: a packaging bug, never user input."""
    parsed = parse_skill_bytes(data, location)
    if parsed.name is None or parsed.description is None:
        reason = parsed.warning.message if parsed.warning is not None else "no description"
        raise ValueError(f"{location}: packaged built-in is not a valid skill: {reason}")
    return parsed.name, parsed.description, parsed.body, dict(parsed.frontmatter)


@functools.lru_cache(maxsize=1)
def builtin_skills() -> tuple[BuiltinSkill, ...]:
    """Every packaged built-in, in :data:`PACK_ORDER` (read once, then cached).

    Raises ``ValueError`` if a packaged file is missing its frontmatter or its declared name
    differs from its folder — both packaging bugs caught by tests/core/test_builtin.py.
    """
    base = resources.files(__name__).joinpath("skills")
    out: list[BuiltinSkill] = []
    for folder in PACK_ORDER:
        data = base.joinpath(folder, "SKILL.md").read_bytes()
        name, description, body, mapping = _parse(data, f"{LOCATOR_SCHEME}{folder}")
        if name != folder:
            raise ValueError(f"built-in {folder}/SKILL.md declares name {name!r}")
        profiles, tools = _PACK[folder]
        out.append(
            BuiltinSkill(
                name=name,
                description=description,
                body=body,
                sha256=hashlib.sha256(body.encode("utf-8")).hexdigest(),
                profiles=profiles,
                tools=tools,
                content=data,
                frontmatter=mapping,
            )
        )
    return tuple(out)


def builtin_locator(name: str, version: str) -> str:
    """The locator of built-in ``name`` in package ``version``: ``builtin://skillshelf/<version>/<name>``."""
    return f"{LOCATOR_SCHEME}{version}/{name}"


@functools.lru_cache(maxsize=8)
def builtin_sources(version: str) -> tuple[Source, ...]:
    """The built-ins as catalog :class:`Source` records, in pack order (SPEC B1, D1 row 0).

    Each has provenance ``BUILTIN``, ``location`` = ``canonical`` = its locator, the body
    embedded (``body`` set, so load never touches the file system), ``content_sha256`` = hex
    SHA-256 of the whole ``SKILL.md`` bytes, ``size`` in bytes, exposure ``INDEX`` with reason
    ``"built-in"``, and the allowed profiles / required tools in ``builtin_profiles`` /
    ``builtin_tools``. ``root`` and ``mtime`` are empty/zero (no file on disk).
    """
    out = []
    for skill in builtin_skills():
        loc = builtin_locator(skill.name, version)
        out.append(
            Source(
                name=skill.name,
                location=loc,
                provenance=Provenance.BUILTIN,
                canonical=loc,
                description=skill.description,
                exposure=Exposure.INDEX,
                exposure_reason="built-in",
                content_sha256=hashlib.sha256(skill.content).hexdigest(),
                size=len(skill.content),
                frontmatter=dict(skill.frontmatter or {}),
                body=skill.body,
                builtin_profiles=skill.profiles,
                builtin_tools=skill.tools,
            )
        )
    return tuple(out)


def parse_builtin_locator(loc: str) -> tuple[str, str] | None:
    """``(version, name)`` when ``loc`` has the shape ``builtin://skillshelf/<version>/<name>``
    with both segments non-empty and no further ``/``; else ``None``. Does not check that the
    name is in the pack (see :func:`is_builtin_locator`)."""
    if not loc.startswith(LOCATOR_SCHEME):
        return None
    rest = loc[len(LOCATOR_SCHEME) :]
    parts = rest.split("/")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def is_builtin_locator(loc: str, version: str | None = None) -> bool:
    """True when ``loc`` names a shipped built-in (conformance Z237).

    The name must be one of :data:`PACK_ORDER` and the version must equal ``version``
    (default: the running ``skillshelf.__version__``), so ``builtin://skillshelf/unknown`` and
    a locator from another release are not recognised (the latter goes through SPEC I3).
    """
    parsed = parse_builtin_locator(loc)
    if parsed is None:
        return False
    return parsed[0] == (version if version is not None else __version__) and parsed[1] in PACK_ORDER


def visible_to_agent(
    source: Source, profile: str | None, tools: Sequence[str] | None
) -> bool:
    """Whether an agent with ``profile`` and explicit ``tools`` may see ``source`` (SPEC E4).

    Only built-ins are governed by first-party metadata (conformance §7, Z237): any other
    provenance is visible to every profile and tool list. A built-in is visible when its
    ``builtin_profiles`` is ``None`` or contains ``profile`` (an agent without a profile is
    not profile-filtered), and, when ``tools`` is given (not ``None``), every one of its
    ``builtin_tools`` is in it.
    """
    if source.provenance is not Provenance.BUILTIN:
        return True
    allowed = source.builtin_profiles
    if allowed is not None and profile is not None and profile not in allowed:
        return False
    return not (tools is not None and any(t not in tools for t in source.builtin_tools))
