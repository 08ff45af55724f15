"""Codex CLI 0.171.0's configuration and skill roots for one working directory.

Configuration layers (later wins): the system ``/etc/codex/config.toml``, the user
``$CODEX_HOME/config.toml`` (``CODEX_HOME`` defaults to ``~/.codex``), the ``.codex/config.toml``
of each *trusted* project layer, and the session flags (skillshelf's ``--config`` files play
``-c``). ``skills.config`` rules come only from the user layer and the session flags. A layer
Codex cannot read (bad TOML, a wrong type for a key it knows) stops it from listing any skill.

Roots, in Codex's order (deduplicated by path, first kept): every project ``.codex/skills``
(cwd first, up to the project root), ``$CODEX_HOME/skills``, ``~/.agents/skills``,
``$CODEX_HOME/skills/.system``, ``/etc/codex/skills``, then every project ``.agents/skills``
from the project root down to cwd. The project root is the nearest ancestor holding a
``project_root_markers`` entry (default ``.git``); the ``.codex`` finder skips a ``.git``
directory without ``HEAD``, the ``.agents`` finder does not.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import CatalogWarning, Diagnostic, Provenance, Root, Severity
from skillshelf.core.paths import Environment

__all__ = [
    "MAX_SCAN_DEPTH",
    "SCOPES",
    "ConfigRule",
    "Setup",
    "load_setup",
    "scope_of",
]

#: Folder levels below a root at which ``SKILL.md`` files are still found.
MAX_SCAN_DEPTH = 6
#: Codex's scope word for each provenance.
SCOPES = {Provenance.PROJECT: "repo", Provenance.USER: "user", Provenance.SYSTEM: "system",
          Provenance.MANAGED: "admin"}
DEFAULT_MARKERS = (".git",)


def scope_of(root: Root) -> str:
    """``repo``, ``user``, ``system`` or ``admin``."""
    return SCOPES.get(root.provenance, "user")


@dataclass(frozen=True)
class ConfigRule:
    """One ``[[skills.config]]`` entry: ``kind`` ``path`` (the canonical ``SKILL.md`` path) or
    ``name``, its ``value``, ``enabled``, and ``where`` it was written (file and entry number)."""

    kind: str
    value: str
    enabled: bool
    where: str


@dataclass(frozen=True)
class Setup:
    """Everything Codex decides before walking: ``roots`` in its order (empty when ``fatal``:
    Codex refuses to start and lists nothing), the effective ``config`` values that change the
    catalog, the ``skills.config`` ``rules`` (later wins), and what skillshelf noticed."""

    cwd: str
    home: str
    codex_home: str
    roots: tuple[Root, ...] = ()
    fatal: str | None = None
    warnings: tuple[CatalogWarning, ...] = ()
    hints: tuple[Diagnostic, ...] = ()
    rules: tuple[ConfigRule, ...] = ()
    model: str | None = None
    context_window: int | None = None
    max_context_tokens: int | None = None
    include_instructions: bool = True
    #: where the catalog-changing values came from (``include_instructions`` → file …)
    origins: Mapping[str, str] = field(default_factory=dict)
    config_files: tuple[str, ...] = ()
    #: folders whose appearance would add a root (every project ``.codex`` / ``.agents/skills``)
    candidates: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- TOML layers
class ConfigError(Exception):
    """A layer Codex refuses: ``str(exc)`` is its message after ``failed to reload config: ``."""


def _toml_unexpected(value: object) -> str:
    if isinstance(value, bool):
        return "boolean `%s`" % ("true" if value else "false")
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'string "{escaped}"'
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return "map"
    return "a date-time"


def _position(text: str, key: str, header: str | None = None) -> str:
    """``line:column`` of the value of ``key`` (1-based), searched after ``header`` when given;
    ``1:1`` when not found (the position is skillshelf's estimate)."""
    lines = text.split("\n")
    start = 0
    if header is not None:
        for i, line in enumerate(lines):
            if line.strip().replace(" ", "") == header:
                start = i
                break
    name = re.escape(key)
    pattern = re.compile(rf"^\s*(?:\"{name}\"|{name})\s*=\s*")
    for i in range(start, len(lines)):
        m = pattern.match(lines[i])
        if m:
            return f"{i + 1}:{m.end() + 1}"
    return "1:1"


def _expect(cond: bool, value: object, expected: str, path: str, text: str, key: str,
            header: str | None = None) -> None:
    if not cond:
        raise ConfigError(f"{path}:{_position(text, key, header)}: invalid type: {_toml_unexpected(value)}, "
                          f"expected {expected}")


def _check(cfg: Mapping[str, object], path: str, text: str) -> None:
    """Raise :class:`ConfigError` for a key Codex knows with a value of the wrong type."""
    markers = cfg.get("project_root_markers")
    if "project_root_markers" in cfg:
        _expect(isinstance(markers, list), markers, "a sequence", path, text, "project_root_markers")
        for m in markers if isinstance(markers, list) else ():
            _expect(isinstance(m, str), m, "a string", path, text, "project_root_markers")
    if "model" in cfg:
        _expect(isinstance(cfg["model"], str), cfg["model"], "a string", path, text, "model")
    if "model_context_window" in cfg:
        v = cfg["model_context_window"]
        _expect(isinstance(v, int) and not isinstance(v, bool), v, "i64", path, text, "model_context_window")
    skills = cfg.get("skills")
    if "skills" in cfg:
        _expect(isinstance(skills, dict), skills, "struct SkillsToml", path, text, "skills")
    if not isinstance(skills, dict):
        return
    if "max_context_tokens" in skills:
        v = skills["max_context_tokens"]
        _expect(isinstance(v, int) and not isinstance(v, bool), v, "a nonzero usize", path, text,
                "max_context_tokens", "[skills]")
        if isinstance(v, int) and v <= 0:
            raise ConfigError(f"{path}:{_position(text, 'max_context_tokens', '[skills]')}: invalid value: "
                              f"integer `{v}`, expected a nonzero usize")
    if "include_instructions" in skills:
        v = skills["include_instructions"]
        _expect(isinstance(v, bool), v, "a boolean", path, text, "include_instructions", "[skills]")
    bundled = skills.get("bundled")
    if isinstance(bundled, dict) and "enabled" in bundled:
        _expect(isinstance(bundled["enabled"], bool), bundled["enabled"], "a boolean", path, text,
                "enabled", "[skills.bundled]")
    entries = skills.get("config")
    if "config" in skills:
        _expect(isinstance(entries, list), entries, "a sequence", path, text, "config")
    for entry in entries if isinstance(entries, list) else ():
        _expect(isinstance(entry, dict), entry, "struct SkillConfig", path, text, "config")
        assert isinstance(entry, dict)
        if "enabled" not in entry:
            raise ConfigError(f"{path}:{_position(text, '[[skills.config]]')}: missing field `enabled`")
        _expect(isinstance(entry["enabled"], bool), entry["enabled"], "a boolean", path, text, "enabled",
                "[[skills.config]]")
        for key in ("name", "path"):
            if key in entry:
                _expect(isinstance(entry[key], str), entry[key], "a string", path, text, key, "[[skills.config]]")


def _read_layer(path: str, project: bool = False) -> dict[str, object] | None:
    """The TOML table at ``path`` (``None`` when the file does not exist). Raises
    :class:`ConfigError` with Codex's words for a file it cannot use."""
    try:
        raw = read_regular(path)  # never blocks on a FIFO, never reads a huge file whole
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
        cfg = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: stream did not contain valid UTF-8 (byte {exc.start})") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested deeper than skillshelf's TOML reader follows (skillshelf's "
                          "limit)") from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)$", msg)
        where = f"{m.group(1)}:{m.group(2)}" if m else "1:1"
        detail = msg[: m.start()].strip() if m else msg
        if project:
            raise ConfigError(f"Error parsing project config file {path}: TOML parse error at line "
                              f"{where.replace(':', ', column ')}\n{detail}") from None
        raise ConfigError(f"{path}:{where}: {detail}") from None
    _check(cfg, path, text)
    return cfg


def _merge(a: Mapping[str, object], b: Mapping[str, object]) -> dict[str, object]:
    out = dict(a)
    for k, v in b.items():
        old = out.get(k)
        out[k] = _merge(old, v) if isinstance(v, dict) and isinstance(old, dict) else v
    return out


# ---------------------------------------------------------------------------- project roots
def _ancestors(path: str) -> list[str]:
    out = [path]
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return out
        out.append(parent)
        path = parent


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def project_root(cwd: str, markers: Sequence[str], *, need_head: bool) -> str:
    """The nearest ancestor of ``cwd`` holding one of ``markers`` (any existing path; with
    ``need_head`` a ``.git`` directory must hold ``HEAD``); ``cwd`` when none or no markers."""
    for d in _ancestors(cwd) if markers else ():
        for m in markers:
            p = os.path.join(d, m)
            if not _exists(p):
                continue
            if need_head and m == ".git" and os.path.isdir(p) and not _exists(os.path.join(p, "HEAD")):
                continue
            return d
    return cwd


def _git_root(cwd: str) -> str | None:
    for d in _ancestors(cwd):
        g = os.path.join(d, ".git")
        if _exists(g) and not (os.path.isdir(g) and not _exists(os.path.join(g, "HEAD"))):
            return d
    return None


def _down_to(cwd: str, top: str) -> list[str]:
    """The directories from ``top`` down to ``cwd`` (``top`` first)."""
    out: list[str] = []
    for d in _ancestors(cwd):
        out.append(d)
        if d == top:
            break
    out.reverse()
    return out


def _canonical(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, RuntimeError, ValueError):
        return path


def _root(provenance: Provenance, path: str, label: str) -> Root:
    exists = os.path.isdir(path)
    return Root(provenance, path, exists=exists, max_depth=MAX_SCAN_DEPTH, file_links=False, resolve=True,
                label=label, resolved=_canonical(path) if exists else "")


def _short_home(path: str, home: str) -> str:
    if path == home:
        return "~"
    if path.startswith(home.rstrip("/") + "/"):
        return "~/" + path[len(home.rstrip("/")) + 1:]
    return path


def load_setup(cwd: str, env: Environment, config_files: Sequence[str] = (), paths: Sequence[str] = (),
               system_dir: str = "/etc/codex") -> Setup:
    """Codex's configuration and roots for ``cwd`` (absolute; used as given) under ``env``.
    Never raises: a fatal problem is ``Setup.fatal`` (no roots), others are warnings."""
    home = os.path.abspath(env.home)
    raw_home = env.get("CODEX_HOME")
    codex_home = os.path.normpath(os.path.join(cwd, raw_home)) if raw_home else os.path.join(home, ".codex")
    warnings: list[CatalogWarning] = []
    for p in paths:
        warnings.append(CatalogWarning("codex-path-ignored", p, f"--path {p}: Codex 0.171.0 has no skills path "
                                       "setting (extra roots come only from an app-server client); ignored"))
    base = Setup(cwd=cwd, home=home, codex_home=codex_home)
    if raw_home and not os.path.exists(codex_home):
        msg = f'CODEX_HOME points to "{raw_home}", but that path does not exist'
        return _fatal(base, msg, codex_home, warnings)
    user_path = os.path.join(codex_home, "config.toml")
    files: list[str] = []
    try:
        system = _read_layer(os.path.join(system_dir, "config.toml")) or {}
        user = _read_layer(user_path) or {}
        session: dict[str, object] = {}
        for f in config_files:
            extra = _read_layer(f)
            if extra is None:
                raise ConfigError(f"{f}: no such file")
            session = _merge(session, extra)
            files.append(f)
    except ConfigError as exc:
        return _fatal(base, f"failed to reload config: {exc}", cwd, warnings)
    outer = _merge(_merge(system, user), session)
    markers_value = outer.get("project_root_markers")
    markers = tuple(markers_value) if isinstance(markers_value, list) else DEFAULT_MARKERS
    config_top = project_root(cwd, markers, need_head=True)
    layers = [os.path.join(d, ".codex") for d in _down_to(cwd, config_top)]
    layers = [d for d in layers if os.path.isdir(d) and os.path.normpath(d) != os.path.normpath(codex_home)]
    projects = user.get("projects") if isinstance(user.get("projects"), dict) else {}
    assert isinstance(projects, dict)
    git_top = _git_root(cwd)
    effective = _merge(system, user)
    origins: dict[str, str] = {}
    _note_origins(origins, system, os.path.join(system_dir, "config.toml"))
    _note_origins(origins, user, user_path)
    for layer in layers:
        if not _trusted(os.path.dirname(layer), projects, config_top, git_top):
            continue
        path = os.path.join(layer, "config.toml")
        try:
            project = _read_layer(path, project=True) or {}
        except ConfigError as exc:
            return _fatal(base, f"failed to reload config: {exc}", cwd, warnings)
        project.pop("project_root_markers", None)
        effective = _merge(effective, project)
        _note_origins(origins, project, path)
    effective = _merge(effective, session)
    for f in files:
        _note_origins(origins, _read_layer(f) or {}, f"--config {f}")

    roots: list[Root] = []
    for layer in reversed(layers):
        roots.append(_root(Provenance.PROJECT, os.path.join(layer, "skills"), "project .codex/skills"))
    user_label = "$CODEX_HOME" if raw_home else "~/.codex"
    roots.append(_root(Provenance.USER, os.path.join(codex_home, "skills"), f"user {user_label}/skills"))
    roots.append(_root(Provenance.USER, os.path.join(home, ".agents", "skills"), "user ~/.agents/skills"))
    system_root = os.path.join(codex_home, "skills", ".system")
    roots.append(_root(Provenance.SYSTEM, system_root, f"system {user_label}/skills/.system"))
    roots.append(_root(Provenance.MANAGED, os.path.join(system_dir, "skills"), f"admin {system_dir}/skills"))
    agents_top = project_root(cwd, markers, need_head=False)
    for d in _down_to(cwd, agents_top):
        p = os.path.join(d, ".agents", "skills")
        if os.path.isdir(p):
            roots.append(_root(Provenance.PROJECT, p, "project .agents/skills"))
    seen: set[str] = set()
    unique: list[Root] = []
    for r in roots:
        if r.path not in seen:
            seen.add(r.path)
            unique.append(r)
    skills = effective.get("skills") if isinstance(effective.get("skills"), dict) else {}
    assert isinstance(skills, dict)
    bundled = skills.get("bundled")
    hints: list[Diagnostic] = []
    if isinstance(bundled, dict) and bundled.get("enabled") is False:
        unique = [r for r in unique if r.provenance is not Provenance.SYSTEM]
    elif not os.path.isdir(system_root):
        hints.append(Diagnostic(
            Severity.INFO, "codex-system-skills",
            f"{_short_home(system_root, home)} does not exist yet: Codex 0.171.0 writes its bundled skills "
            "there when it starts (imagegen, openai-docs, skill-creator, skill-installer and two hidden ones); "
            "they are not shown here until it has", path=system_root))
    candidates = [os.path.join(d, ".codex") for d in _down_to(cwd, config_top)]
    candidates += [os.path.join(d, ".agents", "skills") for d in _down_to(cwd, agents_top)]
    mct = skills.get("max_context_tokens")
    window = effective.get("model_context_window")
    model = effective.get("model")
    include = skills.get("include_instructions")
    return Setup(
        cwd=cwd, home=home, codex_home=codex_home, roots=tuple(unique), warnings=tuple(warnings),
        hints=tuple(hints), rules=tuple(_rules(user, user_path, session)),
        model=model if isinstance(model, str) else None,
        context_window=window if isinstance(window, int) and not isinstance(window, bool) else None,
        max_context_tokens=mct if isinstance(mct, int) and not isinstance(mct, bool) and mct > 0 else None,
        include_instructions=include is not False, origins=origins, config_files=tuple(files),
        candidates=tuple(candidates),
    )


def _fatal(base: Setup, message: str, where: str, warnings: list[CatalogWarning]) -> Setup:
    """A setup Codex refuses: the warning holds its message exactly; a hint says what follows."""
    warning = CatalogWarning("codex-config-error", where, message)
    hint = Diagnostic(Severity.ERROR, "codex-config-error", "Codex 0.171.0 does not start with this configuration: "
                      "it lists no skill (skills/list answers with this one error) and sends no catalog", path=where)
    return Setup(cwd=base.cwd, home=base.home, codex_home=base.codex_home, fatal=message,
                 warnings=(*warnings, warning), hints=(hint,))


def _note_origins(origins: dict[str, str], layer: Mapping[str, object], where: str) -> None:
    for key in ("model", "model_context_window"):
        if key in layer:
            origins[key] = where
    skills = layer.get("skills")
    if isinstance(skills, dict):
        for key in ("max_context_tokens", "include_instructions"):
            if key in skills:
                origins[key] = where


def _trusted(directory: str, projects: Mapping[str, object], top: str, git_top: str | None) -> bool:
    for key in (directory, top, git_top):
        entry = projects.get(key) if key else None
        if isinstance(entry, dict):
            return entry.get("trust_level") == "trusted"
    return False


def _rules(user: Mapping[str, object], user_path: str, session: Mapping[str, object]) -> list[ConfigRule]:
    """``skills.config`` entries of the user layer then the session flags; an entry whose
    selector repeats an earlier one replaces it. Entries with both or neither selector, or an
    empty name, are ignored (as Codex ignores them)."""
    out: list[ConfigRule] = []
    for layer, where in ((user, user_path), (session, "--config")):
        skills = layer.get("skills")
        entries = skills.get("config") if isinstance(skills, dict) else None
        for n, entry in enumerate(entries if isinstance(entries, list) else (), 1):
            if not isinstance(entry, dict) or not isinstance(entry.get("enabled"), bool):
                continue
            p, name = entry.get("path"), entry.get("name")
            if isinstance(p, str) and name is None:
                rule = ConfigRule("path", _canonical(p), entry["enabled"], f"skills.config entry {n} in {where}")
            elif isinstance(name, str) and p is None and name.strip():
                rule = ConfigRule("name", name.strip(), entry["enabled"], f"skills.config entry {n} in {where}")
            else:
                continue
            out = [r for r in out if (r.kind, r.value) != (rule.kind, rule.value)]
            out.append(rule)
    return out
