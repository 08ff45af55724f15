"""Zuno configuration: ``zuno.json[c]`` layers, merge, the keys skillshelf reads, and
``skills.config`` rule matching (SPEC K1–K4; conformance §0.3 "skills.config rules", Z070, Z156).

Layers, lowest precedence first, in the order Zuno's code and its own discovery test use
(conformance Z-K, which replaces SPEC K1's table) — :func:`config_files` lists them: global
``$XDG_CONFIG_HOME/zuno/zuno.json[c]``, ``$ZUNO_CONFIG`` (below every project layer), bare
``zuno.json[c]`` from the worktree down to the working directory, ``.zuno/zuno.json[c]`` nearest
first, ``$HOME/.zuno``, ``$ZUNO_CONFIG_DIR``, ``$ZUNO_CONFIG_CONTENT``, the managed folder, macOS
managed preferences, then skillshelf's own ``--config`` files. In every folder ``.json`` comes
before ``.jsonc`` (both are layers; ``.jsonc`` wins).

Empty environment values count as unset. Merging: objects merge recursively, arrays and scalars
replace (:func:`deep_merge`).

Syntax. Every layer, ``.json`` or ``.jsonc``, is read as JSONC (:mod:`skillshelf.core.jsonc`) —
JSON plus ``//`` and ``/* */`` comments and trailing commas — which is what Zuno accepts. A
layer that is not strict JSONC but is valid JSON5 (single quotes, unquoted keys, hex numbers …)
is still applied, leniently, with warning ``config-nonstandard`` saying where Zuno would fail. Anything else is error
``config-invalid`` (message ``<file>:<line>:<column>: <reason>``, with ``path``/``line``/``column``
set) and that layer is skipped; the other layers still apply. A UTF-8 BOM is tolerated the
same way (``config-nonstandard``). Zuno itself stops at the first layer it cannot read, parse
or validate: :attr:`Config.refusals` lists every such reason in layer order and
:attr:`Config.refusal` is the one Zuno stops with (``Zuno would refuse to start: FILE:LINE:COL:
reason``) — skillshelf keeps browsing.

Keys read (SPEC K2; others are kept in :attr:`Config.merged` but ignored): ``skills.paths``,
``skills.urls`` (lists of strings), ``skills.config`` (list of rule objects),
``skills.includeInstructions`` (bool, default true), ``skills.maxContextTokens`` and
``skills.maxSelectedContextTokens`` (non-negative integers, tokens), ``agents.<name>.requiredSkills``
/ ``.tools`` (lists of strings), ``model`` (``provider/model``); Zuno has no ``profile`` key (the
agent's name is its profile): one is warning ``config-ignored``. A value of the wrong type gives error
``config-invalid`` naming the file that set it, the dotted field (``skills.paths[2]``), line and
column, and is treated as absent (a bad list item is dropped, the rest kept; a bad
``skills.config`` entry is dropped but the others keep their written index).

Rules (SPEC K3–K4) are resolved when :func:`load_config` runs: a rule ``path`` expands like
``skills.paths`` (leading ``~/`` → home, relative → joined to the working directory, never the
worktree or the config file's directory), then is canonicalised with :func:`os.path.realpath`
when it exists, else normalised lexically (so a rule for a skill that does not exist yet still
matches when it appears at exactly that path, Z156). Call :func:`load_config` again on refresh so
a target created since is canonicalised.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from skillshelf.core import jsonc
from skillshelf.core.fileread import read_regular
from skillshelf.core.jsonc import JsoncError
from skillshelf.core.model import CatalogWarning, Diagnostic, Exposure, Severity
from skillshelf.core.paths import project_walk

log = logging.getLogger(__name__)

#: Config file stem at every layer (Zuno ``CONFIG_FILE_STEM``).
CONFIG_STEM = "zuno"
#: Per-project configuration directory.
PROJECT_DIR = ".zuno"
#: Path recorded for the inline ``$ZUNO_CONFIG_CONTENT`` layer.
CONTENT_LAYER = "$ZUNO_CONFIG_CONTENT"
#: Path recorded for the macOS managed-preferences layer (domain ``ai.zuno.managed``).
MANAGED_PREFERENCES = "mobileconfig:ai.zuno.managed"

_EXPOSURES = {"index": Exposure.INDEX, "search": Exposure.SEARCH, "explicit": Exposure.EXPLICIT}


# --------------------------------------------------------------------------------------------
# Types


class ConfigSyntaxError(ValueError):
    """A config text that cannot be parsed.

    ``path`` is the file (or ``"$ZUNO_CONFIG_CONTENT"``); ``line`` and ``column`` are 1-based
    (column counts characters); ``message`` is the reason without the location.
    ``str(exc)`` is ``"<path>:<line>:<column>: <message>"``.
    """

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        super().__init__(f"{path}:{line}:{column}: {message}")


@dataclass(frozen=True)
class ConfigLayer:
    """One configuration source (SPEC K1).

    ``path`` is the file path, or ``"$ZUNO_CONFIG_CONTENT"``; ``kind`` one of ``global``,
    ``project``, ``project-zuno``, ``env-file``, ``env-dir``, ``env-content``, ``cli``. ``data`` is
    the parsed top-level object, or ``None`` when the layer was skipped (then ``error`` says why).
    ``text`` is the raw text as read (for locating values and for K5 rewriting), ``None`` when
    the file could not be read.
    """

    path: str
    kind: str
    data: Mapping[str, Any] | None
    error: Diagnostic | None = None
    text: str | None = field(default=None, repr=False, compare=False)
    note: str = ""


@dataclass(frozen=True)
class AgentConfig:
    """``agents.<name>`` (SPEC K2 as corrected by conformance Z-A: there is no ``profile`` key,
    the agent's name is its profile).

    ``required_skills``: names the agent always loads (empty: not configured). ``tools``: the
    agent's explicit tool list, ``None`` when not configured (no restriction).
    """

    name: str
    required_skills: tuple[str, ...] = ()
    tools: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ConfigRefusal:
    """Why Zuno itself would not start with this configuration (conformance Z-K): the first
    layer, in Zuno's order, that cannot be read, parsed or validated. ``path`` the layer,
    ``line``/``column`` 1-based (``None`` when unknown), ``reason`` in Zuno's terms where they
    are known (serde's wording for schema errors)."""

    path: str
    line: int | None
    column: int | None
    reason: str
    field: str | None = None

    @property
    def location(self) -> str:
        """``FILE:LINE:COL`` (``FILE`` alone without a position)."""
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}:{self.column or 1}"

    @property
    def message(self) -> str:
        """``Zuno would refuse to start: FILE:LINE:COL: reason``."""
        return f"Zuno would refuse to start: {self.location}: {self.reason}"

    @property
    def diagnostic_text(self) -> str:
        """``FILE:LINE:COL: reason`` — what a config diagnostic saying the same thing reads."""
        return f"{self.location}: {self.reason}"

    def diagnostic(self) -> Diagnostic:
        """This refusal as an error diagnostic (code ``zuno-refuses``)."""
        return Diagnostic(Severity.ERROR, "zuno-refuses", self.message, field=self.field, line=self.line,
                          column=self.column, path=self.path)


@dataclass(frozen=True)
class RuleEntry:
    """One resolved ``skills.config`` entry (SPEC K3).

    ``index`` is the 0-based position in the merged array (invalid entries keep their slot).
    ``path`` is the expanded target, canonical when it existed at load time, else lexically
    normalised; ``raw_path`` as written. ``enabled`` defaults to True; ``exposure`` ``None`` means
    "no override". ``targets_file``: the rule names one ``SKILL.md`` (an existing file, or a last
    component equal to ``SKILL.md`` in any case). ``origin`` is the layer path the array came from.
    """

    index: int
    path: str
    raw_path: str
    enabled: bool = True
    exposure: Exposure | None = None
    recursive: bool = False
    targets_file: bool = False
    origin: str = ""

    def describe(self) -> str:
        """``"skills.config entry 3 in /p/.zuno/zuno.json"`` (1-based), for the browser's "why"."""
        return f"skills.config entry {self.index + 1} in {self.origin}"

    @property
    def watch_target(self) -> str:
        """The directory a watcher must follow for this rule: the parent of a file target, else
        the target itself. Never widened to an existing ancestor (Z156)."""
        return os.path.dirname(self.path) if self.targets_file else self.path

    def matches(self, canonical_skill_md: str) -> bool:
        """Whether this rule applies to the ``SKILL.md`` at ``canonical_skill_md`` (SPEC K3).

        The argument must be the canonical (symlink-resolved) absolute path; it is normalised
        lexically here, never resolved. File target → equal paths. Directory target:
        non-recursive → the file's parent *is* the target; recursive → the file is at or below
        the target, compared component-wise (``/a/b`` does not cover ``/a/bc``).
        """
        return self._matches_normal(os.path.normpath(canonical_skill_md))

    def _matches_normal(self, skill: str) -> bool:
        """:meth:`matches` for an already normalised path (the catalog's hot loop)."""
        if self.targets_file:
            return skill == self.path
        if self.recursive:
            return _within(skill, self.path)
        return os.path.dirname(skill) == self.path


@dataclass(frozen=True)
class RuleDecision:
    """The K4 outcome for one source: ``rule`` is the last matching entry (``None`` = no rule
    matched, then ``enabled`` is True and ``exposure`` None)."""

    enabled: bool = True
    exposure: Exposure | None = None
    rule: RuleEntry | None = None


#: The decision when no rule matches (immutable: one for every source).
_NO_RULE = RuleDecision()


@dataclass(frozen=True)
class Config:
    """The merged configuration (SPEC K1–K4).

    ``layers`` in precedence order (lowest first), including skipped ones; ``merged`` the deep
    merge of every applied layer, read-only (objects as mappings, arrays as tuples), every key
    kept even those skillshelf ignores. ``paths``/``urls`` are ``skills.paths`` /
    ``skills.urls`` as written (expansion is discovery's job, SPEC D3). ``max_context_tokens`` and
    ``max_selected_context_tokens`` are token counts or ``None``. ``diagnostics`` holds every
    finding (syntax, types, missing files), in layer order then key order.
    """

    layers: tuple[ConfigLayer, ...] = ()
    merged: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    paths: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    rules: tuple[RuleEntry, ...] = ()
    include_instructions: bool = True
    max_context_tokens: int | None = None
    max_selected_context_tokens: int | None = None
    agents: Mapping[str, AgentConfig] = field(default_factory=lambda: MappingProxyType({}))
    diagnostics: tuple[Diagnostic, ...] = ()
    refusals: tuple[ConfigRefusal, ...] = ()
    model: str | None = None

    @property
    def refusal(self) -> ConfigRefusal | None:
        """What Zuno stops with: the first of :attr:`refusals` (``None``: Zuno would start)."""
        return self.refusals[0] if self.refusals else None

    def decide(self, canonical_skill_md: str) -> RuleDecision:
        """Apply ``skills.config`` to one source (SPEC K4): every entry is tested in order and the
        last matching one wins *as a whole* — its omitted ``enabled`` means True even when an
        earlier match said False, its omitted ``exposure`` means no override.

        ``canonical_skill_md`` is the canonical path of the ``SKILL.md`` (see
        :meth:`RuleEntry.matches`). Pure: never touches the file system.
        """
        if not self.rules:
            return _NO_RULE
        skill = _normpath(canonical_skill_md)
        by_file, by_dir, recursive = self._rule_index
        winner: RuleEntry | None = None
        for group in (by_file.get(skill, ()) if by_file else (),
                      by_dir.get(os.path.dirname(skill), ()) if by_dir else ()):
            for rule in group:
                if winner is None or rule.index > winner.index:
                    winner = rule
        for rule, path, prefix in recursive:  # (_within spelled out: 10,000 sources)
            if (winner is None or rule.index > winner.index) and (skill == path or skill.startswith(prefix)):
                winner = rule
        if winner is None:
            return _NO_RULE
        return RuleDecision(enabled=winner.enabled, exposure=winner.exposure, rule=winner)

    @functools.cached_property
    def _rule_index(self) -> tuple[dict[str, list[RuleEntry]], dict[str, list[RuleEntry]],
                                   list[tuple[RuleEntry, str, str]]]:
        """Rules bucketed for :meth:`decide` (file targets by path, non-recursive directory
        targets by path, recursive ones in order with their path and its prefix — what
        :func:`_within` tests): same outcome as testing every rule in order, without scanning all
        rules for each of 10,000 sources."""
        by_file: dict[str, list[RuleEntry]] = {}
        by_dir: dict[str, list[RuleEntry]] = {}
        recursive: list[tuple[RuleEntry, str, str]] = []
        for rule in self.rules:
            if rule.targets_file:
                by_file.setdefault(rule.path, []).append(rule)
            elif rule.recursive:
                path = rule.path
                recursive.append((rule, path, path if path.endswith(os.sep) else path + os.sep))
            else:
                by_dir.setdefault(rule.path, []).append(rule)
        return by_file, by_dir, recursive

    def warnings(self) -> tuple[CatalogWarning, ...]:
        """Error/warning diagnostics as catalog warnings (``kind`` = the diagnostic code,
        ``source`` = the layer path, ``message`` = the diagnostic message)."""
        return tuple(CatalogWarning(d.code, d.path or "", d.message) for d in self.diagnostics
                     if d.severity is not Severity.INFO)


# --------------------------------------------------------------------------------------------
# Paths and walks


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true")


def _normpath(path: str) -> str:
    """``os.path.normpath(path)``, returned as is without its cost when it is an absolute POSIX
    path that is normal already (no empty, ``.`` or ``..`` component): the canonical paths of
    10,000 sources."""
    if (os.sep == "/" and path[:1] == "/" and path[1:2] != "/" and "//" not in path and "/./" not in path
            and "/../" not in path and not path.endswith(("/", "/.", "/.."))):
        return path
    return os.path.normpath(path)


def _within(candidate: str, root: str) -> bool:
    """Component-wise "candidate is root or below it" on normalised absolute paths."""
    if candidate == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return candidate.startswith(prefix)


def _walk_down(cwd: str, worktree: str | None) -> list[str]:
    """Directories from the worktree root (or ``/`` without one) down to ``cwd``, inclusive:
    :func:`skillshelf.core.paths.project_walk` reversed (the same stop rule as discovery, SPEC K1)."""
    return list(reversed(project_walk(cwd, worktree)))


def _pair(directory: str) -> list[str]:
    return [os.path.join(directory, f"{CONFIG_STEM}.json"),
            os.path.join(directory, f"{CONFIG_STEM}.jsonc")]


def _managed_dir(env: Mapping[str, str], platform: str) -> str:
    """Zuno's managed configuration directory: ``$ZUNO_TEST_MANAGED_CONFIG_DIR`` when set, else
    ``/Library/Application Support/zuno`` (macOS), ``%ProgramData%\\zuno`` (Windows), ``/etc/zuno``."""
    override = env.get("ZUNO_TEST_MANAGED_CONFIG_DIR")
    if override:
        return override
    if platform == "darwin":
        return "/Library/Application Support/zuno"
    if platform.startswith("win"):
        return os.path.join(env.get("ProgramData") or "C:\\ProgramData", "zuno")
    return "/etc/zuno"


def config_files(*, cwd: str, worktree: str | None, xdg_config_home: str,
                 env: Mapping[str, str], extra: Sequence[str] = (), home: str | None = None,
                 platform: str = sys.platform) -> list[tuple[str, str]]:
    """The configuration layers to read, as ``(path, kind)``, lowest precedence first, in the
    order Zuno's own discovery test fixes (conformance Z-K):

    1. ``$XDG_CONFIG_HOME/zuno/zuno.json`` then ``zuno.jsonc`` (``global``);
    2. ``$ZUNO_CONFIG`` (``env-file``; a relative value joins the working directory);
    3. bare ``zuno.json[c]`` in each directory from the worktree down to ``cwd`` (``project``);
    4. ``zuno.json[c]`` in each ``.zuno`` on the walk, **nearest first** (``project-zuno``);
    5. ``$HOME/.zuno/zuno.json[c]`` (``home-zuno``), unless that folder was already on the walk;
    6. ``$ZUNO_CONFIG_DIR/zuno.json[c]`` (``env-dir``; read again here even when it is the
       global folder, as Zuno does);
    7. ``$ZUNO_CONFIG_CONTENT`` (``env-content``);
    8. the managed folder (``managed``: ``/etc/zuno``, ``/Library/Application Support/zuno``,
       ``%ProgramData%\\zuno``);
    9. macOS managed preferences (``managed-preferences``): listed on macOS only;
    10. each ``--config FILE`` given to skillshelf (``cli``; skillshelf's own, highest).

    In every folder ``.json`` comes before ``.jsonc``. Steps 3–4 are skipped when
    ``ZUNO_DISABLE_PROJECT_CONFIG`` is ``1``/``true``. Files are listed only when something exists
    at the path, except ``$ZUNO_CONFIG`` and ``--config`` (so a missing one can be reported).
    Reads only ``env``, never ``os.environ``.
    """
    cwd = os.path.normpath(os.path.abspath(cwd))
    out: list[tuple[str, str]] = []

    def add_existing(paths: list[str], kind: str) -> None:
        # Anything at the path is listed (a directory or FIFO named zuno.json too), so that
        # reading it reports why it was skipped instead of dropping the layer silently.
        out.extend((p, kind) for p in paths if os.path.lexists(p))

    global_dir = os.path.join(xdg_config_home, CONFIG_STEM)
    add_existing(_pair(global_dir), "global")
    single = env.get("ZUNO_CONFIG") or ""
    if single:
        out.append((os.path.normpath(os.path.join(cwd, single)), "env-file"))
    project = not _flag(env.get("ZUNO_DISABLE_PROJECT_CONFIG"))
    walk = _walk_down(cwd, worktree)
    if project:
        for directory in walk:
            add_existing(_pair(directory), "project")
    # Zuno's ConfigPaths.directories: global, the .zuno folders nearest first, $HOME/.zuno,
    # $ZUNO_CONFIG_DIR; first occurrence wins; only .zuno folders and the override are read.
    directories: list[tuple[str, str]] = [(global_dir, "global")]
    if project:
        directories += [(os.path.join(d, PROJECT_DIR), "project-zuno") for d in reversed(walk)
                        if os.path.isdir(os.path.join(d, PROJECT_DIR))]
    if home:
        home_zuno = os.path.join(os.path.normpath(os.path.join(cwd, home)), PROJECT_DIR)
        if os.path.isdir(home_zuno):
            directories.append((home_zuno, "home-zuno"))
    config_dir = env.get("ZUNO_CONFIG_DIR") or ""
    if config_dir:
        directories.append((config_dir, "env-dir"))
    seen: set[str] = set()
    for directory, kind in directories:
        if directory in seen:
            continue
        seen.add(directory)
        if directory == config_dir:
            add_existing(_pair(directory), "env-dir")
        elif directory.endswith(PROJECT_DIR):
            add_existing(_pair(directory), kind)
    if env.get("ZUNO_CONFIG_CONTENT"):
        out.append((CONTENT_LAYER, "env-content"))
    managed = _managed_dir(env, platform)
    if os.path.isdir(managed):
        add_existing(_pair(managed), "managed")
    if platform == "darwin":
        out.append((MANAGED_PREFERENCES, "managed-preferences"))
    for path in extra:
        out.append((os.path.normpath(os.path.join(cwd, path)), "cli"))
    return out


# --------------------------------------------------------------------------------------------
# Parsing


def parse_jsonc(text: str, path: str, *, strict: bool = False) -> Any:
    """Parse one config text with :func:`skillshelf.core.jsonc.loads` (JSONC, JSON5 leniently).

    ``path`` only labels errors. Returns the parsed value (any JSON type). Raises
    :class:`ConfigSyntaxError` with the 1-based line/column of the error when the text is
    neither JSONC nor JSON5 (``strict``: JSONC only, a JSON5-only construct is an error too).
    A leading UTF-8 BOM is accepted. Use :func:`load_config` to learn whether the lenient path
    was needed.
    """
    body = text[1:] if text.startswith("\ufeff") else text
    try:
        parsed = jsonc.loads(body)
    except JsoncError as exc:
        raise ConfigSyntaxError(path, exc.line, exc.column, exc.message) from None
    odd = parsed.nonstandard
    if strict and odd is not None:
        raise ConfigSyntaxError(path, odd.line, odd.column, f"{odd.message} is not JSON with comments")
    return parsed.value


def deep_merge(base: Any, overlay: Any) -> Any:
    """Zuno's merge (SPEC K1): when both are objects, keys merge recursively (new keys appended
    in overlay order); otherwise — arrays, scalars, type changes — ``overlay`` replaces ``base``.
    Returns a new structure; inputs are not modified."""
    if isinstance(base, Mapping) and isinstance(overlay, Mapping):
        merged = dict(base.items())
        for key, value in overlay.items():
            merged[key] = deep_merge(merged[key], value) if key in merged else _copy(value)
        return merged
    return _copy(overlay)


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


# --------------------------------------------------------------------------------------------
# Loading


def _error(path: str, message: str, *, line: int | None = None, column: int | None = None,
           field_name: str | None = None, severity: Severity = Severity.ERROR,
           code: str = "config-invalid", hint: str | None = None) -> Diagnostic:
    where = path if line is None else f"{path}:{line}:{column or 1}"
    return Diagnostic(severity, code, f"{where}: {message}", field=field_name, line=line,
                      column=column, hint=hint, path=path)


def _read_layer(path: str, kind: str, env: Mapping[str, str]) -> tuple[ConfigLayer, list[Diagnostic]]:
    """Read and parse one layer; never raises."""
    notes: list[Diagnostic] = []
    if kind == "managed-preferences":
        return _managed_preferences(env), []
    if kind == "env-content":
        text = env.get("ZUNO_CONFIG_CONTENT", "")
    else:
        try:
            raw = read_regular(path)  # a FIFO or device layer is refused, never waited on
        except FileNotFoundError:
            if kind == "cli":
                diag = _error(path, "config file not found")
            elif kind != "env-file":  # found while walking, then gone: a dangling symlink
                diag = _error(path, "config file is a dangling symlink or vanished while reading; "
                              "the layer is skipped", severity=Severity.WARNING, code="config-not-found")
            else:
                diag = _error(path, "$ZUNO_CONFIG names a file that does not exist; Zuno ignores "
                              "it", severity=Severity.WARNING, code="config-not-found")
            return ConfigLayer(path, kind, None, diag), [diag]
        except OSError as exc:
            diag = _error(path, f"cannot read config file: {exc.strerror or exc}")
            return ConfigLayer(path, kind, None, diag), [diag]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            column = len(raw[: exc.start].rsplit(b"\n", 1)[-1].decode("utf-8", "replace")) + 1
            diag = _error(path, "config file is not valid UTF-8", line=line, column=column)
            return ConfigLayer(path, kind, None, diag), [diag]
    body = text
    if body.startswith("\ufeff"):
        body = body[1:]
        notes.append(_error(path, "starts with a UTF-8 byte-order mark, which Zuno's JSON "
                            "parser rejects", line=1, column=1, severity=Severity.WARNING,
                            code="config-nonstandard", hint="save the file without a BOM"))
    try:
        parsed = jsonc.loads(body)
    except JsoncError as exc:
        diag = _error(path, exc.message, line=exc.line, column=exc.column)
        return ConfigLayer(path, kind, None, diag, text), notes + [diag]
    data = parsed.value
    if parsed.nonstandard is not None:
        odd = parsed.nonstandard
        notes.append(_error(
            path, f"not JSON with comments ({odd.message}); read leniently as JSON5, but "
            "Zuno will refuse this file", line=odd.line, column=odd.column,
            severity=Severity.WARNING, code="config-nonstandard"))
    if not isinstance(data, dict):
        diag = _error(path, f"the top level must be an object, got {_type_name(data)}",
                      line=1, column=1)
        return ConfigLayer(path, kind, None, diag, text), notes + [diag]
    return ConfigLayer(path, kind, data, None, text), notes


#: Keys of a managed-preferences payload that are profile metadata, not configuration.
_PLIST_METADATA = frozenset({"PayloadDisplayName", "PayloadIdentifier", "PayloadType", "PayloadUUID",
                             "PayloadVersion", "_manualProfile"})


def _managed_preferences(env: Mapping[str, str]) -> ConfigLayer:
    """macOS managed preferences (``/Library/Managed Preferences[/<user>]/ai.zuno.managed.plist``)
    as a layer, the user's file first; ``data`` ``None`` with a note when there is none."""
    import plistlib  # (macOS only: not imported by every start)

    user = env.get("USER") or env.get("LOGNAME") or ""
    base = "/Library/Managed Preferences"
    for path in ([os.path.join(base, user, "ai.zuno.managed.plist")] if user else []) + [
            os.path.join(base, "ai.zuno.managed.plist")]:
        try:
            with open(path, "rb") as stream:
                payload = plistlib.load(stream)
        except FileNotFoundError:
            continue
        except (OSError, plistlib.InvalidFileException, ValueError) as exc:
            diag = _error(path, f"cannot read managed preferences: {exc}")
            return ConfigLayer(path, "managed-preferences", None, diag)
        if isinstance(payload, dict):
            data = {k: v for k, v in payload.items() if k not in _PLIST_METADATA}
            return ConfigLayer(path, "managed-preferences", data, None, json.dumps(data, default=str))
    return ConfigLayer(MANAGED_PREFERENCES, "managed-preferences", None,
                       note="no managed preferences (ai.zuno.managed) are installed")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


class _Locator:
    """Finds which applied layer set a merged value, and where in its text."""

    def __init__(self, layers: Sequence[ConfigLayer]) -> None:
        self._layers = [layer for layer in layers if layer.data is not None]
        self._models: dict[int, jsonc.Document | None] = {}

    def origin(self, keys: Sequence[str]) -> ConfigLayer | None:
        for layer in reversed(self._layers):
            node: Any = layer.data
            for key in keys:
                if not isinstance(node, Mapping) or key not in node:
                    break
                node = node[key]
            else:
                return layer
        return None

    def position(self, layer: ConfigLayer, steps: Sequence[str | int]) -> tuple[int | None, int | None]:
        if layer.text is None:
            return None, None
        key = id(layer)
        if key not in self._models:
            body = layer.text[1:] if layer.text.startswith("\ufeff") else layer.text
            try:
                self._models[key] = jsonc.parse_document(body)
            except JsoncError:  # the layer parsed once already; no position then
                self._models[key] = None
        doc = self._models[key]
        node = doc.find(steps) if doc is not None else None
        if doc is None or node is None:
            return None, None
        return doc.position(node) or (None, None)

    def serde_position(self, layer: ConfigLayer, steps: Sequence[str | int], *,
                       at_key: bool = False) -> tuple[int | None, int | None]:
        """Where serde_json reports an error about the value at ``steps`` (``at_key``: about its
        key, an unknown field): the 1-based line and the column, in bytes, of the last character
        it read — the end of that key or value."""
        self.position(layer, steps)  # parses and remembers the layer's model
        doc = self._models.get(id(layer))
        if doc is None or not steps:
            return None, None
        node: Any = doc.find(steps)
        if at_key and isinstance(steps[-1], str):
            parent = doc.find(steps[:-1])
            keys = [k for k in getattr(parent, "keys", ()) if jsonc.key_name(k) == steps[-1]]
            node = keys[-1] if keys else None
        if node is None:
            return None, None
        try:
            end = doc.end(node)
        except ValueError:
            return None, None
        start = doc.text.rfind("\n", 0, end) + 1
        return doc.text.count("\n", 0, end) + 1, len(doc.text[start:end].encode("utf-8", "surrogatepass"))


class _Validator:
    def __init__(self, locator: _Locator) -> None:
        self.locator = locator
        self.diagnostics: list[Diagnostic] = []

    def problem(self, keys: Sequence[str], steps: Sequence[str | int], dotted: str,
                message: str) -> None:
        layer = self.locator.origin(keys)
        path = layer.path if layer else "<merged config>"
        line, column = self.locator.position(layer, steps) if layer else (None, None)
        self.diagnostics.append(_error(path, f"`{dotted}` {message}", line=line, column=column,
                                       field_name=dotted))

    def string_list(self, value: Any, keys: Sequence[str], dotted: str) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not isinstance(value, list):
            self.problem(keys, keys, dotted, f"must be an array of strings, got {_type_name(value)}")
            return None
        out: list[str] = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            else:
                self.problem(keys, [*keys, i], f"{dotted}[{i}]",
                             f"must be a string, got {_type_name(item)}")
        return tuple(out)


def _expand(raw: str, *, cwd: str, home: str) -> str:
    """SPEC D3 expansion: leading ``~/`` → home; relative → joined to ``cwd``; normalised.

    Only ``~/`` is special, as in Zuno: a bare ``~`` or ``~user/x`` is a relative path.
    """
    path = os.path.join(home, raw[2:]) if raw.startswith("~/") else raw
    return os.path.normpath(os.path.join(cwd, path))


def resolve_rule(index: int, entry: Mapping[str, Any], *, cwd: str, home: str,
                 origin: str) -> RuleEntry:
    """Resolve one already type-checked ``skills.config`` entry into a :class:`RuleEntry`
    (SPEC K3). Touches the file system only to test existence and canonicalise."""
    raw_path = entry["path"]
    expanded = _expand(raw_path, cwd=cwd, home=home)
    targets_file = os.path.isfile(expanded) or os.path.basename(expanded).lower() == "skill.md"
    path = os.path.realpath(expanded) if os.path.exists(expanded) else expanded
    exposure = entry.get("exposure")
    return RuleEntry(
        index=index, path=path, raw_path=raw_path,
        enabled=entry.get("enabled") is not False,
        exposure=_EXPOSURES[exposure] if exposure is not None else None,
        recursive=entry.get("recursive") is True,
        targets_file=targets_file, origin=origin)


def load_config(*, cwd: str, worktree: str | None, home: str, xdg_config_home: str,
                env: Mapping[str, str], extra_files: Sequence[str] = (), platform: str = sys.platform) -> Config:
    """Read every layer (:func:`config_files`), merge them and extract the K2 keys and K3 rules.

    Inputs are explicit: ``cwd`` the working directory, ``worktree`` the nearest ancestor with
    ``.git`` or ``None``, ``home`` for ``~/`` in rule paths, ``xdg_config_home`` already defaulted
    by the caller (``~/.config``), ``env`` the environment snapshot, ``extra_files`` the
    ``--config`` files. Never raises for bad input: see the module docstring for every diagnostic.
    """
    cwd = os.path.normpath(os.path.abspath(cwd))
    layers: list[ConfigLayer] = []
    diagnostics: list[Diagnostic] = []
    merged: dict[str, Any] = {}
    for path, kind in config_files(cwd=cwd, worktree=worktree, xdg_config_home=xdg_config_home,
                                   env=env, extra=extra_files, home=home, platform=platform):
        layer, notes = _read_layer(path, kind, env)
        layers.append(layer)
        diagnostics.extend(notes)
        for note in notes:
            if layer.data is None:
                log.warning("configuration layer skipped: %s", note.message)
            else:
                log.info("configuration layer read leniently: %s", note.message)
        if layer.data is not None:
            merged = deep_merge(merged, layer.data)

    check = _Validator(_Locator(layers))
    skills = merged.get("skills")
    if skills is not None and not isinstance(skills, dict):
        check.problem(["skills"], ["skills"], "skills", f"must be an object, got {_type_name(skills)}")
        skills = None
    skills = skills or {}

    paths = check.string_list(skills.get("paths"), ["skills", "paths"], "skills.paths") or ()
    urls = check.string_list(skills.get("urls"), ["skills", "urls"], "skills.urls") or ()

    include = skills.get("includeInstructions")
    if include is not None and not isinstance(include, bool):
        check.problem(["skills", "includeInstructions"], ["skills", "includeInstructions"],
                      "skills.includeInstructions", f"must be a boolean, got {_type_name(include)}")
        include = None

    def tokens(key: str) -> int | None:
        value = skills.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            check.problem(["skills", key], ["skills", key], f"skills.{key}",
                          f"must be a non-negative integer (tokens), got {json.dumps(value)}")
            return None
        return value

    max_context = tokens("maxContextTokens")
    max_selected = tokens("maxSelectedContextTokens")

    rules: list[RuleEntry] = []
    raw_rules = skills.get("config")
    if raw_rules is not None and not isinstance(raw_rules, list):
        check.problem(["skills", "config"], ["skills", "config"], "skills.config",
                      f"must be an array of objects, got {_type_name(raw_rules)}")
        raw_rules = None
    if raw_rules:
        origin_layer = check.locator.origin(["skills", "config"])
        origin = origin_layer.path if origin_layer else "<merged config>"
        for i, entry in enumerate(raw_rules):
            if _valid_rule(check, i, entry):
                rules.append(resolve_rule(i, entry, cwd=cwd, home=home, origin=origin))

    agents: dict[str, AgentConfig] = {}
    raw_agents = merged.get("agents")
    if raw_agents is not None and not isinstance(raw_agents, dict):
        check.problem(["agents"], ["agents"], "agents", f"must be an object, got {_type_name(raw_agents)}")
        raw_agents = None
    for name, spec in (raw_agents or {}).items():
        keys = ["agents", name]
        if not isinstance(spec, dict):
            check.problem(keys, keys, f"agents.{name}", f"must be an object, got {_type_name(spec)}")
            continue
        required = check.string_list(spec.get("requiredSkills"), [*keys, "requiredSkills"],
                                     f"agents.{name}.requiredSkills") or ()
        tools = check.string_list(spec.get("tools"), [*keys, "tools"], f"agents.{name}.tools")
        if "profile" in spec:  # Zuno sweeps unknown agent keys into `options`: no effect at all
            owner = check.locator.origin([*keys, "profile"])
            line, column = check.locator.position(owner, [*keys, "profile"]) if owner else (None, None)
            check.diagnostics.append(_error(
                owner.path if owner else "<merged config>",
                f"`agents.{name}.profile` has no effect: Zuno has no `profile` key; the agent's name "
                f"({name}) is its profile", line=line, column=column, field_name=f"agents.{name}.profile",
                severity=Severity.WARNING, code="config-ignored"))
        agents[name] = AgentConfig(name=name, required_skills=required, tools=tools)

    model = merged.get("model") if isinstance(merged.get("model"), str) else None
    refusals = _zuno_findings(layers, check.locator, diagnostics)
    return Config(
        layers=tuple(layers), merged=_freeze(merged), paths=tuple(paths), urls=tuple(urls),
        rules=tuple(rules), include_instructions=include if include is not None else True,
        max_context_tokens=max_context, max_selected_context_tokens=max_selected,
        agents=MappingProxyType(agents), diagnostics=tuple(diagnostics + check.diagnostics),
        refusals=tuple(refusals), model=model)


# --------------------------------------------------------------------------------------------
# What Zuno itself refuses (conformance Z-K)

#: ``skills`` fields, and a ``skills.config`` entry's, in Zuno's declaration order (serde lists
#: them this way in its "unknown field" error).
SKILLS_FIELDS = ("paths", "urls", "includeInstructions", "maxContextTokens", "maxSelectedContextTokens", "config")
RULE_FIELDS = ("path", "enabled", "exposure", "recursive")


def _expected(value: Any, what: str) -> str:
    # serde's words for the value (imported here: its Unicode tables cost every start ~20 ms)
    from skillshelf.core.serdejson import unexpected

    return f"invalid type: {unexpected(value)}, expected {what}"


def _unknown(key: str, fields: Sequence[str]) -> str:
    return f"unknown field `{key}`, expected one of {', '.join(f'`{f}`' for f in fields)}"


def _zuno_layer_problems(data: Mapping[str, Any]) -> list[tuple[list[str | int], str, bool]]:
    """Schema problems Zuno reports for one layer's ``skills`` and ``agents`` sections, as
    ``(steps to the offending value, reason, about its key)`` in document order (an unknown
    field is reported at its key, as serde does)."""
    out: list[tuple[list[str | int], str, bool]] = []
    skills = data.get("skills")
    if skills is not None and not isinstance(skills, Mapping):
        out.append((["skills"], _expected(skills, "struct SkillsConfig"), False))
    elif isinstance(skills, Mapping):
        for key, value in skills.items():
            at: list[str | int] = ["skills", key]
            if key not in SKILLS_FIELDS:
                out.append((at, _unknown(key, SKILLS_FIELDS), True))
            elif value is None:
                continue
            elif key in ("paths", "urls"):
                if not isinstance(value, list):
                    out.append((at, _expected(value, "a sequence"), False))
                else:
                    out += [([*at, i], _expected(v, "a string"), False)
                            for i, v in enumerate(value) if not isinstance(v, str)]
            elif key == "includeInstructions" and not isinstance(value, bool):
                out.append((at, _expected(value, "a boolean"), False))
            elif key in ("maxContextTokens", "maxSelectedContextTokens"):
                if isinstance(value, bool) or not isinstance(value, int):
                    out.append((at, _expected(value, "a nonzero u32"), False))
                elif not 0 < value <= 0xFFFFFFFF:
                    out.append((at, f"invalid value: integer `{value}`, expected a nonzero u32", False))
            elif key == "config":
                out += _zuno_rule_problems(value)
    agents = data.get("agents")
    if isinstance(agents, Mapping):
        for name, spec in agents.items():
            if not isinstance(spec, Mapping):
                continue
            for key, what in (("requiredSkills", "Skill"), ("tools", "tool")):
                if spec.get(key) == []:
                    # skillshelf's words: Zuno's schema refuses an empty list here
                    out.append((["agents", name, key], f"`agents.{name}.{key}` must name at least one {what}",
                                False))
    return out


def _zuno_rule_problems(value: Any) -> list[tuple[list[str | int], str, bool]]:
    out: list[tuple[list[str | int], str, bool]] = []
    if not isinstance(value, list):
        return [(["skills", "config"], _expected(value, "a sequence"), False)]
    for i, entry in enumerate(value):
        at: list[str | int] = ["skills", "config", i]
        if not isinstance(entry, Mapping):
            out.append((at, _expected(entry, "struct SkillPathConfig"), False))
            continue
        for key, item in entry.items():
            where: list[str | int] = [*at, key]
            if key not in RULE_FIELDS:
                out.append((where, _unknown(key, RULE_FIELDS), True))
            elif key == "path" and not isinstance(item, str):
                out.append((where, _expected(item, "a string"), False))
            elif key in ("enabled", "recursive") and item is not None and not isinstance(item, bool):
                out.append((where, _expected(item, "a boolean"), False))
            elif key == "exposure" and item is not None:
                if not isinstance(item, str):
                    out.append((where, _expected(item, "enum SkillCatalogExposure"), False))
                elif item not in _EXPOSURES:
                    out.append((where, f"unknown variant `{item}`, expected one of `index`, `search`, `explicit`",
                                False))
        if "path" not in entry:
            out.append((at, "missing field `path`", False))
    return out


def _reason(diag: Diagnostic) -> str:
    """A config diagnostic's message without its ``path:line:col:`` prefix."""
    prefix = f"{diag.path}:{diag.line}:{diag.column or 1}: " if diag.line is not None else f"{diag.path}: "
    return diag.message[len(prefix):] if diag.message.startswith(prefix) else diag.message


def _zuno_findings(layers: Sequence[ConfigLayer], locator: _Locator,
                   notes: Sequence[Diagnostic]) -> list[ConfigRefusal]:
    """Every reason Zuno would refuse a layer, in Zuno's layer order: the first is what it stops
    with. Unreadable and unparsable layers count; a missing ``$ZUNO_CONFIG`` does not (Zuno
    skips a file that does not exist), nor a vanished walked file."""
    out: list[ConfigRefusal] = []

    def add(path: str, line: int | None, column: int | None, reason: str, field_name: str | None = None) -> None:
        out.append(ConfigRefusal(path, line, column, reason, field_name))

    for layer in layers:
        error = layer.error
        if error is not None and error.code == "config-invalid" and not (
                layer.kind == "cli" and error.message.endswith("config file not found")):
            add(layer.path, error.line, error.column, _reason(error))
            continue
        if layer.data is None:
            continue
        odd = next((n for n in notes if n.code == "config-nonstandard" and n.path == layer.path), None)
        if odd is not None:
            add(layer.path, odd.line, odd.column, _reason(odd))
            continue
        for steps, reason, at_key in _zuno_layer_problems(layer.data):
            line, column = locator.serde_position(layer, steps, at_key=at_key)
            add(layer.path, line, column, reason, ".".join(str(s) for s in steps))
    return out


def _valid_rule(check: _Validator, i: int, entry: Any) -> bool:
    """Type-check one ``skills.config`` entry, reporting every problem; True when usable."""
    keys = ["skills", "config"]
    dotted = f"skills.config[{i}]"
    if not isinstance(entry, dict):
        check.problem(keys, [*keys, i], dotted, f"must be an object, got {_type_name(entry)}")
        return False
    ok = True
    raw_path = entry.get("path")
    if not isinstance(raw_path, str) or not raw_path.strip():
        got = "missing" if raw_path is None else f"got {json.dumps(raw_path)}"
        check.problem(keys, [*keys, i, "path"] if raw_path is not None else [*keys, i],
                      f"{dotted}.path", f"must be a non-empty string ({got})")
        ok = False
    for name in ("enabled", "recursive"):
        value = entry.get(name)
        if value is not None and not isinstance(value, bool):
            check.problem(keys, [*keys, i, name], f"{dotted}.{name}",
                          f"must be a boolean, got {_type_name(value)}")
            ok = False
    exposure = entry.get("exposure")
    if exposure is not None and exposure not in _EXPOSURES:
        check.problem(keys, [*keys, i, "exposure"], f"{dotted}.exposure",
                      f"must be one of `index`, `search`, or `explicit`, got {json.dumps(exposure)}")
        ok = False
    return ok
