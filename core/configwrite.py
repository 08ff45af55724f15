"""Writing ``skills.config`` entries that resolve a same-name conflict (SPEC K5, C ``resolve``).

The user picks, for each source of an ambiguous name, a :class:`Choice`; :func:`plan_resolution`
turns that into the exact entries to add and the new text of one config file, without touching
the disk; :func:`apply_plan` writes it atomically and :func:`undo` puts the old bytes back.

Rules this module keeps (each is tested in ``tests/core/test_configwrite.py``):

- Entries are only ever *appended* to the end of ``skills.config`` (the last matching entry wins,
  SPEC K4); existing entries are never edited or removed. ``skills`` and ``skills.config`` are
  created when absent. Every entry targets the source's canonical ``SKILL.md`` path, so it is a
  file target that matches exactly that source (SPEC K3).
- Every byte of the file outside the inserted text is unchanged: the text is spliced at offsets
  found with json-five's round-trip model (:mod:`skillshelf.core.jsonc`) (comments, trailing commas, key order, spacing, line
  endings and a BOM all survive; ``.json`` files are JSONC to Zuno too, so the same holds for
  them). The inserted text is strict JSON, indented like its neighbours. A file json-five
  cannot reproduce byte for byte, that does not parse, whose top level is not an object, or whose
  ``skills`` / ``skills.config`` has the wrong type is refused (:class:`ConfigWriteError`, naming
  why and suggesting ``--file``): skillshelf never rewrites what it cannot preserve.
- Arrays replace across layers (SPEC K1). Given the current :class:`~skillshelf.core.config.Config`,
  a target whose ``skills.config`` would be replaced by a higher layer's is refused (naming that
  layer); a target without ``skills.config`` below a lower layer that sets one gets a copy of the
  inherited entries first, so they keep applying (the plan's ``note`` says so).
- The outcome is checked by re-running the rules (:meth:`Config.decide` semantics) on the
  planned rule list before anything is written.
- Writes are atomic: a temporary file in the same directory, ``fsync``, ``os.replace``; the
  previous bytes are kept in ``<file>.bak``. A symlinked config file is written through (its
  target is replaced, the link stays). A file that changed on disk since the plan was made is
  refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from json5.model import JSONArray, JSONObject, Node

from skillshelf.core.config import (
    CONFIG_STEM,
    PROJECT_DIR,
    Config,
    ConfigLayer,
    ConfigSyntaxError,
    parse_jsonc,
    resolve_rule,
)
from skillshelf.core.fileread import read_regular
from skillshelf.core.jsonc import Document, JsoncError, member, parse_document
from skillshelf.core.model import Exposure, Generation, Source

__all__ = [
    "Choice",
    "ConfigWriteError",
    "PlannedEntry",
    "WritePlan",
    "WriteResult",
    "append_rules",
    "apply_plan",
    "default_target",
    "global_target",
    "outcome_problems",
    "plan_resolution",
    "undo",
]


class Choice(str, Enum):
    """What happens to one source of an ambiguous name (SPEC K5).

    ``KEEP``: it stays enabled (an entry is added only when a rule currently disables it).
    ``SEARCH`` / ``EXPLICIT``: it stays enabled with that exposure (SPEC E1) — note the name
    then stays ambiguous, since it is still loadable by name. ``DISABLE``: ``enabled: false``.
    """

    KEEP = "keep"
    SEARCH = "search"
    EXPLICIT = "explicit"
    DISABLE = "disable"


class ConfigWriteError(Exception):
    """The plan cannot be made or written safely; ``str(exc)`` says why in one sentence and,
    where it helps, what to do instead (``--file``)."""


@dataclass(frozen=True)
class PlannedEntry:
    """One ``skills.config`` entry to append (SPEC K3).

    ``path`` is the canonical ``SKILL.md`` path (a file target). ``enabled`` is ``False`` to
    disable, ``True`` to re-enable a kept source, ``None`` to omit the key. ``exposure`` is
    ``"search"`` / ``"explicit"`` or ``None``. ``locator`` and ``choice`` say which source and
    which pick produced it (display only; not written).
    """

    path: str
    enabled: bool | None = None
    exposure: str | None = None
    locator: str = field(default="", compare=False)
    choice: Choice | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The object written into ``skills.config``: ``{"path", "enabled"?, "exposure"?}``."""
        out: dict[str, Any] = {"path": self.path}
        if self.enabled is not None:
            out["enabled"] = self.enabled
        if self.exposure is not None:
            out["exposure"] = self.exposure
        return out

    def render(self) -> str:
        """The entry as one line of JSON, exactly as inserted (``{"path": "…", "enabled": false}``)."""
        return json.dumps(self.to_json(), ensure_ascii=False)


@dataclass(frozen=True)
class WritePlan:
    """A planned change to one config file; nothing is written until :func:`apply_plan`.

    ``target``: the config file path. ``entries``: what is appended (may be empty when every
    source is already in the chosen state; then ``after == before``). ``before``: the file's
    current text (``None`` when absent). ``after``: the complete new text. ``created``: the file
    does not exist yet. ``note``: a sentence worth showing the user (inherited entries copied,
    nothing to do …) or ``None``. ``inherited``: entries copied from a lower layer before ours.
    """

    target: str
    entries: tuple[PlannedEntry, ...]
    before: str | None
    after: str
    created: bool
    note: str | None = None
    inherited: tuple[Any, ...] = ()

    @property
    def changes(self) -> bool:
        """True when applying the plan changes (or creates) the file."""
        return bool(self.entries) and self.before != self.after


@dataclass(frozen=True)
class WriteResult:
    """What :func:`apply_plan` did. ``path`` is the file actually written (the symlink-resolved
    ``target``); ``backup`` the ``.bak`` path or ``None`` (file created, or nothing written);
    ``previous`` the exact previous bytes (``None`` when created); ``written`` is False when the
    plan had nothing to change; ``created_dirs`` directories made for the file (removed again by
    :func:`undo` when empty); ``backup_previous`` the bytes the ``.bak`` held before this write
    (``None``: there was none), so :func:`undo` puts the ``.bak`` back as it was too."""

    target: str
    path: str
    backup: str | None
    previous: bytes | None
    after: bytes
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
    """The project config file ``resolve`` writes by default (SPEC K5): ``.zuno/zuno.json`` at the
    worktree root when there is one, else in ``cwd``; an existing ``.zuno/zuno.jsonc`` there is
    preferred (it has the higher precedence of the two, SPEC K1). Returns an absolute path; the
    file may not exist."""
    base = worktree if worktree else cwd
    return _prefer_jsonc(os.path.join(os.path.abspath(base), PROJECT_DIR))


def global_target(xdg_config_home: str) -> str:
    """The global config file: ``$XDG_CONFIG_HOME/zuno/zuno.json``, or the existing ``zuno.jsonc``
    (SPEC K1). ``xdg_config_home`` must already be defaulted (``~/.config``)."""
    return _prefer_jsonc(os.path.join(os.path.abspath(xdg_config_home), CONFIG_STEM))


# --------------------------------------------------------------------------------------------
# Planning


def _sources_of(gen_or_sources: Generation | Iterable[Source], name: str) -> list[Source]:
    sources = gen_or_sources.sources if isinstance(gen_or_sources, Generation) else gen_or_sources
    return [s for s in sources if s.name == name]


def _entry_for(source: Source, choice: Choice,
               decide: Callable[[Source], tuple[bool, Exposure | None]]) -> PlannedEntry | None:
    """The entry that puts ``source`` in the chosen state, or ``None`` when it already is."""
    enabled, exposure = decide(source)
    if choice is Choice.KEEP:
        if enabled:
            return None
        return PlannedEntry(source.canonical, enabled=True, locator=source.location, choice=choice)
    if choice is Choice.DISABLE:
        if not enabled:
            return None
        return PlannedEntry(source.canonical, enabled=False, locator=source.location, choice=choice)
    wanted = Exposure(choice.value)
    if enabled and exposure is wanted:
        return None
    return PlannedEntry(source.canonical, exposure=wanted.value, locator=source.location, choice=choice)


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


_KIND_RANK = {"global": 0, "project": 1, "project-zuno": 2, "env-file": 3, "env-dir": 4,
              "env-content": 5, "cli": 6}


def _guess_rank(path: str, kind: str | None) -> tuple[int, int, int]:
    """Precedence key for a layer (SPEC K1): kind, then walk depth (outer first), then
    ``.json`` before ``.jsonc``. A file that is not a layer yet gets its kind from its place:
    under ``.zuno/`` → project-zuno, in a ``zuno/`` directory → global, else project."""
    directory = os.path.dirname(os.path.normpath(os.path.abspath(path)))
    if kind is None:
        base = os.path.basename(directory)
        kind = "project-zuno" if base == PROJECT_DIR else "global" if base == CONFIG_STEM else "project"
    depth = directory.count(os.sep) if kind in ("project", "project-zuno") else 0
    return (_KIND_RANK.get(kind, 6), depth, 1 if path.endswith(".jsonc") else 0)


def _ownership(config: Config | None, target: str) -> tuple[ConfigLayer | None, str]:
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
    if _guess_rank(owner.path, owner.kind) > _guess_rank(target, None):
        return owner, "above"
    return owner, "below"


def plan_resolution(gen_or_sources: Generation | Iterable[Source], name: str,
                    choices: Mapping[str, Choice | str], *, target: str,
                    config: Config | None = None) -> WritePlan:
    """Plan the ``skills.config`` entries that apply ``choices`` to the sources of ``name`` (SPEC K5).

    ``gen_or_sources``: a :class:`Generation` or any iterable of :class:`Source` (disabled ones
    included, so a kept source that a rule disables can be re-enabled). ``choices`` maps a
    locator (``Source.location``) to a :class:`Choice` (or its value); sources of ``name`` not in
    ``choices`` get no entry; a source already in its chosen state (read from its ``enabled`` /
    ``exposure``) gets none either — ``KEEP`` adds ``{"path", "enabled": true}`` only for a source
    a rule disables now. ``target``: the config file to change. ``config``: the current merged
    configuration; when given, its rules are re-run with ours appended and layer precedence is
    checked (see the module docstring).

    Reads ``target`` (nothing is written). Raises :class:`ConfigWriteError` when a locator is not
    a source of ``name``, a built-in would need an entry (``skills.config`` cannot target it), the
    file cannot be preserved, another layer's ``skills.config`` would override the file, or the
    re-run rules do not give the chosen outcome.
    """
    target = os.path.abspath(target)
    sources = _sources_of(gen_or_sources, name)
    by_locator = {s.location: s for s in sources}
    picks: list[tuple[Source, Choice]] = []
    for locator, raw_choice in choices.items():
        try:
            choice = Choice(raw_choice)
        except ValueError:
            raise ConfigWriteError(f"unknown choice {raw_choice!r} for {locator}; expected one of "
                                   + ", ".join(c.value for c in Choice)) from None
        source = by_locator.get(locator)
        if source is None:
            known = ", ".join(by_locator) or "none"
            raise ConfigWriteError(f"{locator} is not a source of skill `{name}` (its sources: {known})")
        picks.append((source, choice))

    def current(source: Source) -> tuple[bool, Exposure | None]:
        return source.enabled, source.exposure

    entries: list[PlannedEntry] = []
    for source, choice in picks:
        entry = _entry_for(source, choice, current)
        if entry is None:
            continue
        if source.location.startswith("builtin://") or not os.path.isabs(source.canonical):
            raise ConfigWriteError(f"{source.location} is a built-in skill; skills.config cannot "
                                   "target it")
        entries.append(entry)

    before = _read_text(target)
    created = before is None
    owner, relation = _ownership(config, target)
    if owner is not None and relation == "above" and entries:
        where = ("$ZUNO_CONFIG_CONTENT" if owner.kind == "env-content" else owner.path)
        hint = ("edit that variable instead" if owner.kind == "env-content"
                else f"write there instead (target {owner.path})")
        raise ConfigWriteError(
            f"skills.config in {where} takes precedence over {target} and arrays replace (SPEC K1), "
            f"so entries added to {target} would have no effect; {hint}")
    inherited: tuple[Any, ...] = ()
    note: str | None = None
    target_has_rules = False
    if before is not None and before.strip():
        try:
            target_has_rules = _has_rules(parse_jsonc(before, target))
        except ConfigSyntaxError as exc:
            raise ConfigWriteError(f"{exc}; skillshelf will not rewrite a config file it cannot "
                                   "parse (fix it, or choose another target file)") from None
    if owner is not None and owner.data is not None and relation == "below" and entries and not target_has_rules:
        inherited = tuple(owner.data["skills"]["config"]) if isinstance(
            owner.data["skills"]["config"], list) else ()
        if inherited:
            note = (f"{target} has no skills.config yet and arrays replace (SPEC K1): the "
                    f"{len(inherited)} entr{'y' if len(inherited) == 1 else 'ies'} inherited from "
                    f"{owner.path} are copied first so they keep applying")

    if not entries:
        return WritePlan(target=target, entries=(), before=before,
                         after=before if before is not None else "", created=created,
                         note=f"nothing to write: every chosen source of `{name}` is already in "
                              "the chosen state")

    items = list(inherited) + [e.to_json() for e in entries]
    after = append_rules(before, items, label=target)

    _check_outcome(config, picks, entries, target)
    return WritePlan(target=target, entries=tuple(entries), before=before, after=after,
                     created=created, note=note, inherited=inherited)


def _check_outcome(config: Config | None, picks: Sequence[tuple[Source, Choice]],
                   entries: Sequence[PlannedEntry], origin: str) -> None:
    """Re-run the rules (SPEC K3-K4) with the current ones first and ours appended: every source
    that gets an entry must be decided by *our* entry, with the chosen outcome. (A source without
    an entry is already in the chosen state, and file-target entries match no other source.)"""
    base = tuple(config.rules) if config is not None else ()
    ours = tuple(resolve_rule(len(base) + i, e.to_json(), cwd="/", home="/", origin=origin)
                 for i, e in enumerate(entries))
    simulated = Config(rules=base + ours)
    planned = {e.path: e for e in entries}
    for source, choice in picks:
        if source.canonical not in planned:
            continue
        d = simulated.decide(source.canonical)
        ok = d.rule is not None and d.rule.index >= len(base) and {
            Choice.KEEP: d.enabled,
            Choice.DISABLE: not d.enabled,
            Choice.SEARCH: d.enabled and d.exposure is Exposure.SEARCH,
            Choice.EXPLICIT: d.enabled and d.exposure is Exposure.EXPLICIT,
        }[choice]
        if not ok:
            raise ConfigWriteError(
                f"the planned entries would not make {source.location} `{choice.value}` (the rules "
                f"re-run gave enabled={d.enabled}, exposure={d.exposure.value if d.exposure else None}"
                f"{', decided by ' + d.rule.describe() if d.rule else ''}); nothing written")


# --------------------------------------------------------------------------------------------
# Text splicing (json-five model for offsets; every other byte unchanged)


def _fresh_text(items: Sequence[Any]) -> str:
    """A new file: two-space indented JSON, one entry per line, final newline."""
    lines = ",\n".join("      " + json.dumps(i, ensure_ascii=False) for i in items)
    return '{\n  "skills": {\n    "config": [\n' + lines + "\n    ]\n  }\n}\n"


class _Splicer:
    """Collects insertions (offset, text) into one body text and applies them at once."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        body = doc.text
        self.body = body
        self.nl = "\r\n" if "\r\n" in body else "\n"
        self.unit = self._detect_unit()
        self.inserts: list[tuple[int, str]] = []
        #: the whole document is on one line: new empty-container contents stay inline too
        self.flat = "\n" not in body.strip()

    def _detect_unit(self) -> str:
        widths = []
        for line in self.body.splitlines():
            stripped = line.lstrip(" \t")
            lead = line[: len(line) - len(stripped)]
            if not stripped or not lead:
                continue
            if "\t" in lead:
                return "\t"
            widths.append(len(lead))
        return " " * min(widths) if widths else "  "

    def line_indent(self, pos: int) -> str:
        start = self.body.rfind("\n", 0, pos) + 1
        line = self.body[start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def own_line(self, pos: int) -> bool:
        start = self.body.rfind("\n", 0, pos) + 1
        return self.body[start:pos].strip() == ""

    def add_items(self, container: JSONObject | JSONArray, children: Sequence[Node],
                  render: Callable[[str, bool], list[str]]) -> None:
        """Insert rendered items at the end of ``container`` (object or array). ``children`` are
        the first nodes of existing items (keys for objects); ``render(indent, inline)`` returns
        the item texts for that indentation."""
        body = self.body
        doc = self.doc
        open_end = doc.inner_start(container)
        close = doc.inner_end(container)
        closing = self.line_indent(close) if self.own_line(close) else self.line_indent(doc.start(container))
        if children:
            last_end = doc.end(container.values[-1])
            inline = "\n" not in body[open_end:close]
            indent = closing + self.unit
            for node in (children[0], children[-1]):
                if self.own_line(doc.start(node)):
                    indent = self.line_indent(doc.start(node))
                    break
        else:
            last_end = open_end
            inline = self.flat
            indent = closing + self.unit
        segment = body[last_end:close]
        content_end = last_end + len(segment.rstrip())
        trailing = container.trailing_comma is not None
        texts = render(indent, inline)
        if children and not trailing:
            self.inserts.append((last_end, ","))
        if inline:
            text = (" " if children else "") + ", ".join(texts) + ("," if trailing else "")
        else:
            sep = "," + self.nl + indent
            text = self.nl + indent + sep.join(texts) + ("," if trailing else "")
            if "\n" not in body[content_end:close]:
                text += self.nl + closing
        self.inserts.append((content_end, text))

    def result(self) -> str:
        out = self.body
        # right to left; at one offset the later insertion goes in first so it ends up after
        order = sorted(range(len(self.inserts)), key=lambda i: (self.inserts[i][0], i), reverse=True)
        for i in order:
            offset, text = self.inserts[i]
            out = out[:offset] + text + out[offset:]
        return out


def append_rules(text: str | None, items: Sequence[Any], *, label: str = "<config>") -> str:
    """``text`` with ``items`` (JSON values) appended to the end of ``skills.config``.

    ``None`` or blank text gives fresh pretty JSON holding only ``{"skills": {"config": items}}``.
    Otherwise the insertion is spliced into the original text (see the module docstring) and the
    result is checked: it parses, its ``skills.config`` is the old array plus ``items``, and
    everything else parses to the same values. ``label`` names the file in errors. Raises
    :class:`ConfigWriteError` when the file cannot be preserved.
    """
    if text is None or not text.strip():
        return _fresh_text(items)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    refuse = "; skillshelf will not rewrite it (fix it, or choose another target file)"
    try:
        old = parse_jsonc(text, label)
    except ConfigSyntaxError as exc:
        raise ConfigWriteError(f"{exc}{refuse}") from None
    try:
        doc = parse_document(body)
    except JsoncError as exc:  # plain JSON json-five cannot read (nesting too deep …)
        raise ConfigWriteError(f"{label}: json-five cannot read it for a faithful rewrite ({exc})"
                               f"{refuse}") from None
    if not doc.round_trips():
        raise ConfigWriteError(f"{label}: json-five cannot reproduce this file byte for byte{refuse}")
    root = doc.root
    if not isinstance(root, JSONObject):
        raise ConfigWriteError(f"{label}: the top level is not an object{refuse}")

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    sp = _Splicer(doc)
    u = sp.unit
    nl = sp.nl

    def entries_block(indent: str) -> str:
        inner = indent + u
        return "[" + nl + inner + ("," + nl + inner).join(dumps(i) for i in items) + nl + indent + "]"

    skills = member(root, "skills")
    if skills is None:
        def render_root(indent: str, inline: bool) -> list[str]:
            if inline:
                return ['"skills": ' + dumps({"config": list(items)})]
            return ['"skills": {' + nl + indent + u + '"config": ' + entries_block(indent + u)
                    + nl + indent + "}"]
        sp.add_items(root, root.keys, render_root)
    elif not isinstance(skills, JSONObject):
        raise ConfigWriteError(f"{label}: `skills` is not an object{refuse}")
    else:
        config = member(skills, "config")
        if config is None:
            def render_skills(indent: str, inline: bool) -> list[str]:
                if inline:
                    return ['"config": ' + dumps(list(items))]
                return ['"config": ' + entries_block(indent)]
            sp.add_items(skills, skills.keys, render_skills)
        elif not isinstance(config, JSONArray):
            raise ConfigWriteError(f"{label}: `skills.config` is not an array{refuse}")
        else:
            sp.add_items(config, config.values, lambda indent, inline: [dumps(i) for i in items])
    new = bom + sp.result()
    _verify_splice(old, new, items, label)
    return new


def _verify_splice(old: Any, new_text: str, items: Sequence[Any], label: str) -> None:
    try:
        new = parse_jsonc(new_text, label)
    except ConfigSyntaxError as exc:  # pragma: no cover - would be a bug in the splicer
        raise ConfigWriteError(f"internal error: the rewritten {label} does not parse ({exc})") from None
    expected = json.loads(json.dumps(old))
    skills = expected.setdefault("skills", {})
    skills["config"] = list(skills.get("config", [])) + list(items)
    if new != expected:  # pragma: no cover - would be a bug in the splicer
        raise ConfigWriteError(f"internal error: rewriting {label} would change more than "
                               "skills.config; nothing written")


# --------------------------------------------------------------------------------------------
# Writing


def _atomic_write(path: str, data: bytes, *, mode: int | None) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory, ``fsync`` and
    ``os.replace``; the temporary file is removed on any failure (then the error propagates)."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
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


def apply_plan(plan: WritePlan) -> WriteResult:
    """Write ``plan`` atomically (SPEC K5) and return what is needed to :func:`undo` it.

    Refuses with :class:`ConfigWriteError` when the file no longer holds ``plan.before`` (edited,
    created or deleted since planning). An existing file's previous bytes go to ``<file>.bak``
    first (atomically too); missing parent directories are created. A plan without changes
    writes nothing (``written`` False). A failure while writing leaves the original file intact
    and no temporary file behind (raised as :class:`ConfigWriteError`).
    """
    real = os.path.realpath(plan.target)
    previous = _read_bytes(real)
    now = None if previous is None else previous.decode("utf-8", "surrogateescape")
    if now != plan.before:
        state = "was deleted" if now is None else ("was created" if plan.before is None else "changed")
        raise ConfigWriteError(f"{plan.target} {state} on disk since the plan was made; "
                               "nothing written — plan again")
    after = plan.after.encode("utf-8")
    if not plan.changes:
        return WriteResult(plan.target, real, None, previous, after, False, False)
    created_dirs: list[str] = []
    directory = os.path.dirname(real)
    probe = directory
    while probe and not os.path.isdir(probe):
        created_dirs.append(probe)
        probe = os.path.dirname(probe)
    try:
        os.makedirs(directory, exist_ok=True)
        backup = None
        backup_previous = None
        mode = None
        if previous is not None:
            mode = os.stat(real).st_mode & 0o7777
            backup = real + ".bak"
            backup_previous = _read_bytes(backup)
            _atomic_write(backup, previous, mode=mode)
        _atomic_write(real, after, mode=mode)
    except OSError as exc:
        raise ConfigWriteError(f"cannot write {plan.target}: {exc.strerror or exc}; the file is "
                               "unchanged") from exc
    return WriteResult(plan.target, real, backup, previous, after, previous is None, True,
                       tuple(reversed(created_dirs)), backup_previous)


def undo(result: WriteResult) -> None:
    """Undo :func:`apply_plan`: restore the previous bytes exactly (atomically) and the ``.bak`` as
    it was before the write, or delete the file it created (and the directories it made, when
    empty). Refuses with :class:`ConfigWriteError`
    when the file no longer holds what was written (a later edit is never clobbered)."""
    if not result.written:
        return
    now = _read_bytes(result.path)
    if now != result.after:
        raise ConfigWriteError(f"{result.target} changed since skillshelf wrote it; not undone "
                               f"(the previous version is in {result.backup or 'no backup'})")
    try:
        if result.previous is None:
            os.unlink(result.path)
            for directory in reversed(result.created_dirs):
                try:
                    os.rmdir(directory)
                except OSError:
                    break
        else:
            mode = os.stat(result.path).st_mode & 0o7777
            _atomic_write(result.path, result.previous, mode=mode)
            if result.backup is not None and _read_bytes(result.backup) == result.previous:
                # the .bak this write made: put it back as it was (absent, or its old bytes)
                if result.backup_previous is None:
                    os.unlink(result.backup)
                else:
                    _atomic_write(result.backup, result.backup_previous, mode=mode)
    except OSError as exc:
        raise ConfigWriteError(f"cannot undo the change to {result.target}: {exc.strerror or exc}") from exc


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
        ok = {
            Choice.KEEP: source.enabled,
            Choice.DISABLE: not source.enabled,
            Choice.SEARCH: source.enabled and source.exposure is Exposure.SEARCH,
            Choice.EXPLICIT: source.enabled and source.exposure is Exposure.EXPLICIT,
        }[choice]
        if not ok:
            state = "disabled" if not source.enabled else f"enabled, exposure {source.exposure.value}"
            problems.append(f"{locator} should be `{choice.value}` but is {state}")
    return problems
