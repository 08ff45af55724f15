"""What opencode 1.18.33 derives from the environment and the working directory before it looks
for skills: its paths, the worktree, its switches, the merged configuration, the permission
rules and the roots in scan order.

Paths. ``cwd`` is the working directory with symlinks resolved (``process.cwd()``); ``home``
is ``$OPENCODE_TEST_HOME`` when set, else ``$HOME``; the config folder is
``($XDG_CONFIG_HOME or $HOME/.config)/opencode`` (an empty ``XDG_CONFIG_HOME`` counts as unset;
``OPENCODE_TEST_HOME`` does not move it).

Worktree (where the project walk stops). The nearest ancestor ``C`` of ``cwd`` where ``C/.git``
exists (symlinks followed) is asked ``git rev-parse --show-toplevel``, ``--git-dir`` and
``--git-common-dir``; when git says it is no repository (a bogus gitfile, an empty ``.git``)
there is none. Without a repository the worktree is ``/``: the walk passes ``$HOME`` and goes on.

Switches. Every boolean runtime flag is parsed strictly (``true yes on 1 y`` / ``false no off 0
n``, case-sensitive); any other value, even ``TRUE`` or ``""``, makes opencode exit 1 before it
reads anything. ``OPENCODE_DISABLE_EXTERNAL_SKILLS`` drops the ``.claude`` and ``.agents``
roots, ``OPENCODE_DISABLE_CLAUDE_CODE`` or ``…_CLAUDE_CODE_SKILLS`` the ``.claude`` ones;
``OPENCODE_DISABLE_PROJECT_CONFIG`` (``true``/``1``, any case) drops project ``.opencode``
folders and project ``opencode.json(c)``.

Configuration. Layers, later wins (objects merge, arrays replace): the config folder's
``config.json``, ``opencode.json``, ``opencode.jsonc``; ``$OPENCODE_CONFIG``; project
``opencode.json`` then ``opencode.jsonc`` from the worktree down to ``cwd``; ``opencode.json(c)``
in every ``.opencode`` folder (nearest first) and ``$OPENCODE_CONFIG_DIR``;
``$OPENCODE_CONFIG_CONTENT``; the managed ``/etc/opencode``. ``{env:VAR}`` and ``{file:path}`` are
substituted first. A layer that is not JSONC, or whose ``skills``/``permission``/``tools`` have
the wrong shape, makes opencode refuse to start. ``$OPENCODE_PERMISSION`` (JSON) merges into
``permission`` (invalid: a WARN, skipped); ``tools: {name: false}`` becomes a deny rule.

Roots, in scan order: ``~/.claude/skills`` and ``~/.agents/skills`` (``skills/**/SKILL.md``, dot
folders entered); ``.claude/skills`` and ``.agents/skills`` in every folder from ``cwd`` up to the
worktree; ``skill/`` and ``skills/`` (``{skill,skills}/**/SKILL.md``, no dot folders) in the
config folder, every project ``.opencode``, ``~/.opencode`` and ``$OPENCODE_CONFIG_DIR``; every
``skills.paths`` entry (``**/SKILL.md``, no dot folders; ``~/`` is ``home``, relative entries join
``cwd``; a missing one is a WARN ``skill path not found``). ``skills.urls`` needs the network and
is not read here. A *file* named ``.opencode`` among the config folders makes opencode exit 1.
Roots a switch turns off are kept with ``Root.unread`` naming the switch; when opencode would
refuse to start, every root it would have read is kept with the refusal as ``unread``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillshelf.core.config import ConfigSyntaxError, parse_jsonc
from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.base import HostContext
from skillshelf.core.jsonc import DEPTH_EXCEEDED, MAX_DEPTH
from skillshelf.core.model import CatalogWarning, Provenance, Root

__all__ = [
    "BOOLEAN_FLAGS",
    "Rule",
    "Workspace",
    "evaluate",
    "find_worktree",
    "load_workspace",
    "skill_disabled",
    "wildcard",
]

#: opencode's strict boolean runtime flags, in the order it parses them.
BOOLEAN_FLAGS: tuple[str, ...] = (
    "OPENCODE_AUTO_SHARE", "OPENCODE_PURE", "OPENCODE_DISABLE_DEFAULT_PLUGINS", "OPENCODE_DISABLE_EMBEDDED_WEB_UI",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS", "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT", "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS", "OPENCODE_EXPERIMENTAL",
    "OPENCODE_ENABLE_EXA", "OPENCODE_EXPERIMENTAL_EXA", "OPENCODE_ENABLE_PARALLEL", "OPENCODE_EXPERIMENTAL_PARALLEL",
    "OPENCODE_ENABLE_EXPERIMENTAL_MODELS", "OPENCODE_ENABLE_QUESTION_TOOL", "OPENCODE_EXPERIMENTAL_REFERENCES",
    "OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS", "OPENCODE_EXPERIMENTAL_LSP_TY", "OPENCODE_EXPERIMENTAL_LSP_TOOL",
    "OPENCODE_EXPERIMENTAL_OXFMT", "OPENCODE_EXPERIMENTAL_PLAN_MODE", "OPENCODE_EXPERIMENTAL_CODE_MODE",
    "OPENCODE_EXPERIMENTAL_EVENT_SYSTEM", "OPENCODE_EXPERIMENTAL_WORKSPACES", "OPENCODE_EXPERIMENTAL_ICON_DISCOVERY",
    "OPENCODE_EXPERIMENTAL_NATIVE_LLM", "OPENCODE_EXPERIMENTAL_WEBSOCKETS",
)
_TRUE = ("true", "yes", "on", "1", "y")
_FALSE = ("false", "no", "off", "0", "n")
_ACTIONS = ("allow", "ask", "deny")

#: Config file names read in the config folder, in order.
GLOBAL_FILES = ("config.json", "opencode.json", "opencode.jsonc")
#: Config file names read in project folders and ``.opencode`` folders, in order.
PROJECT_FILES = ("opencode.json", "opencode.jsonc")


@dataclass(frozen=True)
class Rule:
    """One permission rule: ``permission`` and ``pattern`` are wildcards, ``action`` is
    ``allow``/``ask``/``deny``; ``origin`` names where it came from (a file, an env variable,
    ``default``); ``string_form`` whether it was written ``"permission": "action"``."""

    permission: str
    pattern: str
    action: str
    origin: str = "default"
    string_form: bool = True

    def to_js(self) -> dict[str, str]:
        """The rule as opencode serialises it (key order of its ``fromConfig``)."""
        if self.string_form:
            return {"permission": self.permission, "action": self.action, "pattern": self.pattern}
        return {"permission": self.permission, "pattern": self.pattern, "action": self.action}

    def describe(self) -> str:
        """``skill: {"pdf*": "deny"}`` in words, with its origin."""
        return f'permission `{self.permission}` pattern `{self.pattern}` → {self.action} ({self.origin})'


@dataclass(frozen=True)
class Workspace:
    """Everything opencode decides before scanning (see the module docstring).

    ``fatal``: why opencode would refuse to start (``None`` when it starts). ``rules``: the
    session agent's permission rules, defaults first. ``config_files``: every configuration
    file read, in layer order; ``walk``: the folders from ``cwd`` up to the worktree.
    """

    cwd: str
    home: str
    config_dir: str
    worktree: str
    worktree_note: str
    walk: tuple[str, ...]
    roots: tuple[Root, ...] = ()
    warnings: tuple[CatalogWarning, ...] = ()
    fatal: str | None = None
    rules: tuple[Rule, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    config_files: tuple[str, ...] = ()
    config_dirs: tuple[str, ...] = ()


class _Fatal(Exception):
    pass


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def up(targets: Sequence[str], start: str, stop: str) -> list[str]:
    """opencode's ``FileSystem.up``: for ``start`` and each parent until ``stop`` (inclusive) or
    ``/``, every ``target`` below it that exists (symlinks followed), nearest first."""
    out: list[str] = []
    current = start
    while True:
        for t in targets:
            p = os.path.join(current, t)
            if _exists(p):
                out.append(p)
        if current == stop:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return out


def _walk(start: str, stop: str) -> tuple[str, ...]:
    out = [start]
    current = start
    while current != stop:
        parent = os.path.dirname(current)
        if parent == current:
            break
        out.append(parent)
        current = parent
    return tuple(out)


# ---------------------------------------------------------------------------------- worktree


def _git_dir_ok(gitdir: str) -> bool:
    try:
        if not os.path.isfile(os.path.join(gitdir, "HEAD")):
            return False
        common = gitdir
        pointer = os.path.join(gitdir, "commondir")
        if os.path.isfile(pointer):
            c = read_regular(pointer).decode("utf-8").strip()
            common = c if os.path.isabs(c) else os.path.normpath(os.path.join(gitdir, c))
        return os.path.isdir(os.path.join(common, "objects")) and os.path.isdir(os.path.join(common, "refs"))
    except (OSError, UnicodeDecodeError):
        return False


def _toplevel_without_git(start: str) -> str | None:
    """What ``git rev-parse`` run in ``start`` answers, emulated for the common layouts (a
    ``.git`` folder, a ``gitdir:`` file, a bare repository) when git is not installed."""
    current = start
    while True:
        dotgit = os.path.join(current, ".git")
        if os.path.isfile(dotgit):
            try:
                m = re.match(r"gitdir: (.*)", read_regular(dotgit).decode("utf-8"))
            except (OSError, UnicodeDecodeError):
                return None
            if not m:
                return None
            target = m.group(1).strip()
            target = target if os.path.isabs(target) else os.path.join(current, target)
            return current if _git_dir_ok(target) else None
        if os.path.isdir(dotgit) and _git_dir_ok(dotgit):
            return current
        if _git_dir_ok(current):
            return start
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _git(args: Sequence[str], cwd: str, env: Mapping[str, str]) -> str | None:
    exe = shutil.which("git", path=env.get("PATH") or os.defpath)
    if exe is None:
        raise FileNotFoundError("git")
    try:
        proc = subprocess.run([exe, *args], check=False, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.rstrip("\r\n")


def find_worktree(cwd: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(worktree, how it was found) for the resolved ``cwd``. Never raises."""
    current = cwd
    while True:
        if _exists(os.path.join(current, ".git")):
            break
        parent = os.path.dirname(current)
        if parent == current:
            return "/", "no .git in the working directory or above it: opencode walks up to /"
        current = parent
    git_env = dict(env.items())
    git_env.setdefault("PATH", os.defpath)
    try:
        gitdir = _git(["rev-parse", "--git-dir"], current, git_env)
        common = _git(["rev-parse", "--git-common-dir"], current, git_env) if gitdir is not None else None
        if gitdir is None or common is None:
            return "/", f"{current}/.git is not a git repository (git rev-parse fails): opencode walks up to /"
        top = _git(["rev-parse", "--show-toplevel"], current, git_env)
        return (top or current), f"git worktree {top or current}"
    except FileNotFoundError:
        emulated = _toplevel_without_git(current)
        if emulated is None:
            return "/", f"{current}/.git is not a git repository: opencode walks up to /"
        return emulated, f"git worktree {emulated} (git not installed: read from {current}/.git)"


# ---------------------------------------------------------------------------------- config


def _substitute(text: str, source: str, env: Mapping[str, str], home: str) -> str:
    """``{env:VAR}`` and ``{file:path}`` as opencode replaces them before parsing. Raises
    :class:`_Fatal` for a ``{file:…}`` that cannot be read."""
    text = re.sub(r"\{env:([^}]+)\}", lambda m: env.get(m.group(1)) or "", text)
    base = os.path.dirname(source) if os.path.isabs(source) else os.getcwd()
    out: list[str] = []
    for line in text.split("\n"):
        if "{file:" in line and not line.strip().startswith("//"):
            def repl(m: re.Match[str]) -> str:
                target = m.group(1)
                if target.startswith("~/"):
                    target = os.path.join(home, target[2:])
                path = target if os.path.isabs(target) else os.path.join(base, target)
                try:
                    content = read_regular(path).decode("utf-8", errors="replace").strip()
                except OSError as exc:
                    raise _Fatal(f"bad file reference {m.group(0)} in {source}: {path}: {exc.strerror or exc}") from None
                return json.dumps(content, ensure_ascii=False)[1:-1]
            line = re.sub(r"\{file:([^}]+)\}", repl, line)
        out.append(line)
    return "\n".join(out)


def _where(path: Sequence[str | int]) -> str:
    return ".".join(str(p) for p in path)


def _check_action(value: Any, path: list[str | int], source: str) -> None:
    if not isinstance(value, str) or value not in _ACTIONS:
        shown = json.dumps(value, ensure_ascii=False)
        raise _Fatal(f"Configuration is invalid at {source}: Expected PermissionActionConfig, got {shown} {_where(path)}")


def _check_permission(value: Any, path: list[str | int], source: str) -> None:
    if isinstance(value, str):
        _check_action(value, path, source)
        return
    if not isinstance(value, dict):
        raise _Fatal(f"Configuration is invalid at {source}: Expected PermissionConfig, got "
                     f"{json.dumps(value, ensure_ascii=False)} {_where(path)}")
    for key, rule in value.items():
        if isinstance(rule, dict):
            for pattern, action in rule.items():
                _check_action(action, [*path, key, pattern], source)
        else:
            _check_action(rule, [*path, key], source)


def _check_strings(value: Any, path: list[str | int], source: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise _Fatal(f"Configuration is invalid at {source}: Expected array | undefined, got "
                     f"{json.dumps(value, ensure_ascii=False)} {_where(path)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise _Fatal(f"Configuration is invalid at {source}: Expected string, got "
                         f"{json.dumps(item, ensure_ascii=False)} {_where([*path, i])}")


def _validate(doc: Any, source: str) -> dict[str, Any]:
    """The parts of opencode's config schema that decide skills; raises :class:`_Fatal`."""
    if not isinstance(doc, dict):
        raise _Fatal(f"Configuration is invalid at {source}: Expected Config, got {json.dumps(doc, ensure_ascii=False)}")
    skills = doc.get("skills")
    if skills is not None:
        if not isinstance(skills, dict):
            raise _Fatal(f"Configuration is invalid at {source}: Expected object, got "
                         f"{json.dumps(skills, ensure_ascii=False)} skills")
        _check_strings(skills.get("paths"), ["skills", "paths"], source)
        _check_strings(skills.get("urls"), ["skills", "urls"], source)
    if "permission" in doc:
        _check_permission(doc["permission"], ["permission"], source)
    tools = doc.get("tools")
    if tools is not None and (not isinstance(tools, dict) or not all(isinstance(v, bool) for v in tools.values())):
        raise _Fatal(f"Configuration is invalid at {source}: Expected Record<string, boolean>, got "
                     f"{json.dumps(tools, ensure_ascii=False)} tools")
    agents = doc.get("agent")
    if isinstance(agents, dict):
        for name, agent in agents.items():
            if isinstance(agent, dict) and "permission" in agent:
                _check_permission(agent["permission"], ["agent", name, "permission"], source)
    return doc


def _parse_layer(text: str, source: str, env: Mapping[str, str], home: str) -> dict[str, Any]:
    text = _substitute(text, source, env, home)
    if not text.strip():
        return {}
    try:
        doc = parse_jsonc(text, source, strict=True)
    except ConfigSyntaxError as exc:
        if exc.message == DEPTH_EXCEEDED:  # serde_json's limit, not opencode's: say whose it is
            raise _Fatal(f"Config file at {source} is nested more than {MAX_DEPTH} levels at line {exc.line}, "
                         f"column {exc.column}: deeper than skillshelf reads (skillshelf's limit; opencode "
                         "itself may read it)") from None
        raise _Fatal(f"Config file at {source} is not valid JSON(C): {exc.message} at line {exc.line}, "
                     f"column {exc.column}") from None
    return _validate(doc, source)


def _read_layer(path: str, env: Mapping[str, str], home: str) -> dict[str, Any] | None:
    """One config file (``None`` when absent). Raises :class:`_Fatal`."""
    try:
        raw = read_regular(path)  # never blocks on a FIFO, never reads a huge file whole
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except IsADirectoryError:
        raise _Fatal(f"Unexpected error: BadResource: FileSystem.readFile ({path}): is a directory") from None
    except OSError as exc:
        raise _Fatal(f"Unexpected error: FileSystem.readFile ({path}): {exc.strerror or exc}") from None
    return _parse_layer(raw.decode("utf-8", errors="replace"), path, env, home)


def merge(base: Any, overlay: Any) -> Any:
    """remeda ``mergeDeep``: objects merge key by key, anything else (arrays too) replaces."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        out = dict(base)
        for key, value in overlay.items():
            out[key] = merge(out[key], value) if key in out else value
        return out
    return overlay


# ---------------------------------------------------------------------------------- permissions


def wildcard(text: str, pattern: str) -> bool:
    """opencode's ``Wildcard.match``: ``*`` any run, ``?`` one character, a trailing ``" *"``
    also matches nothing, the whole string, case-sensitive, ``\\`` read as ``/``."""
    text = text.replace("\\", "/")
    rx = re.sub(r"[.+^${}()|\[\]\\]", lambda m: "\\" + m.group(0), pattern.replace("\\", "/"))
    rx = rx.replace("*", ".*").replace("?", ".")
    if rx.endswith(" .*"):
        rx = rx[:-3] + "( .*)?"
    return re.fullmatch(rx, text, flags=re.DOTALL) is not None


def _expand_pattern(pattern: str, os_home: str) -> str:
    if pattern.startswith("~/"):
        return os_home + pattern[1:]
    if pattern == "~":
        return os_home
    if pattern.startswith("$HOME"):
        return os_home + pattern[5:]
    return pattern


def _rules_from(permission: Any, origin: str, os_home: str) -> list[Rule]:
    if isinstance(permission, str):
        return [Rule("*", "*", permission, origin)]
    out: list[Rule] = []
    if not isinstance(permission, dict):
        return out
    for key, value in permission.items():
        if isinstance(value, str):
            out.append(Rule(key, "*", value, origin))
        elif isinstance(value, dict):
            out += [Rule(key, _expand_pattern(p, os_home), a, origin, False) for p, a in value.items() if isinstance(a, str)]
    return out


#: The build agent's default rules whose permission can match ``skill``.
DEFAULT_RULES = (Rule("*", "*", "allow", "default"),)


def _origin_of(layers: Sequence[tuple[str, dict[str, Any]]], key: str) -> str:
    for label, doc in reversed(layers):
        perm = doc.get("permission")
        if (isinstance(perm, dict) and key in perm) or (isinstance(perm, str) and key == "*"):
            return str(label)
    return "configuration"


# ---------------------------------------------------------------------------------- roots


def load_workspace(context: HostContext) -> Workspace:
    """opencode's view of ``context`` before scanning. Never raises: a reason opencode would
    exit is returned as :attr:`Workspace.fatal` (with no roots)."""
    env = dict(context.env.vars)
    os_home = env.get("HOME") or context.env.home
    home = env.get("OPENCODE_TEST_HOME") or os_home
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(os_home, ".config")
    config_dir = os.path.join(xdg, "opencode")
    try:
        cwd = os.path.realpath(context.cwd)
    except (OSError, ValueError):
        cwd = os.path.abspath(context.cwd)
    worktree, note = find_worktree(cwd, env)
    walk = _walk(cwd, worktree)
    base = Workspace(cwd=cwd, home=home, config_dir=config_dir, worktree=worktree, worktree_note=note, walk=walk)
    for flag in BOOLEAN_FLAGS:
        value = env.get(flag)
        if value is not None and value not in _TRUE and value not in _FALSE:
            reason = (f'opencode would refuse to start (exit 1): SchemaError(Expected "true" | "yes" | "on" | "1" | '
                      f'"y" | "false" | "no" | "off" | "0" | "n", got {json.dumps(value)} at ["{flag}"])')
            return _refused(base, reason)

    def on(flag: str) -> bool:
        return env.get(flag) in _TRUE

    no_external = on("OPENCODE_DISABLE_EXTERNAL_SKILLS")
    no_claude = on("OPENCODE_DISABLE_CLAUDE_CODE") or on("OPENCODE_DISABLE_CLAUDE_CODE_SKILLS")
    no_project = (env.get("OPENCODE_DISABLE_PROJECT_CONFIG") or "").lower() in ("true", "1")
    config_dir_env = env.get("OPENCODE_CONFIG_DIR") or None
    dirs = [config_dir]
    if not no_project:
        dirs += up([".opencode"], cwd, worktree)
    dirs += up([".opencode"], home, home)
    if config_dir_env:
        dirs.append(config_dir_env)
    config_dirs = tuple(dict.fromkeys(dirs))
    warnings: list[CatalogWarning] = []
    layers: list[tuple[str, dict[str, Any]]] = []
    files: list[str] = []
    try:
        def add(path: str) -> None:
            files.append(path)
            doc = _read_layer(path, env, home)
            if doc is not None:
                layers.append((path, doc))

        for name in GLOBAL_FILES:
            add(os.path.join(config_dir, name))
        if env.get("OPENCODE_CONFIG"):
            add(env["OPENCODE_CONFIG"])
        for extra in context.config_files:
            add(os.path.abspath(os.path.join(cwd, extra)))
        if not no_project:
            for path in reversed(up(["opencode.jsonc", "opencode.json"], cwd, worktree)):
                add(path)
        for d in config_dirs:
            if d.endswith(".opencode") or d == config_dir_env:
                if _exists(d) and not _is_dir(d):
                    raise _Fatal(f"Unexpected error: BadResource: FileSystem.readFile ({d}/opencode.json): "
                                 f"{d} is a file, not a folder")
                for name in PROJECT_FILES:
                    add(os.path.join(d, name))
        content = env.get("OPENCODE_CONFIG_CONTENT")
        if content:
            layers.append(("$OPENCODE_CONFIG_CONTENT",
                           _parse_layer(content, "OPENCODE_CONFIG_CONTENT", env, home)))
        managed = env.get("OPENCODE_TEST_MANAGED_CONFIG_DIR") or "/etc/opencode"
        if _is_dir(managed):
            for name in PROJECT_FILES:
                add(os.path.join(managed, name))
    except _Fatal as exc:
        return _refused(base, f"opencode would refuse to start (exit 1): {exc}", config_files=tuple(files))
    config: dict[str, Any] = {}
    for _, doc in layers:
        config = merge(config, doc)
    permission = config.get("permission")
    if isinstance(permission, str):
        permission = {"*": permission}
    raw_env_perm = env.get("OPENCODE_PERMISSION")
    if raw_env_perm:
        try:
            extra_perm = json.loads(raw_env_perm)
            permission = merge(permission or {}, extra_perm)
            layers.append(("$OPENCODE_PERMISSION", {"permission": extra_perm}))
        except ValueError as exc:
            warnings.append(CatalogWarning("opencode-permission-env", "OPENCODE_PERMISSION",
                                           f"OPENCODE_PERMISSION contains invalid JSON, skipping ({exc}); "
                                           "opencode logs a WARN"))
    tools = config.get("tools")
    if isinstance(tools, dict):
        derived = {("edit" if k in ("write", "edit", "patch") else k): ("allow" if v else "deny") for k, v in tools.items()}
        permission = merge(derived, permission or {})
        layers.insert(0, ("`tools` in the configuration", {"permission": derived}))
    rules = list(DEFAULT_RULES)
    if isinstance(permission, dict):
        for key, value in permission.items():
            rules += _rules_from({key: value}, _origin_of(layers, key), os_home)
    agent_name = config.get("default_agent") if isinstance(config.get("default_agent"), str) else "build"
    for section in ("mode", "agent"):
        agents = config.get(section)
        own = agents.get(agent_name) if isinstance(agents, dict) else None
        if isinstance(own, dict) and own.get("permission") is not None:
            rules += _rules_from(own["permission"], f"{section}.{agent_name}.permission", os_home)
    dropped_dirs = [d for d in up([".opencode"], cwd, worktree) if d not in config_dirs] if no_project else []
    roots = _roots(cwd=cwd, home=home, worktree=worktree, config_dirs=config_dirs, config_dir=config_dir,
                   config_dir_env=config_dir_env, no_external=no_external, no_claude=no_claude,
                   config=config, extra_paths=context.paths, warnings=warnings, dropped_dirs=dropped_dirs)
    return Workspace(cwd=cwd, home=home, config_dir=config_dir, worktree=worktree, worktree_note=note, walk=walk,
                     roots=roots, warnings=tuple(warnings), rules=tuple(rules), config=config,
                     config_files=tuple(files), config_dirs=config_dirs)


def _refused(base: Workspace, reason: str, config_files: tuple[str, ...] = ()) -> Workspace:
    """opencode exits: the roots it would have read, every one ``unread`` with ``reason``."""
    warning = CatalogWarning("opencode-refuses-start", base.cwd, reason)
    dirs = tuple(dict.fromkeys([base.config_dir, *up([".opencode"], base.cwd, base.worktree),
                                *up([".opencode"], base.home, base.home)]))
    roots = _roots(cwd=base.cwd, home=base.home, worktree=base.worktree, config_dirs=dirs, config_dir=base.config_dir,
                   config_dir_env=None, no_external=False, no_claude=False, config={}, extra_paths=(),
                   warnings=[], fatal=reason)
    return Workspace(cwd=base.cwd, home=base.home, config_dir=base.config_dir, worktree=base.worktree,
                     worktree_note=base.worktree_note, walk=base.walk, roots=roots, warnings=(warning,), fatal=reason,
                     config_files=config_files)


def _roots(*, cwd: str, home: str, worktree: str, config_dirs: Sequence[str], config_dir: str,
           config_dir_env: str | None, no_external: bool, no_claude: bool, config: Mapping[str, Any],
           extra_paths: Sequence[str], warnings: list[CatalogWarning], dropped_dirs: Sequence[str] = (),
           fatal: str = "") -> tuple[Root, ...]:
    """The roots in scan order. Roots a switch turns off stay in the list with ``unread`` saying
    which (so a view can tell why a file there is not read); with ``fatal`` every root is unread."""

    def off(kind: str) -> str:
        if fatal:
            return fatal
        if no_external:
            return "OPENCODE_DISABLE_EXTERNAL_SKILLS is on: opencode reads no .claude or .agents skills"
        if no_claude and kind == ".claude":
            return "OPENCODE_DISABLE_CLAUDE_CODE(_SKILLS) is on: opencode reads no .claude skills"
        return ""

    roots: list[Root] = []
    kinds = [".claude", ".agents"]
    for kind in kinds:
        folder = os.path.join(home, kind)
        if _is_dir(folder):
            roots.append(Root(Provenance.USER, folder, "skills", dot=True, exists=_is_dir(folder + "/skills"),
                              label=f"~/{kind}/skills", unread=off(kind)))
    for folder in up(kinds, cwd, worktree):
        kind = os.path.basename(folder)
        roots.append(Root(Provenance.PROJECT, folder, "skills", dot=True, exists=_is_dir(folder + "/skills"),
                          label=f"project {kind}/skills", unread=off(kind)))
    dropped = "OPENCODE_DISABLE_PROJECT_CONFIG is on: opencode reads no project .opencode folder"
    for d in [*config_dirs, *dropped_dirs]:
        if d == config_dir:
            provenance, label = Provenance.USER, "~/.config/opencode"
        elif d == config_dir_env:
            provenance, label = Provenance.USER, "$OPENCODE_CONFIG_DIR"
        elif d == os.path.join(home, ".opencode"):
            provenance, label = Provenance.USER, "~/.opencode"
        else:
            provenance, label = Provenance.PROJECT, "project .opencode"
        for prefix in ("skill", "skills"):
            roots.append(Root(provenance, d, prefix, dot=False, exists=_is_dir(os.path.join(d, prefix)),
                              label=f"{label}/{prefix}", unread=fatal or (dropped if d in dropped_dirs else "")))
    skills = config.get("skills") if isinstance(config.get("skills"), dict) else {}
    assert isinstance(skills, dict)
    entries = [(p, "skills.paths") for p in (skills.get("paths") or [])] + [(p, "--path") for p in extra_paths]
    for item, label in entries:
        expanded = os.path.join(home, item[2:]) if item.startswith("~/") else item
        folder = os.path.normpath(expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded))
        if not _is_dir(folder):
            warnings.append(CatalogWarning("PathNotFound", folder,
                                           f"skill path not found path={folder} ({label} entry {item!r}; opencode "
                                           "logs a WARN and skips it)"))
            continue
        roots.append(Root(Provenance.CONFIGURED_PATH, folder, "", dot=False, exists=True, label=label,
                          unread=fatal))
    for url in skills.get("urls") or []:
        warnings.append(CatalogWarning("opencode-skills-url", str(url),
                                       f"skills.urls entry {url} is downloaded by opencode into "
                                       "~/.cache/opencode/skills; skillshelf does not fetch it"))
    return tuple(roots)


def evaluate(name: str, rules: Sequence[Rule]) -> Rule:
    """The last rule matching permission ``skill`` and pattern ``name`` (default ``ask``)."""
    for rule in reversed(rules):
        if wildcard("skill", rule.permission) and wildcard(name, rule.pattern):
            return rule
    return Rule("*", "*", "ask", "default")


def skill_disabled(rules: Sequence[Rule]) -> Rule | None:
    """The rule that switches the ``skill`` tool off for every name (the last rule whose
    permission matches ``skill`` has pattern ``*`` and action ``deny``), else ``None``."""
    for rule in reversed(rules):
        if wildcard("skill", rule.permission):
            return rule if rule.pattern == "*" and rule.action == "deny" else None
    return None
