"""Where Claude Code 2.1.332 looks for skills, and the settings that change what it lists.

Roots, in precedence order (the first copy of a key wins):

1. managed ``/etc/claude-code/.claude/skills`` (off with ``CLAUDE_CODE_DISABLE_POLICY_SKILLS``);
2. user ``<config>/skills``, ``<config>`` = ``$CLAUDE_CONFIG_DIR`` when non-empty (a relative
   value is read from the working directory, ``~`` is not expanded), else ``~/.claude``;
3. project ``.claude/skills`` of the working directory (its real path), then of each parent:
   the walk stops *before* ``$HOME`` (compared as given, not resolved) and *after* the git root
   (the nearest folder holding a ``.git`` directory or file; a symlink counts when it leads to
   one); it ends at ``/``;
4. each ``--add-dir`` folder's ``.claude/skills`` (skillshelf's ``--path``);
5. legacy commands: ``.claude/commands/**/*.md`` in the managed folder, ``<config>/commands``
   and every project walk folder.

Settings (``<config>/settings.json`` < ``<cwd>/.claude/settings.json`` <
``<cwd>/.claude/settings.local.json``): ``model``, ``skillListingBudgetFraction``,
``skillListingMaxDescChars``, ``skillOverrides`` (merged per skill key).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import CatalogWarning, Provenance, Root
from skillshelf.core.paths import Environment

__all__ = [
    "DEFAULT_MODEL",
    "MANAGED_DIR",
    "ClaudeRoot",
    "ClaudeSettings",
    "ModelInfo",
    "budget_from",
    "claude_roots",
    "config_dir",
    "git_root",
    "project_folders",
    "read_settings",
    "resolve_model",
    "usage_scores",
]

#: The managed (policy) folder on Linux.
MANAGED_DIR = "/etc/claude-code"
#: The model a fresh configuration runs.
DEFAULT_MODEL = "claude-opus-5-5"
#: Context window (tokens) when the model's is not known.
UNKNOWN_WINDOW = 200_000
#: Models counting 4 bytes per token; every other model counts 3.
_FOUR_BYTES = frozenset({
    "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku",
    "claude-3-7-sonnet", "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6",
    "claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5",
})
#: Models with a 200,000-token window; every other id (the default included) has 1,000,000.
_WINDOW_200K = frozenset({
    "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-5", "claude-haiku-4-5",
    "claude-3-5-haiku", "claude-3-5-sonnet", "claude-3-7-sonnet", "claude-3-opus", "claude-3-haiku",
    "claude-3-sonnet", "claude-opus-4-0", "claude-opus-4-1", "claude-sonnet-4-0",
})
_ALIASES = {"opus": "claude-opus-5-5", "sonnet": "claude-sonnet-5-5", "haiku": "claude-haiku-5-5",
            "opus[1m]": "claude-opus-5-5", "sonnet[1m]": "claude-sonnet-5-5"}
OVERRIDE_VALUES = ("on", "name-only", "user-invocable-only", "off")


@dataclass(frozen=True)
class ClaudeRoot:
    """One root: the skillshelf :class:`Root`, the client's source label (``managed``, ``user``,
    ``project``) and whether it holds legacy commands rather than skill folders."""

    root: Root
    source: str
    commands: bool = False


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def config_dir(cwd: str, env: Environment) -> tuple[str, bool]:
    """``<config>`` (absolute) and whether ``CLAUDE_CONFIG_DIR`` set it."""
    raw = env.get("CLAUDE_CONFIG_DIR") or ""
    if raw:
        return os.path.normpath(os.path.join(cwd, raw)), True
    return os.path.join(os.path.normpath(os.path.abspath(env.home)), ".claude"), False


def git_root(start: str) -> str | None:
    """The nearest folder from ``start`` up holding ``.git`` (a directory or a regular file; a
    symlink that leads to either), found with ``lstat`` only."""
    here = start
    while True:
        g = os.path.join(here, ".git")
        try:
            st = os.lstat(g)
            if stat.S_ISLNK(st.st_mode):
                try:
                    t = os.stat(g)
                    if stat.S_ISDIR(t.st_mode) or stat.S_ISREG(t.st_mode):
                        return here
                except OSError:
                    pass
            elif stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                return here
        except OSError:
            pass
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _bare(p: str) -> str:
    return p.rstrip("/") if len(p) > 1 else p


def project_folders(cwd: str, home: str) -> list[str]:
    """The project walk: ``cwd`` (already its real path) and each parent, stopping before
    ``home`` and after the git root (module docstring)."""
    h = _bare(unicodedata.normalize("NFC", os.path.normpath(os.path.abspath(home))))
    top = git_root(cwd)
    here = os.path.normpath(cwd)
    out: list[str] = []
    while True:
        if _bare(here) == h:
            break
        out.append(here)
        if top is not None and _bare(here) == _bare(top):
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return out


def _exists_dir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except OSError:
        return False


def _skills_root(provenance: Provenance, path: str, label: str) -> Root:
    return Root(provenance, path, prefix="", dot=True, exists=_exists_dir(path), depth=1, skip=("synced",),
                skip_folded=True, file_links=True, resolve=False, label=label)


def _commands_root(provenance: Provenance, path: str, label: str) -> Root:
    return Root(provenance, path, prefix="", dot=True, exists=_exists_dir(path), label=label)


def claude_roots(cwd: str, env: Environment, add_dirs: tuple[str, ...] = (), *,
                 managed_dir: str = MANAGED_DIR) -> list[ClaudeRoot]:
    """Every root of the workspace ``cwd`` (its real path) in precedence order, existing or
    not (``Root.exists`` says); commands roots last."""
    cfg, _ = config_dir(cwd, env)
    managed = not _truthy(env.get("CLAUDE_CODE_DISABLE_POLICY_SKILLS"))
    folders = project_folders(cwd, env.home)
    out: list[ClaudeRoot] = []
    mdir = os.path.join(managed_dir, ".claude")
    if managed:
        out.append(ClaudeRoot(_skills_root(Provenance.MANAGED, os.path.join(mdir, "skills"), "managed .claude/skills"),
                              "managed"))
    out.append(ClaudeRoot(_skills_root(Provenance.USER, os.path.join(cfg, "skills"), "user ~/.claude/skills"
                                       if cfg == os.path.join(env.home, ".claude") else "user $CLAUDE_CONFIG_DIR/skills"),
                          "user"))
    for d in folders:
        out.append(ClaudeRoot(_skills_root(Provenance.PROJECT, os.path.join(d, ".claude", "skills"),
                                           "project .claude/skills"), "project"))
    for a in add_dirs:
        d = os.path.normpath(os.path.join(cwd, os.path.expanduser(a) if a.startswith("~/") else a))
        out.append(ClaudeRoot(_skills_root(Provenance.PROJECT, os.path.join(d, ".claude", "skills"),
                                           "--add-dir .claude/skills"), "project"))
    if managed:
        out.append(ClaudeRoot(_commands_root(Provenance.MANAGED, os.path.join(mdir, "commands"),
                                             "managed .claude/commands (legacy commands)"), "managed", True))
    out.append(ClaudeRoot(_commands_root(Provenance.USER, os.path.join(cfg, "commands"),
                                         "user .claude/commands (legacy commands)"), "user", True))
    for d in folders:
        out.append(ClaudeRoot(_commands_root(Provenance.PROJECT, os.path.join(d, ".claude", "commands"),
                                             "project .claude/commands (legacy commands)"), "project", True))
    return out


# ------------------------------------------------------------------------------------- settings

@dataclass(frozen=True)
class ClaudeSettings:
    """The merged settings that matter for skills. ``values``: top-level keys (later layers
    win); ``overrides``: layer (``user``, ``project``, ``local``) → ``skillOverrides``;
    ``files``: every settings file consulted; ``warnings``: unreadable or invalid files."""

    values: Mapping[str, Any] = field(default_factory=dict)
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    warnings: tuple[CatalogWarning, ...] = ()

    def override(self, key: str, layers: tuple[str, ...] = ("user", "project", "local")) -> str | None:
        """The ``skillOverrides`` value for ``key`` (the last layer naming a valid one wins)."""
        found: str | None = None
        for layer in layers:
            v = self.overrides.get(layer, {}).get(key)
            if isinstance(v, str) and v in OVERRIDE_VALUES:
                found = v
        return found

    def mode(self, key: str, dmi: bool) -> str:
        """How the model sees ``key``: ``on``, ``name-only``, ``user-invocable-only`` or ``off``
        (``disable-model-invocation`` makes anything but ``off`` user-invocable-only)."""
        value = self.override(key) or "on"
        if dmi:
            return "off" if value == "off" else "user-invocable-only"
        return value

    @property
    def entry_cap(self) -> int:
        """Per-entry description cap in UTF-16 units (``skillListingMaxDescChars``, default 1,536)."""
        cap = self.values.get("skillListingMaxDescChars")
        return cap if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0 else 1536


def read_settings(cwd: str, env: Environment) -> ClaudeSettings:
    """The user, project and local settings files (module docstring). Unreadable or invalid
    JSON becomes a warning, never an error."""
    cfg, _ = config_dir(cwd, env)
    layers = (("user", os.path.join(cfg, "settings.json")),
              ("project", os.path.join(cwd, ".claude", "settings.json")),
              ("local", os.path.join(cwd, ".claude", "settings.local.json")))
    values: dict[str, Any] = {}
    overrides: dict[str, Mapping[str, Any]] = {}
    warnings: list[CatalogWarning] = []
    for tag, path in layers:
        try:
            data = read_regular(path, 16 * 1024 * 1024)
        except FileNotFoundError:
            continue
        except OSError as exc:
            warnings.append(CatalogWarning("claude-settings", path, f"cannot read {path}: {exc.strerror or exc}"))
            continue
        try:
            doc = json.loads(data.decode("utf-8", "replace"))
        except ValueError as exc:
            warnings.append(CatalogWarning("claude-settings", path,
                                           f"{path} is not valid JSON ({exc}); Claude Code ignores it"))
            continue
        except RecursionError:
            warnings.append(CatalogWarning("claude-settings", path, f"{path} is nested deeper than skillshelf's "
                                           "JSON reader follows (skillshelf's limit); none of its settings are used"))
            continue
        if not isinstance(doc, dict):
            continue
        o = doc.get("skillOverrides")
        overrides[tag] = o if isinstance(o, dict) else {}
        values.update({k: v for k, v in doc.items() if k != "skillOverrides"})
    return ClaudeSettings(values, overrides, tuple(p for _, p in layers), tuple(warnings))


def usage_scores(cwd: str, env: Environment, now: float | None = None) -> dict[str, float]:
    """Usage priority per key from ``skillUsage`` in ``~/.claude.json`` (``<config>/.claude.json``
    with ``CLAUDE_CONFIG_DIR``): ``usageCount × max(0.5^(days/7), 0.1)``. Used only to choose
    which descriptions survive an over-budget listing."""
    cfg, custom = config_dir(cwd, env)
    path = os.path.join(cfg, ".claude.json") if custom else os.path.join(env.home, ".claude.json")
    try:
        doc = json.loads(read_regular(path, 64 * 1024 * 1024).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    usage = doc.get("skillUsage") if isinstance(doc, dict) else None
    if not isinstance(usage, dict):
        return {}
    ms = (time.time() if now is None else now) * 1000
    out: dict[str, float] = {}
    for k, v in usage.items():
        try:
            days = (ms - float(v["lastUsedAt"])) / 86_400_000
            out[str(k)] = float(v.get("usageCount") or 0) * max(0.5 ** (days / 7), 0.1)
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError):
            continue
    return out


# ------------------------------------------------------------------------------------- model and budget

@dataclass(frozen=True)
class ModelInfo:
    """The session model: ``model`` id, context ``window`` (tokens), ``bytes_per_token`` and
    ``origin`` (``default``, ``ANTHROPIC_MODEL``, ``settings``)."""

    model: str
    window: int
    bytes_per_token: int
    origin: str


def resolve_model(env: Environment, settings: ClaudeSettings) -> ModelInfo:
    """``ANTHROPIC_MODEL`` > settings ``model`` > the default (``claude-opus-5-5``)."""
    origin = "default"
    m = DEFAULT_MODEL
    if env.get("ANTHROPIC_MODEL"):
        m, origin = str(env.get("ANTHROPIC_MODEL")), "ANTHROPIC_MODEL"
    elif isinstance(settings.values.get("model"), str) and settings.values["model"]:
        m, origin = str(settings.values["model"]), "settings"
    m = _ALIASES.get(m, m)
    one_m = m.endswith("[1m]")
    base = m[:-4] if one_m else m
    window = 1_000_000 if one_m or base not in _WINDOW_200K else 200_000
    return ModelInfo(base, window, 4 if base in _FOUR_BYTES else 3, origin)


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?Infinity|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def _js_number(value: str) -> float:
    s = value.strip()
    if s == "":
        return 0.0
    if not _NUMBER.fullmatch(s):
        return math.nan
    if s.lower().startswith(("0x", "0o", "0b")):
        return float(int(s, 0))
    return float(s)


def budget_from(env: Environment, settings: ClaudeSettings, window: int) -> tuple[float, str]:
    """The listing budget in terminal columns and its rule in words:
    ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` when it is a non-zero number, else
    ``max(1, floor(window × bytes_per_token × fraction))`` (fraction
    ``skillListingBudgetFraction``, default 0.01). May be a float or infinite."""
    raw = env.get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    if raw is not None:
        n = _js_number(raw)
        if not math.isnan(n) and n != 0:
            return n, f"SLASH_COMMAND_TOOL_CHAR_BUDGET={raw}"
    model = resolve_model(env, settings)
    frac = settings.values.get("skillListingBudgetFraction")
    custom = isinstance(frac, (int, float)) and not isinstance(frac, bool)
    fraction = float(frac) if custom else 0.01  # type: ignore[arg-type]
    value = max(1, math.floor(window * model.bytes_per_token * fraction))
    what = f"skillListingBudgetFraction {fraction:g}" if custom else "1%"
    return float(value), (f"{what} of {window:,} tokens × {model.bytes_per_token} characters per token "
                          f"({model.model}) = {value:,} columns")
