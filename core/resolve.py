"""Identity and resolution: by name, by locator, slash and dollar forms, required skills.

Implements SPEC I1–I3 and S1–S2 over a sequence of :class:`~skillshelf.core.model.SkillEntry`
(enabled entries in catalog order, as :meth:`Generation.entries` returns them). Nothing here
touches the file system; the live-catalog refresh of I3 belongs to the caller (the skill tool
refreshes once and resolves again with ``live=True``).

Every refusal text is Zuno's own (conformance doc §0.3 "Skill-tool message texts",
``zuno-tools/src/skill.rs@bf553199``); the builders are shared with :mod:`skillshelf.core.tool`.
Texts Zuno has no equivalent for (slash forms, a locator lookup without a name) are
skillshelf's and say so where they are defined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from skillshelf.core.collate import locale_key
from skillshelf.core.model import SkillEntry

#: How many names an unknown-skill refusal lists before ``(and N more)`` (Zuno SUGGESTION_LIMIT).
SUGGESTION_LIMIT = 40

#: Native commands that resolve before any skill (SPEC S1).
NATIVE_COMMANDS = ("/compact", "/plan", "/help", "/clear", "/exit", "/models")

#: Zuno's ``Empty`` rejection: no searchable skill exists at all (Z119).
EMPTY_MESSAGE = (
    "No skills are available in this session, so `skill` has nothing to load. Install a skill "
    "under `.agents/skills/` or add a `skills.paths[]` entry to your configuration."
)

#: What a catalog-stale refusal says when no source declares the name any more.
NO_CURRENT_SOURCE = "<none; use action `list` or `search`>"


# --------------------------------------------------------------------------- message builders


def searchable_names(entries: Sequence[SkillEntry]) -> list[str]:
    """Names of searchable entries (SPEC E1/E3), locale-sorted (SPEC P1) and de-duplicated."""
    names = sorted((e.name for e in entries if e.searchable), key=locale_key)
    out: list[str] = []
    for name in names:
        if not out or out[-1] != name:
            out.append(name)
    return out


def unknown_message(requested: str, entries: Sequence[SkillEntry]) -> tuple[str, tuple[str, ...]]:
    """Zuno's ``Unknown`` text for ``requested`` and the suggested names (SPEC I1, Z116, Z118).

    Suggestions are the searchable names in locale order, at most :data:`SUGGESTION_LIMIT`,
    followed by `` (and N more)`` when there are more. When nothing is searchable the text is
    :data:`EMPTY_MESSAGE` and the suggestions are empty (Z119).
    """
    names = searchable_names(entries)
    if not names:
        return EMPTY_MESSAGE, ()
    shown = names[:SUGGESTION_LIMIT]
    more = f" (and {len(names) - SUGGESTION_LIMIT} more)" if len(names) > SUGGESTION_LIMIT else ""
    message = (
        f"Unknown skill `{requested}`. Use action `search` to find a matching description, "
        f"or set `name` to one of these indexed skills: {', '.join(shown)}{more}"
    )
    return message, tuple(shown)


def quoted_locators(locators: Sequence[str]) -> str:
    """```a`, `b``` — locators in backticks joined by ``", "`` (Zuno's source lists)."""
    return ", ".join(f"`{loc}`" for loc in locators)


def ambiguous_message(requested: str, locators: Sequence[str]) -> str:
    """Zuno's ``Ambiguous`` text listing every locator in catalog order (SPEC I1, Z107)."""
    return f"Skill name `{requested}` is ambiguous. Retry with one exact `source`: {quoted_locators(locators)}"


def source_mismatch_message(requested: str, locator: str) -> str:
    """Zuno's ``SourceMismatch`` text: ``locator`` is not a source declaring ``requested`` (SPEC I2)."""
    return (
        f"Skill `{requested}` has no source `{locator}`. Use action `list` or `search` and pass "
        f"one of its advertised source locators."
    )


def catalog_stale_message(requested: str, locator: str, available: Sequence[str]) -> str:
    """Zuno's ``CatalogStale`` text carrying the current locators of ``requested`` (SPEC I3)."""
    listed = quoted_locators(available) if available else NO_CURRENT_SOURCE
    return (
        f"Skill catalog changed while loading `{requested}` from stale source `{locator}`. "
        f"Retry with one currently advertised source: {listed}"
    )


# --------------------------------------------------------------------------- errors


class ResolveError(Exception):
    """A name or locator that does not resolve to exactly one source (SPEC I1–I3).

    ``code`` is ``unknown-skill``, ``ambiguous-skill``, ``source-mismatch`` or ``catalog-stale``;
    ``message`` is the exact refusal text; ``locators`` are the candidate sources (every
    same-name source for ``ambiguous-skill``, the current ones for ``catalog-stale``);
    ``suggestions`` are the names an ``unknown-skill`` refusal lists.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        locators: Sequence[str] = (),
        suggestions: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.locators = tuple(locators)
        self.suggestions = tuple(suggestions)


def named(entries: Sequence[SkillEntry], name: str) -> list[SkillEntry]:
    """Every entry declaring exactly ``name`` (any exposure), in catalog order."""
    return [e for e in entries if e.name == name]


def by_location(entries: Sequence[SkillEntry], locator: str) -> SkillEntry | None:
    """The entry whose locator is exactly ``locator``, else ``None``."""
    for e in entries:
        if e.location == locator:
            return e
    return None


def resolve_name(entries: Sequence[SkillEntry], name: str) -> SkillEntry:
    """The one entry declaring ``name`` (SPEC I1).

    Any exposure resolves (explicit and undescribed skills are loadable by exact name, E1).
    Raises :class:`ResolveError` ``unknown-skill`` (Zuno's Unknown text, or the Empty text
    when nothing is searchable) or ``ambiguous-skill`` (every locator, catalog order). Never
    guesses.
    """
    found = named(entries, name)
    if len(found) == 1:
        return found[0]
    if not found:
        message, suggestions = unknown_message(name, entries)
        raise ResolveError("unknown-skill", message, suggestions=suggestions)
    locators = [e.location for e in found]
    raise ResolveError("ambiguous-skill", ambiguous_message(name, locators), locators=locators)


def stale_error(entries: Sequence[SkillEntry], name: str, locator: str) -> ResolveError:
    """The ``catalog-stale`` refusal for ``locator`` with the current locators of ``name`` (SPEC I3)."""
    current = [e.location for e in named(entries, name)]
    return ResolveError("catalog-stale", catalog_stale_message(name, locator, current), locators=current)


def resolve_locator(
    entries: Sequence[SkillEntry], locator: str, name: str | None = None, *, live: bool = False
) -> SkillEntry:
    """The entry whose locator is exactly ``locator`` and, when given, declares ``name`` (SPEC I2).

    An unknown locator, or one declaring another name, raises :class:`ResolveError`:
    ``source-mismatch`` for a fixed catalog (Zuno's ``SourceMismatch``), ``catalog-stale`` when
    ``live`` is true — the caller has already refreshed once (SPEC I3), and the error carries
    the current locators of ``name``. Without a ``name`` an unknown locator gets skillshelf's
    own sentence (Zuno always has a name here).
    """
    found = by_location(entries, locator)
    if found is not None and (name is None or found.name == name):
        return found
    if name is None:
        # skillshelf decision: Zuno never resolves a locator without a name.
        raise ResolveError(
            "catalog-stale" if live else "source-mismatch",
            f"No skill source `{locator}` is in the catalog. Use action `list` or `search` and "
            f"pass one of the advertised source locators.",
        )
    if live:
        raise stale_error(entries, name, locator)
    raise ResolveError("source-mismatch", source_mismatch_message(name, locator))


def resolve(
    entries: Sequence[SkillEntry], name: str, source: str | None = None, *, live: bool = False
) -> SkillEntry:
    """Resolve a tool request's ``name`` and optional ``source`` (I2 when a source is given, else I1)."""
    if source is not None:
        return resolve_locator(entries, source, name, live=live)
    return resolve_name(entries, name)


# --------------------------------------------------------------------------- invocation (S1)


def _dollar_or_slash_token(text: str, sigil: str) -> str:
    body = text.strip()
    if body.startswith(sigil):
        body = body[len(sigil):]
    parts = body.split(None, 1)
    return parts[0] if parts else ""


def resolve_dollar(entries: Sequence[SkillEntry], text: str) -> SkillEntry:
    """``$name`` (the first word after ``$``; a missing ``$`` is tolerated) resolved by I1 (SPEC S1).

    Raises :class:`ResolveError` exactly like :func:`resolve_name`.
    """
    return resolve_name(entries, _dollar_or_slash_token(text, "$"))


SlashKind = Literal["native", "skill", "ambiguous", "unknown"]


@dataclass(frozen=True)
class SlashResult:
    """What ``/<word> …`` typed by a user does (SPEC S1).

    ``kind``: ``native`` (one of :data:`NATIVE_COMMANDS`, which always win), ``skill``
    (``entry`` is the one described source with that name), ``ambiguous`` (the slash form is
    disabled; ``locators`` lists every source) or ``unknown``. ``message`` is empty for
    ``native`` and ``skill``, otherwise the sentence to show.
    """

    kind: SlashKind
    entry: SkillEntry | None = None
    message: str = ""
    locators: tuple[str, ...] = ()


def resolve_slash(entries: Sequence[SkillEntry], text: str) -> SlashResult:
    """Resolve ``/name`` the way Zuno publishes slash commands (SPEC S1; ``Skills::slash_invokable``).

    Native commands resolve first. A skill is slash-invokable only when its name is declared by
    exactly one source and it has a catalog description (any exposure, explicit included).
    Messages for the refusals are skillshelf's (Zuno simply does not offer the command).
    """
    word = _dollar_or_slash_token(text, "/") if text.strip().startswith("/") else ""
    if not word:
        return SlashResult("unknown", message=f"`{text.strip()}` is not a slash command")
    command = "/" + word
    if command in NATIVE_COMMANDS:
        return SlashResult("native")
    found = named(entries, word)
    if len(found) > 1:
        locators = tuple(e.location for e in found)
        return SlashResult(
            "ambiguous",
            message=(
                f"`{command}` is disabled because skill name `{word}` is ambiguous; "
                f"use `${word}` with one exact source: {quoted_locators(locators)}"
            ),
            locators=locators,
        )
    if not found:
        return SlashResult("unknown", message=f"`{command}` is neither a native command nor a skill")
    entry = found[0]
    if not entry.described:
        return SlashResult(
            "unknown",
            message=f"`{command}` is not offered because skill `{word}` has no description; use `${word}`",
            locators=(entry.location,),
        )
    return SlashResult("skill", entry=entry, locators=(entry.location,))


# --------------------------------------------------------------------------- required skills (S2)


@dataclass(frozen=True)
class RequiredResolution:
    """Outcome of ``agents.<agent>.requiredSkills`` (SPEC S2).

    ``ok`` is true when every name resolved to exactly one source; ``resolved`` holds those
    entries in request order; ``failures`` holds ``(name, reason)`` pairs whose reason is the
    I1 refusal text (unknown / ambiguous).
    """

    agent: str
    ok: bool
    resolved: tuple[SkillEntry, ...]
    failures: tuple[tuple[str, str], ...]


def resolve_required(agent: str, names: Sequence[str], entries: Sequence[SkillEntry]) -> RequiredResolution:
    """Resolve each required name for ``agent`` over already agent-filtered ``entries`` (SPEC S2, E4).

    Any unknown or ambiguous name makes the agent's startup fail; every failure is reported,
    not only the first.
    """
    resolved: list[SkillEntry] = []
    failures: list[tuple[str, str]] = []
    for name in names:
        try:
            resolved.append(resolve_name(entries, name))
        except ResolveError as err:
            failures.append((name, err.message))
    return RequiredResolution(agent=agent, ok=not failures, resolved=tuple(resolved), failures=tuple(failures))
