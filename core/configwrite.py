"""Writing ``skills.config`` entries that decide skills (SPEC K3–K5, C ``resolve``/``enable``/…).

The user picks, for sources of one name, a :class:`Choice`; :func:`plan_resolution` turns that
into the exact change to one config file, without touching the disk; :func:`apply_plan` writes
it and :func:`undo` puts the old bytes back.

Rules this module keeps (each is tested in ``tests/core/test_configwrite.py``):

- Entries are appended to the end of ``skills.config`` (the last matching entry wins, SPEC K4);
  ``skills`` and ``skills.config`` are created when absent. Each entry is a file target for
  exactly one source (SPEC K3), spelled portably (:mod:`skillshelf.core.spelling`: relative in
  the project, ``~/`` under the home, absolute only when nothing else resolves right).
- Changing one's mind leaves no trail: the file's own file-target entries for a chosen source
  are removed when the new choice replaces them (K4: they could never win again), and nothing
  is appended when removing them alone gives the choice. When the result equals an earlier
  state of the same file that skillshelf wrote (``earlier``, from the caller's journal), those
  exact bytes are planned instead — or the file's removal when skillshelf created it.
- Every byte outside the edited spans is unchanged (comments, trailing commas, key order,
  spacing, line endings, a BOM). Offsets come from :func:`skillshelf.core.jsonc.container_at`
  (the standard library's decoder, stepping over comments with
  :func:`~skillshelf.core.jsonc.skip_trivia`, so linear in the file's size); inserted text is
  strict JSON indented like its neighbours. A file that is not JSONC, whose top level is not an object, or whose
  ``skills`` / ``skills.config`` has the wrong type is refused (:class:`ConfigWriteError`).
- Arrays replace across layers (SPEC K1): a target whose ``skills.config`` a higher layer's
  replaces is refused (naming it); a target without ``skills.config`` below a layer that sets
  one gets a copy of the inherited entries first. The outcome is re-checked by re-running the
  rules (:meth:`Config.decide`) with the real working directory and home before anything is
  written.
- Writes hold an advisory lock (``flock`` on the file's folder) around read-check-write, so
  concurrent writers apply on top of each other or are refused with a message; the new bytes
  go to an unnamed temporary file (``O_TMPFILE`` where the system has it), are ``fsync``-ed, then
  linked and renamed over the file, so a kill leaves no temporary file behind (and a stale
  one of skillshelf's naming is removed under the lock). The previous bytes go to
  ``<file>.bak``. An existing file keeps its mode; a new one gets the normal mode (``0666``
  less the umask). A symlinked config is written through (the link stays); a dangling one,
  a read-only file and a file that changed since planning are refused, naming the real path.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from skillshelf.core.config import (
    CONFIG_STEM,
    PROJECT_DIR,
    Config,
    ConfigLayer,
    ConfigSyntaxError,
    RuleEntry,
    parse_jsonc,
    resolve_rule,
)
from skillshelf.core.fileread import read_regular
from skillshelf.core.jsonc import Container, container_at, skip_trivia
from skillshelf.core.model import Exposure, Generation, Source
from skillshelf.core.spelling import Spelling, config_anchor, portable_spelling

try:  # advisory locks; absent on Windows, where writes are not locked
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "LOCK_TIMEOUT",
    "Choice",
    "ConfigWriteError",
    "PlannedEntry",
    "WritePlan",
    "WriteResult",
    "append_rules",
    "apply_plan",
    "config_lock",
    "default_target",
    "global_target",
    "outcome_problems",
    "plan_resolution",
    "satisfies",
    "undo",
    "write_atomically",
]

#: Seconds a write waits for another writer's lock on the same folder before it is refused.
LOCK_TIMEOUT = 10.0


class Choice(str, Enum):
    """What happens to one source (SPEC K4, E1).

    ``KEEP``: enabled, exposure left to the skill (an entry only when a rule disables it now).
    ``INDEX`` / ``SEARCH`` / ``EXPLICIT``: enabled with that exposure — note a name declared by
    two enabled sources stays ambiguous whatever their exposure. ``DISABLE``: ``enabled: false``.
    """

    KEEP = "keep"
    INDEX = "index"
    SEARCH = "search"
    EXPLICIT = "explicit"
    DISABLE = "disable"


class ConfigWriteError(Exception):
    """The plan cannot be made or written safely; ``str(exc)`` says why in one sentence and,
    where it helps, what to do instead (``choose another target file``)."""


@dataclass(frozen=True)
class PlannedEntry:
    """One ``skills.config`` entry to append (SPEC K3).

    ``path`` is the canonical ``SKILL.md`` path (what the entry must resolve to); ``spelling``
    what is written (portable, see :mod:`skillshelf.core.spelling`: ``kind`` ``relative`` /
    ``home`` / ``absolute``, ``why`` says why that form).
    ``enabled`` is ``False`` to disable, ``True`` to re-enable, ``None`` to omit the key;
    ``exposure`` ``"index"`` / ``"search"`` / ``"explicit"`` or ``None``. ``locator`` and
    ``choice`` say which source and pick produced it (display only; not written).
    """

    path: str
    enabled: bool | None = None
    exposure: str | None = None
    locator: str = field(default="", compare=False)
    choice: Choice | None = field(default=None, compare=False)
    spelling: str = field(default="", compare=False)
    why: str = field(default="", compare=False)
    kind: str = field(default="absolute", compare=False)

    def to_json(self) -> dict[str, Any]:
        """The object written into ``skills.config``: ``{"path", "enabled"?, "exposure"?}``."""
        out: dict[str, Any] = {"path": self.spelling or self.path}
        if self.enabled is not None:
            out["enabled"] = self.enabled
        if self.exposure is not None:
            out["exposure"] = self.exposure
        return out

    @property
    def caveat(self) -> str:
        """``why`` when the path written is not portable (``absolute``, or a project file spelled
        from the home), else ``""``."""
        return self.why if self.kind in ("absolute", "project-home") else ""

    def render(self) -> str:
        """The entry as one line of JSON, exactly as inserted (``{"path": "…", "enabled": false}``)."""
        return json.dumps(self.to_json(), ensure_ascii=False)


@dataclass(frozen=True)
class WritePlan:
    """A planned change to one config file; nothing is written until :func:`apply_plan`.

    ``target``: the config file path. ``entries``: what is appended; ``removed``: the file's
    entries taken out (as written, one JSON line each). ``before``: the file's current text
    (``None`` when absent). ``after``: the complete new text (``""`` with ``deletes``).
    ``created``: the file does not exist yet. ``deletes``: the plan removes the file (it goes
    back to not existing, an earlier state). ``restores``: ``after`` is an earlier state of
    the file, byte for byte. ``note``: a sentence worth showing, or ``None``. ``inherited``:
    entries copied from a lower layer before ours.
    """

    target: str
    entries: tuple[PlannedEntry, ...]
    before: str | None
    after: str
    created: bool
    note: str | None = None
    inherited: tuple[Any, ...] = ()
    removed: tuple[str, ...] = ()
    deletes: bool = False
    restores: bool = False

    @property
    def changes(self) -> bool:
        """True when applying the plan changes, creates or deletes the file."""
        if self.deletes:
            return self.before is not None
        return (bool(self.entries) or bool(self.removed) or self.restores) and self.before != self.after


@dataclass(frozen=True)
class WriteResult:
    """What :func:`apply_plan` did. ``path`` is the file actually written (the symlink-resolved
    ``target``); ``backup`` the ``.bak`` path or ``None``; ``previous`` the exact previous bytes
    (``None`` when created); ``after`` the bytes written (``None`` when the file was deleted);
    ``written`` is False when the plan had nothing to change; ``created_dirs`` directories made
    for the file (removed again by :func:`undo` when empty); ``backup_previous`` the bytes the
    ``.bak`` held before this write (``None``: there was none)."""

    target: str
    path: str
    backup: str | None
    previous: bytes | None
    after: bytes | None
    created: bool
    written: bool
    created_dirs: tuple[str, ...] = ()
    backup_previous: bytes | None = None


# --------------------------------------------------------------------------------------------
# Targets


def _prefer_jsonc(directory: str) -> str:
    jsonc = os.path.join(directory, f"{CONFIG_STEM}.jsonc")
    if os.path.isfile(jsonc):
        return jsonc
    return os.path.join(directory, f"{CONFIG_STEM}.json")


def default_target(cwd: str, worktree: str | None) -> str:
    """The project config file written by default (SPEC K5): ``.zuno/zuno.json`` at the worktree
    root when there is one, else in ``cwd``; an existing ``.zuno/zuno.jsonc`` there is preferred
    (it has the higher precedence of the two, SPEC K1). Returns an absolute path; the file may
    not exist."""
    base = worktree if worktree else cwd
    return _prefer_jsonc(os.path.join(os.path.abspath(base), PROJECT_DIR))


def global_target(xdg_config_home: str) -> str:
    """The global config file: ``$XDG_CONFIG_HOME/zuno/zuno.json``, or the existing ``zuno.jsonc``
    (SPEC K1). ``xdg_config_home`` must already be defaulted (``~/.config``)."""
    return _prefer_jsonc(os.path.join(os.path.abspath(xdg_config_home), CONFIG_STEM))


# --------------------------------------------------------------------------------------------
# Planning


def satisfies(choice: Choice, enabled: bool, exposure: Exposure | None) -> bool:
    """Whether a source that is ``enabled`` with ``exposure`` is in the state ``choice`` asks for."""
    if choice is Choice.KEEP:
        return enabled
    if choice is Choice.DISABLE:
        return not enabled
    return enabled and exposure is Exposure(choice.value)


def _sources_of(gen_or_sources: Generation | Iterable[Source], name: str | Sequence[str]) -> list[Source]:
    sources = gen_or_sources.sources if isinstance(gen_or_sources, Generation) else gen_or_sources
    names = {name} if isinstance(name, str) else set(name)
    return [s for s in sources if s.name in names]


def _entry_json(choice: Choice) -> tuple[bool | None, str | None]:
    if choice is Choice.KEEP:
        return True, None
    if choice is Choice.DISABLE:
        return False, None
    return None, choice.value


def _read_text(path: str) -> str | None:
    """The file's text (``None`` when absent). Raises :class:`ConfigWriteError` when it cannot be
    read or is not UTF-8 (never rewritten then)."""
    try:
        raw = read_regular(path)  # a FIFO target is refused, never waited on
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigWriteError(f"{path} is a directory, not a config file") from None
    except OSError as exc:
        raise ConfigWriteError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigWriteError(f"{path} is not valid UTF-8; skillshelf will not rewrite it "
                               "(fix it, or choose another target file)") from None


def _same_file(a: str, b: str) -> bool:
    if os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b)):
        return True
    return os.path.realpath(a) == os.path.realpath(b)


def _has_rules(data: Mapping[str, Any] | None) -> bool:
    skills = data.get("skills") if isinstance(data, Mapping) else None
    return isinstance(skills, Mapping) and "config" in skills


#: Layer kinds in Zuno's precedence order, lowest first (conformance Z-K, which replaces SPEC K1:
#: ``$ZUNO_CONFIG`` sits below the project layers, ``$HOME/.zuno`` above them).
_KIND_RANK = {"global": 0, "env-file": 1, "project": 2, "project-zuno": 3, "home-zuno": 4, "env-dir": 5,
              "env-content": 6, "managed": 7, "managed-preferences": 8, "cli": 9}


def _guess_rank(path: str, kind: str | None, home: str | None = None) -> tuple[int, int, int]:
    """Precedence key for a layer (Z-K): kind, then place on the walk, then ``.json`` before
    ``.jsonc``. Bare ``zuno.json[c]`` files are read outermost first (the nearest wins); ``.zuno``
    folders nearest first (the outermost wins). A file that is not a layer yet gets its kind
    from its place: ``$HOME/.zuno`` → home-zuno, another ``.zuno/`` → project-zuno, a ``zuno/``
    folder → global, else project."""
    directory = os.path.dirname(os.path.normpath(os.path.abspath(path)))
    if kind is None:
        base = os.path.basename(directory)
        if base == PROJECT_DIR and home and directory == os.path.join(os.path.normpath(home), PROJECT_DIR):
            kind = "home-zuno"
        elif base == PROJECT_DIR:
            kind = "project-zuno"
        else:
            kind = "global" if base == CONFIG_STEM else "project"
    depth = directory.count(os.sep)
    place = depth if kind == "project" else -depth if kind == "project-zuno" else 0
    return (_KIND_RANK.get(kind, len(_KIND_RANK)), place, 1 if path.endswith(".jsonc") else 0)


def _ownership(config: Config | None, target: str, home: str | None = None) -> tuple[ConfigLayer | None, str]:
    """Which layer's ``skills.config`` is in effect, relative to ``target``: returns
    ``(owner, relation)`` with relation ``none`` (no layer sets it), ``target``, ``below`` or
    ``above`` (the owner has higher precedence: our entries would be replaced)."""
    if config is None:
        return None, "none"
    applied = [layer for layer in config.layers if layer.data is not None]
    owner = next((layer for layer in reversed(applied) if _has_rules(layer.data)), None)
    if owner is None:
        return None, "none"
    if owner.kind != "env-content" and _same_file(owner.path, target):
        return owner, "target"
    index = {id(layer): i for i, layer in enumerate(config.layers)}
    mine = next((layer for layer in config.layers if layer.kind != "env-content"
                 and _same_file(layer.path, target)), None)
    if mine is not None:
        return owner, ("above" if index[id(owner)] > index[id(mine)] else "below")
    if _guess_rank(owner.path, owner.kind, home) > _guess_rank(target, None, home):
        return owner, "above"
    return owner, "below"


def _is_project_layer(config: Config | None, target: str, project: str) -> bool:
    """``target`` is (or would be) one of the project's layers: a loaded ``project`` /
    ``project-zuno`` layer, or a ``zuno.json[c]`` whose folder is inside the project."""
    if config is not None:
        for layer in config.layers:
            if layer.kind != "env-content" and _same_file(layer.path, target):
                return layer.kind.startswith("project")
    anchor = config_anchor(target)
    if anchor is None:
        return False
    project = os.path.normpath(os.path.abspath(project))
    anchor = os.path.normpath(anchor)
    return anchor == project or anchor.startswith(project.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class _Pick:
    source: Source
    choice: Choice


def plan_resolution(gen_or_sources: Generation | Iterable[Source], name: str | Sequence[str],
                    choices: Mapping[str, Choice | str], *, target: str,
                    config: Config | None = None, cwd: str | None = None, home: str = "",
                    project: str | None = None,
                    earlier: Sequence[bytes | None] = ()) -> WritePlan:
    """Plan the change to ``target`` that applies ``choices`` to the sources of ``name`` (SPEC K4–K5;
    ``name`` may list several names: one plan for sources of all of them).

    ``gen_or_sources``: a :class:`Generation` or any iterable of :class:`Source` (disabled ones
    included). ``choices`` maps a locator (``Source.location``) to a :class:`Choice` (or its
    value); other sources of ``name`` are left alone. ``target``: the config file to change;
    ``config``: the current merged configuration (its rules are re-run with the change, layer
    precedence is checked). ``cwd`` / ``home`` / ``project``: Zuno's working directory, ``$HOME``
    and the project root (worktree, else ``cwd``) — they decide the spelling of each path
    (:func:`skillshelf.core.spelling.portable_spelling`); without ``cwd`` canonical paths are
    written. ``earlier``: earlier states of ``target``, newest first, that skillshelf wrote and
    that lead without a break to its current bytes (``None`` = it did not exist): a plan that
    gives the same configuration as one of them restores it byte for byte.

    Reads ``target`` (nothing is written). Raises :class:`ConfigWriteError` when a locator is not
    a source of ``name``, a built-in would need an entry, the file cannot be preserved, another
    layer's ``skills.config`` overrides the file, or the re-run rules do not give the choice.
    """
    target = os.path.abspath(target)
    sources = _sources_of(gen_or_sources, name)
    by_locator = {s.location: s for s in sources}
    picks: list[_Pick] = []
    for locator, raw_choice in choices.items():
        try:
            choice = Choice(raw_choice)
        except ValueError:
            raise ConfigWriteError(f"unknown choice {raw_choice!r} for {locator}; expected one of "
                                   + ", ".join(c.value for c in Choice)) from None
        source = by_locator.get(locator)
        if source is None:
            known = ", ".join(by_locator) or "none"
            label = name if isinstance(name, str) else ", ".join(name)
            raise ConfigWriteError(f"{locator} is not a source of skill `{label}` (its sources: {known})")
        picks.append(_Pick(source, choice))

    before = _read_text(target)
    created = before is None
    owner, relation = _ownership(config, target, home or None)
    target_has_rules = False
    if before is not None and before.strip():
        try:
            target_has_rules = _has_rules(parse_jsonc(before, target))
        except ConfigSyntaxError as exc:
            raise ConfigWriteError(f"{exc}; skillshelf will not rewrite a config file it cannot "
                                   "parse (fix it, or choose another target file)") from None
    rule_cwd = os.path.abspath(cwd) if cwd else "/"
    rule_home = home or "/"
    base_rules: tuple[RuleEntry, ...] = tuple(config.rules) if config is not None else ()
    own_rules: tuple[RuleEntry, ...] = ()
    if relation == "target" and before is not None:
        # the target's skills.config is the one in effect: read its entries from the text being
        # edited (never from a configuration loaded earlier, whose indexes may be stale)
        layer = owner if owner is not None and owner.kind != "env-content" else None
        if layer is not None and layer.text == before and config is not None:
            own_rules = base_rules  # loaded from these very bytes
        else:
            own_rules = base_rules = _rules_of(parse_jsonc(before, target), target, cwd=rule_cwd, home=rule_home)

    removals: set[int] = set()
    wanted: list[_Pick] = []
    for pick in picks:
        source = pick.source
        mine = [r.index for r in own_rules if r.targets_file and r.path == os.path.normpath(source.canonical)]
        if mine:
            rest = Config(rules=tuple(r for r in base_rules if r.index not in mine))
            d = rest.decide(source.canonical)
            if _decision_satisfies(pick.choice, d.enabled, d.exposure, d.rule is not None, source):
                removals.update(mine)  # removing our entries alone gives the choice
                continue
            if not satisfies(pick.choice, source.enabled, source.exposure) or _overridden_exposure(source):
                removals.update(mine)  # replaced by the new entry (K4: it wins as a whole)
                wanted.append(pick)
                continue
        if satisfies(pick.choice, source.enabled, source.exposure):
            continue
        wanted.append(pick)

    entries: list[PlannedEntry] = []
    project_root = os.path.abspath(project or cwd or os.path.dirname(target))
    project_target = _is_project_layer(config, target, project_root)
    for pick in wanted:
        source = pick.source
        if source.location.startswith("builtin://") or not os.path.isabs(source.canonical):
            raise ConfigWriteError(f"{source.location} is a built-in skill; skills.config cannot "
                                   "target it")
        if cwd:
            spelled = portable_spelling(source, target=target, cwd=cwd, home=home, project=project_root,
                                        project_target=project_target)
        else:
            spelled = Spelling(source.canonical, "absolute", "")
        enabled, exposure = _entry_json(pick.choice)
        entries.append(PlannedEntry(source.canonical, enabled=enabled, exposure=exposure,
                                    locator=source.location, choice=pick.choice,
                                    spelling=spelled.text, why=spelled.why, kind=spelled.kind))

    if owner is not None and relation == "above" and (entries or removals):
        where = ("$ZUNO_CONFIG_CONTENT" if owner.kind == "env-content" else owner.path)
        hint = ("edit that variable instead" if owner.kind == "env-content"
                else f"write there instead (target {owner.path})")
        raise ConfigWriteError(  # SPEC K1: a later layer's array replaces an earlier one's
            f"skills.config in {where} takes precedence over {target} and its list replaces (is not merged "
            f"with) the one in {target}, so entries added to {target} would have no effect; {hint}")
    inherited: tuple[Any, ...] = ()
    note: str | None = None
    if owner is not None and owner.data is not None and relation == "below" and entries and not target_has_rules:
        raw = owner.data["skills"]["config"]
        inherited = tuple(raw) if isinstance(raw, list | tuple) else ()
        if inherited:
            note = (f"{target} has no skills.config yet, and a list there replaces (is not merged with) the "
                    "inherited one: the "
                    f"{len(inherited)} entr{'y' if len(inherited) == 1 else 'ies'} inherited from "
                    f"{owner.path} are copied first so they keep applying")

    if not entries and not removals:
        label = name if isinstance(name, str) else ", ".join(name)
        return WritePlan(target=target, entries=(), before=before,
                         after=before if before is not None else "", created=created,
                         note=f"nothing to write: every chosen source of `{label}` is already in "
                              "the chosen state")

    items = list(inherited) + [e.to_json() for e in entries]
    assert before is not None or not removals
    after, removed = _edit_rules(before, sorted(removals), items, label=target)
    _check_outcome(base_rules, removals, picks, entries, target, cwd=rule_cwd, home=rule_home)

    restored = _earlier_match(after, earlier, target)
    if restored is not None:
        text = restored[1]
        return WritePlan(target=target, entries=tuple(entries), before=before,
                         after=text if text is not None else "", created=created, note=note,
                         inherited=inherited, removed=removed, deletes=text is None,
                         restores=True)
    return WritePlan(target=target, entries=tuple(entries), before=before, after=after,
                     created=created, note=note, inherited=inherited, removed=removed)


_EXPOSURE_VALUES = ("index", "search", "explicit")


def _rules_of(data: Any, origin: str, *, cwd: str, home: str) -> tuple[RuleEntry, ...]:
    """The usable ``skills.config`` entries of one parsed file as rules, each at its index in
    the array (an entry Zuno would reject is skipped, as :func:`load_config` does)."""
    skills = data.get("skills") if isinstance(data, dict) else None
    raw = skills.get("config") if isinstance(skills, dict) else None
    out: list[RuleEntry] = []
    for i, entry in enumerate(raw if isinstance(raw, list) else ()):
        if not isinstance(entry, dict):
            continue
        path = entry.get("path")
        if not isinstance(path, str) or not path.strip():
            continue
        if any(entry.get(k) is not None and not isinstance(entry.get(k), bool) for k in ("enabled", "recursive")):
            continue
        if entry.get("exposure") is not None and entry.get("exposure") not in _EXPOSURE_VALUES:
            continue
        out.append(resolve_rule(i, entry, cwd=cwd, home=home, origin=origin))
    return tuple(out)


def _overridden_exposure(source: Source) -> bool:
    return source.exposure_reason.startswith("skills.config")


def _decision_satisfies(choice: Choice, enabled: bool, exposure: Exposure | None, ruled: bool,
                        source: Source) -> bool:
    """Whether a rule decision (after removing the file's own entries) gives ``choice``. The
    exposure without an override is the skill's own (sidecar / default), known only when no
    rule overrides it now."""
    if choice in (Choice.KEEP, Choice.DISABLE):
        return satisfies(choice, enabled, None)
    if exposure is not None:
        return satisfies(choice, enabled, exposure)
    if _overridden_exposure(source):
        if source.metadata_sources:
            return False  # its sidecar's exposure is hidden behind the rule: append instead
        return satisfies(choice, enabled, Exposure.INDEX)  # no sidecar: index (SPEC E2)
    return satisfies(choice, enabled, source.exposure)


def _earlier_match(after: str, earlier: Sequence[bytes | None], target: str) -> tuple[int, str | None] | None:
    """The newest earlier state whose configuration equals ``after``'s: ``(position, text)``
    (``text`` ``None``: the file did not exist and ``after`` holds nothing else)."""
    if not earlier:
        return None
    try:
        mine = parse_jsonc(after, target) if after.strip() else {}
    except ConfigSyntaxError:  # pragma: no cover - _edit_rules verified it
        return None
    for i, state in enumerate(earlier):
        if state is None:
            if _empty_config(mine):
                return i, None
            continue
        try:
            text = state.decode("utf-8")
            theirs = parse_jsonc(text, target) if text.strip() else {}
        except (UnicodeDecodeError, ConfigSyntaxError):
            continue
        if theirs == mine:
            return i, text
    return None


def _empty_config(value: Any) -> bool:
    """``{}``, or only ``skills: {config: []}`` — what a file skillshelf created holds once its
    entries are gone."""
    if not isinstance(value, dict):
        return False
    rest = {k: v for k, v in value.items() if k != "skills"}
    skills = value.get("skills", {})
    return not rest and isinstance(skills, dict) and set(skills) <= {"config"} and not skills.get("config")


def _check_outcome(base: Sequence[RuleEntry], removals: set[int], picks: Sequence[_Pick],
                   entries: Sequence[PlannedEntry], origin: str, *, cwd: str, home: str) -> None:
    """Re-run the rules (SPEC K3-K4) as they will be — the current ones less the removed ones,
    ours appended, every written spelling expanded the way Zuno expands it — and check each
    chosen source gets its choice."""
    kept = tuple(r for r in base if r.index not in removals)
    start = (max(r.index for r in base) + 1) if base else 0
    ours = tuple(resolve_rule(start + i, e.to_json(), cwd=cwd, home=home, origin=origin)
                 for i, e in enumerate(entries))
    for entry, rule in zip(entries, ours, strict=True):
        if rule.path != os.path.normpath(entry.path):
            raise ConfigWriteError(f"internal error: the entry {entry.render()} would resolve to "
                                   f"{rule.path}, not {entry.path}; nothing written")
    simulated = Config(rules=kept + ours)
    planned = {e.path for e in entries}
    for pick in picks:
        source, choice = pick.source, pick.choice
        d = simulated.decide(source.canonical)
        if source.canonical in planned:
            ok = d.rule is not None and d.rule.index >= start and satisfies(choice, d.enabled, d.exposure)
        else:
            ok = _decision_satisfies(choice, d.enabled, d.exposure, d.rule is not None, source) \
                if d.rule is None or d.rule.index < start else False
        if not ok:
            raise ConfigWriteError(
                f"the planned change would not make {source.location} `{choice.value}` (the rules "
                f"re-run gave enabled={d.enabled}, exposure={d.exposure.value if d.exposure else None}"
                f"{', decided by ' + d.rule.describe() if d.rule else ''}); nothing written")


# --------------------------------------------------------------------------------------------
# Text editing (offsets into the text itself; every other byte unchanged)


def _fresh_text(items: Sequence[Any]) -> str:
    """A new file: two-space indented JSON, one entry per line, final newline."""
    lines = ",\n".join("      " + json.dumps(i, ensure_ascii=False) for i in items)
    return '{\n  "skills": {\n    "config": [\n' + lines + "\n    ]\n  }\n}\n"


_REFUSE = "; skillshelf will not rewrite it (fix it, or choose another target file)"


class _Editor:
    """Collects edits (offset, delete-length, insert-text) on one body text, applied at once."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.nl = "\r\n" if "\r\n" in body else "\n"
        self.unit = self._detect_unit()
        self.edits: list[tuple[int, int, str]] = []
        #: the whole document is on one line: new empty-container contents stay inline too
        self.flat = "\n" not in body.strip()

    def _detect_unit(self) -> str:
        smallest: int | None = None
        for match in re.finditer(r"^([ \t]+)\S", self.body[:65536], re.MULTILINE):
            lead = match.group(1)
            if "\t" in lead:
                return "\t"
            smallest = len(lead) if smallest is None else min(smallest, len(lead))
        return " " * smallest if smallest else "  "

    def line_indent(self, pos: int) -> str:
        start = self.body.rfind("\n", 0, pos) + 1
        line = self.body[start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def own_line(self, pos: int) -> bool:
        start = self.body.rfind("\n", 0, pos) + 1
        return self.body[start:pos].strip() == ""

    @staticmethod
    def trailing_comma(c: Container) -> bool:
        return c.comma is not None

    def add_items(self, c: Container, render: Callable[[str, bool], list[str]]) -> None:
        """Insert rendered items at the end of container ``c`` (indentation and separators
        follow its last child)."""
        body = self.body
        kept = list(range(len(c.starts)))
        open_end = c.open + 1
        close = c.close
        closing = self.line_indent(close) if self.own_line(close) else self.line_indent(c.open)
        trailing = self.trailing_comma(c)
        if kept:
            last_end = c.ends[kept[-1]]
            inline = "\n" not in body[open_end:close]
            indent = closing + self.unit
            for i in (kept[0], kept[-1]):
                if self.own_line(c.starts[i]):
                    indent = self.line_indent(c.starts[i])
                    break
        else:
            last_end = open_end
            inline = self.flat
            indent = closing + self.unit
        segment_end = last_end + len(body[last_end:close].rstrip())
        texts = render(indent, inline)
        if kept and not trailing:
            self.edits.append((last_end, 0, ","))
        if inline:
            text = (" " if kept else "") + ", ".join(texts) + ("," if trailing else "")
        else:
            sep = "," + self.nl + indent
            text = self.nl + indent + sep.join(texts) + ("," if trailing else "")
            if "\n" not in body[segment_end:close]:
                text += self.nl + closing
        self.edits.append((segment_end, 0, text))

    def _line_rest(self, pos: int) -> int:
        """``pos``, or the end of its line when only spaces and a ``//`` comment follow on it."""
        newline = self.body.find("\n", pos)
        newline = len(self.body) if newline < 0 else newline
        rest = self.body[pos:newline].strip()
        return newline if rest.startswith("//") and "\n" not in rest else pos

    def remove_item(self, c: Container, i: int) -> None:
        """Delete child ``i`` of ``c`` with its separator and its same-line comment (the inverse
        of :meth:`add_items` for an item it appended)."""
        body = self.body
        n = len(c.starts)
        last = i == n - 1
        after = skip_trivia(body, c.ends[i])
        own_comma = body.startswith(",", after) and after < c.close
        if i > 0:
            comma = skip_trivia(body, c.ends[i - 1])  # the separator before this item
            newline = body.find("\n", comma, c.starts[i])
            start = newline if newline >= 0 else comma + 1
            end = self._line_rest(after + 1) if own_comma else c.ends[i]
            if last and not own_comma:
                self.edits.append((comma, 1, ""))  # the previous item becomes the last one
            self.edits.append((start, end - start, ""))
        elif not last:
            self.edits.append((c.starts[0], c.starts[1] - c.starts[0], ""))
        else:  # the only item: empty the container
            end = (after + 1) if own_comma else c.ends[i]
            if not body[end:c.close].strip():
                end = c.close
            self.edits.append((c.open + 1, end - c.open - 1, ""))

    def result(self) -> str:
        out = self.body
        # right to left; at one offset the later edit goes in first so it ends up after
        order = sorted(range(len(self.edits)), key=lambda i: (self.edits[i][0], i), reverse=True)
        for i in order:
            offset, length, text = self.edits[i]
            out = out[:offset] + text + out[offset + length:]
        return out


def append_rules(text: str | None, items: Sequence[Any], *, label: str = "<config>") -> str:
    """``text`` with ``items`` (JSON values) appended to the end of ``skills.config``.

    ``None`` or blank text gives fresh pretty JSON holding only ``{"skills": {"config": items}}``.
    Otherwise the insertion is spliced into the original text (see the module docstring) and
    checked. ``label`` names the file in errors. Raises :class:`ConfigWriteError` when the file
    cannot be preserved. Linear in the size of ``text``.
    """
    return _edit_rules(text, (), items, label=label)[0]


def _edit_rules(text: str | None, removals: Sequence[int], items: Sequence[Any], *,
                label: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with the ``skills.config`` entries at ``removals`` taken out and ``items``
    appended; also returns the removed entries as written (one line each)."""
    if text is None or not text.strip():
        return _fresh_text(items), ()
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    try:
        old = parse_jsonc(text, label, strict=True)
    except ConfigSyntaxError as exc:
        raise ConfigWriteError(f"{exc}{_REFUSE}") from None
    if not isinstance(old, dict):
        raise ConfigWriteError(f"{label}: the top level is not an object{_REFUSE}")
    try:
        root = container_at(body, skip_trivia(body, 0))
    except (ValueError, RecursionError) as exc:
        raise ConfigWriteError(f"{label}: cannot locate skills.config for a faithful rewrite ({exc})"
                               f"{_REFUSE}") from None

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    ed = _Editor(body)
    u, nl = ed.unit, ed.nl

    def entries_block(indent: str) -> str:
        inner = indent + u
        return "[" + nl + inner + ("," + nl + inner).join(dumps(i) for i in items) + nl + indent + "]"

    removed: tuple[str, ...] = ()
    at = root.member("skills")
    if at is None:
        if not items:
            return text, ()

        def render_root(indent: str, inline: bool) -> list[str]:
            if inline:
                return ['"skills": ' + dumps({"config": list(items)})]
            return ['"skills": {' + nl + indent + u + '"config": ' + entries_block(indent + u)
                    + nl + indent + "}"]
        ed.add_items(root, render_root)
    elif body[root.values[at]] != "{":
        raise ConfigWriteError(f"{label}: `skills` is not an object{_REFUSE}")
    else:
        skills = container_at(body, root.values[at])
        cat = skills.member("config")
        if cat is None:
            if not items:
                return text, ()

            def render_skills(indent: str, inline: bool) -> list[str]:
                if inline:
                    return ['"config": ' + dumps(list(items))]
                return ['"config": ' + entries_block(indent)]
            ed.add_items(skills, render_skills)
        elif body[skills.values[cat]] != "[":
            raise ConfigWriteError(f"{label}: `skills.config` is not an array{_REFUSE}")
        else:
            config = container_at(body, skills.values[cat])
            gone = sorted({i for i in removals if 0 <= i < len(config.starts)})
            if len(gone) > 1 or (gone and items):  # one edit per pass, each linear: last index first
                removed_all: list[str] = []
                current = text
                for i in reversed(gone):
                    current, one = _edit_rules(current, [i], (), label=label)
                    removed_all[:0] = one
                if items:
                    current = _edit_rules(current, (), items, label=label)[0]
                return current, tuple(removed_all)
            removed = tuple(" ".join(body[config.values[i]:config.ends[i]].split()) for i in gone)
            if gone:
                ed.remove_item(config, gone[0])
            elif items:
                ed.add_items(config, lambda indent, inline: [dumps(i) for i in items])
    new = bom + ed.result()
    _verify_edit(old, new, sorted(set(removals)), items, label)
    return new, removed


def _verify_edit(old: Any, new_text: str, removals: Sequence[int], items: Sequence[Any], label: str) -> None:
    try:
        new = parse_jsonc(new_text, label)
    except ConfigSyntaxError as exc:  # pragma: no cover - would be a bug in the editor
        raise ConfigWriteError(f"internal error: the rewritten {label} does not parse ({exc})") from None
    expected = json.loads(json.dumps(old))
    skills = expected.setdefault("skills", {})
    current = list(skills.get("config", []))
    kept = [v for i, v in enumerate(current) if i not in set(removals)]
    if kept or items or "config" in skills:
        skills["config"] = kept + list(items)
    if new != expected:  # pragma: no cover - would be a bug in the editor
        raise ConfigWriteError(f"internal error: rewriting {label} would change more than "
                               "skills.config; nothing written")


# --------------------------------------------------------------------------------------------
# Locking and writing

_held: dict[str, int] = {}
_held_lock = threading.Lock()
_owner = threading.local()


@contextlib.contextmanager
def config_lock(path: str, *, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold skillshelf's advisory lock for the config file ``path``: ``flock`` on the folder that
    holds it (the folder is the one thing a rename does not replace). Re-entrant within a
    process. Waits up to ``timeout`` seconds, then raises :class:`ConfigWriteError` naming the
    folder. A folder that does not exist yet is created (the caller removes it again when
    nothing is written). Without ``fcntl`` (Windows) nothing is locked."""
    directory = os.path.dirname(os.path.realpath(path)) or "."
    if fcntl is None:  # pragma: no cover - not a POSIX system
        yield
        return
    with _held_lock:
        mine = getattr(_owner, "dirs", None)
        if mine is None:
            mine = _owner.dirs = set()
        if directory in mine:
            _held[directory] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _held_lock:
                _held[directory] -= 1
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError as exc:
        raise ConfigWriteError(f"cannot lock {directory}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise ConfigWriteError(f"cannot lock {directory}: {exc.strerror or exc}") from None
                if time.monotonic() >= deadline:
                    raise ConfigWriteError(
                        f"another skillshelf is writing in {directory} (waited {timeout:g} s); "
                        "nothing written — try again") from None
                time.sleep(0.02)
        with _held_lock:
            _held[directory] = 1
            mine.add(directory)
        try:
            yield
        finally:
            with _held_lock:
                _held.pop(directory, None)
                mine.discard(directory)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _temp_name(path: str) -> str:
    return os.path.join(os.path.dirname(path),
                        f".{os.path.basename(path)}.skillshelf-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _remove_stale_temps(path: str) -> None:
    """Under the lock, a temporary file of skillshelf's naming for ``path`` is an orphan (its
    writer died between link and rename): remove it."""
    directory, name = os.path.split(path)
    prefix = f".{name}.skillshelf-"
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory):
            if entry.startswith(prefix) and entry.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, entry))


def _write_fd(fd: int, data: bytes, mode: int | None) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    if mode is not None:
        os.fchmod(fd, mode)
    os.fsync(fd)


def _atomic_write(path: str, data: bytes, *, mode: int | None) -> None:
    """Replace ``path`` by ``data``: written and ``fsync``-ed in an unnamed file
    (``O_TMPFILE``), linked to a temporary name and renamed at once; without ``O_TMPFILE``, a
    named temporary file. ``mode`` ``None``: the normal mode of a new file (``0666`` less the
    umask). Nothing is left behind on failure."""
    directory = os.path.dirname(path) or "."
    tmp = _temp_name(path)
    anonymous = getattr(os, "O_TMPFILE", 0)
    fd = -1
    if anonymous:
        try:
            fd = os.open(directory, anonymous | os.O_WRONLY, 0o666)
        except OSError:
            fd = -1
    try:
        if fd >= 0:
            try:
                _write_fd(fd, data, mode)
                os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
            except OSError:
                os.close(fd)
                fd = -1
        if fd < 0:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            _write_fd(fd, data, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        if fd >= 0:
            os.close(fd)
    _fsync_dir(directory)


def write_atomically(path: str, data: bytes, *, private: bool = False) -> None:
    """Replace (or create) ``path`` with ``data`` atomically, as config files are written (an
    existing file keeps its mode; ``private``: the file is made 0600 whatever it was, for
    skillshelf's own records). Raises :class:`OSError`."""
    if private:
        _atomic_write(path, data, mode=0o600)
        return
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    _atomic_write(path, data, mode=mode)


def _fsync_dir(directory: str) -> None:
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _read_bytes(path: str) -> bytes | None:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None


def _check_writable_target(target: str) -> None:
    """Refuse a dangling symlink on the way to ``target`` (never create its target or parents)
    and a read-only file (never silently replaced), naming the real path."""
    lexical = os.path.abspath(target)
    parts = lexical.split(os.sep)
    for i in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:i]) or os.sep
        if os.path.islink(prefix) and not os.path.exists(prefix):
            real = os.path.realpath(prefix)
            what = "the config file" if prefix == lexical else f"the folder {prefix}"
            raise ConfigWriteError(f"{what} is a symlink to {real}, which does not exist; skillshelf "
                                   "will not create it (fix the link, or choose another target file)")
    real = os.path.realpath(lexical)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigWriteError(f"cannot write {real}: {exc.strerror or exc}") from None
    if stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222:
        raise ConfigWriteError(f"{real} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); skillshelf "
                               "will not replace it (make it writable, or choose another target file)")
    if stat.S_ISREG(st.st_mode) and not os.access(real, os.W_OK):
        raise ConfigWriteError(f"{real} is not writable for you; nothing written (choose another "
                               "target file)")


def apply_plan(plan: WritePlan) -> WriteResult:
    """Write ``plan`` (SPEC K5) under :func:`config_lock` and return what :func:`undo` needs.

    Refuses with :class:`ConfigWriteError` when the file no longer holds ``plan.before`` (edited,
    created or deleted since planning: plan again), a symlink on the way dangles, or the file
    is read-only. An existing file's previous bytes go to ``<file>.bak`` first; missing parent
    folders are created. A plan without changes writes nothing (``written`` False). A failure
    leaves the original file intact and no temporary file behind.
    """
    _check_writable_target(plan.target)
    real = os.path.realpath(plan.target)
    directory = os.path.dirname(real)
    created_dirs: list[str] = []
    probe = directory
    while probe and not os.path.isdir(probe):
        created_dirs.append(probe)
        probe = os.path.dirname(probe)
    if created_dirs and plan.changes:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise ConfigWriteError(f"cannot write {plan.target}: {exc.strerror or exc}; the file is "
                                   "unchanged") from exc
    made = tuple(reversed(created_dirs))
    try:
        if not os.path.isdir(directory):
            previous = None
            lock: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
        else:
            lock = config_lock(real)
        with lock:
            previous = _read_bytes(real) if os.path.isdir(directory) else None
            now = None if previous is None else previous.decode("utf-8", "surrogateescape")
            if now != plan.before:
                state = "was deleted" if now is None else ("was created" if plan.before is None else "changed")
                raise ConfigWriteError(f"{plan.target} {state} on disk since the plan was made; "
                                       "nothing written — plan again")
            if not plan.changes:
                return WriteResult(plan.target, real, None, previous, previous, False, False)
            _remove_stale_temps(real)
            backup = None
            backup_previous = None
            mode = None
            try:
                if previous is not None:
                    mode = stat.S_IMODE(os.stat(real).st_mode)
                    backup = real + ".bak"
                    backup_previous = _read_bytes(backup)
                    _atomic_write(backup, previous, mode=mode)
                if plan.deletes:
                    os.unlink(real)
                    _fsync_dir(directory)
                    after = None
                else:
                    after = plan.after.encode("utf-8")
                    _atomic_write(real, after, mode=mode)
            except OSError as exc:
                raise ConfigWriteError(f"cannot write {plan.target}: {exc.strerror or exc}; the file is "
                                       "unchanged") from exc
    except ConfigWriteError:
        _remove_dirs(made)
        raise
    return WriteResult(plan.target, real, backup, previous, after, previous is None, True, made, backup_previous)


def _remove_dirs(dirs: Sequence[str]) -> None:
    for directory in reversed(dirs):
        try:
            os.rmdir(directory)
        except OSError:
            break


def undo(result: WriteResult) -> None:
    """Undo :func:`apply_plan`: restore the previous bytes exactly (atomically, mode kept) and the
    ``.bak`` as it was, or delete the file it created (and the folders it made, when empty).
    Refuses with :class:`ConfigWriteError` when the file no longer holds what was written (a
    later edit is never clobbered). Holds :func:`config_lock`."""
    if not result.written:
        return
    directory = os.path.dirname(result.path)
    if not os.path.isdir(directory):
        if result.after is None and result.previous is not None:
            raise ConfigWriteError(f"{directory} is gone; cannot restore {result.target}")
        if result.after is not None:
            raise ConfigWriteError(f"{result.target} changed since skillshelf wrote it (it is gone); "
                                   "not undone")
        return
    try:
        with config_lock(result.path):
            now = _read_bytes(result.path)
            if now != result.after:
                raise ConfigWriteError(f"{result.target} changed since skillshelf wrote it; not undone "
                                       f"(the previous version is in {result.backup or 'no backup'})")
            if result.previous is None:
                os.unlink(result.path)
            else:
                # the file keeps its mode; a deleted one gets back the mode its .bak kept
                mode_from = result.path if now is not None else result.backup
                mode = (stat.S_IMODE(os.stat(mode_from).st_mode)
                        if mode_from is not None and os.path.exists(mode_from) else None)
                _atomic_write(result.path, result.previous, mode=mode)
                if result.backup is not None and _read_bytes(result.backup) == result.previous:
                    # the .bak this write made: put it back as it was (absent, or its old bytes)
                    if result.backup_previous is None:
                        os.unlink(result.backup)
                    else:
                        _atomic_write(result.backup, result.backup_previous, mode=mode)
    except OSError as exc:
        raise ConfigWriteError(f"cannot undo the change to {result.target}: {exc.strerror or exc}") from exc
    if result.previous is None:
        _remove_dirs(result.created_dirs)


def outcome_problems(gen: Generation, name: str, choices: Mapping[str, Choice | str]) -> list[str]:
    """After a write: each chosen source's state in a freshly built generation that does not match
    its choice, as sentences (empty list = the outcome is what the user chose). A source counts by
    locator; one that vanished is reported too."""
    problems: list[str] = []
    for locator, raw in choices.items():
        choice = Choice(raw)
        source = gen.by_location(locator)
        if source is None:
            problems.append(f"{locator} is no longer in the catalog")
            continue
        if not satisfies(choice, source.enabled, source.exposure):
            state = "disabled" if not source.enabled else f"enabled, exposure {source.exposure.value}"
            problems.append(f"{locator} should be `{choice.value}` but is {state}")
    return problems
