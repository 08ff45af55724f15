"""Codex's roots, walk and listing: what ``skills/list`` returns for one working directory.

Roots, in order (deduplicated by path, first wins): every project ``.codex/skills`` from the
working directory up to the project root (scope ``repo``), ``$CODEX_HOME/skills`` (``user``;
``CODEX_HOME`` defaults to ``~/.codex``), ``~/.agents/skills`` (``user``),
``$CODEX_HOME/skills/.system`` (``system``), ``/etc/codex/skills`` (``admin``), then every
project ``.agents/skills`` from the project root down to the working directory (``repo``). The
project root is the nearest ancestor holding a marker (``project_root_markers``, default
``.git``); the ``.codex`` finder skips a ``.git`` directory without ``HEAD``; no marker → the
working directory only.

Each root is canonicalised and walked breadth-first with sorted names, at most 6 folder levels,
dot folders never entered, folder symlinks followed (not in the system root), ``SKILL.md``
symlinks ignored, at most 2,000 folders and 20,000 entries per root. The same file reached twice
keeps the first root. Listing order: scope (repo, user, system, admin), name bytes, path
components. ``[[skills.config]]`` in the user config enables or disables by path or name.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.codex.parse import ParseError, Sidecar, load_sidecar, parse_skill

__all__ = [
    "MAX_SCAN_DEPTH",
    "CodexConfig",
    "CodexError",
    "CodexListing",
    "CodexSkill",
    "listing",
    "resolve_roots",
]

SKILL_FILENAME = "SKILL.md"
MAX_SCAN_DEPTH = 6  # folder levels below a root
MAX_DIRS_PER_ROOT = 2000
MAX_ENTRIES_PER_ROOT = 20000
MAX_QUALIFIED_NAME_LEN = 64 * 2 + 1
PLUGIN_MANIFESTS = (".codex-plugin/plugin.json", ".claude-plugin/plugin.json", ".cursor-plugin/plugin.json")
SCOPE_RANK = {"repo": 0, "user": 1, "system": 2, "admin": 3}
#: The system configuration layer (its ``skills`` folder is the ``admin`` root).
SYSTEM_CONFIG_DIR = "/etc/codex"


@dataclass(frozen=True)
class CodexSkill:
    """One ``skills/list`` record plus what skillshelf shows beside it: ``path`` canonical,
    ``discovered`` the path as walked (through folder symlinks; the catalog's spelling),
    ``root`` the canonical root, ``implicit`` False when the sidecar hides it from the model,
    ``name_from_folder`` / ``repaired`` the parser's silent fallbacks."""

    name: str
    description: str
    path: str
    scope: str
    root: str
    discovered: str
    short_description: str | None = None
    sidecar: Sidecar = field(default_factory=Sidecar)
    enabled: bool = True
    disabled_by: str | None = None
    implicit: bool = True
    name_from_folder: bool = False
    repaired: bool = False

    def to_json(self) -> dict[str, object]:
        """The ``skills/list`` record (``shortDescription``, ``interface``, ``dependencies`` only
        when set; ``pluginId`` always null)."""
        out: dict[str, object] = {"name": self.name, "description": self.description}
        if self.short_description is not None:
            out["shortDescription"] = self.short_description
        if self.sidecar.interface is not None:
            out["interface"] = dict(self.sidecar.interface)
        if self.sidecar.dependencies is not None:
            out["dependencies"] = self.sidecar.dependencies
        out.update({"path": self.path, "scope": self.scope, "enabled": self.enabled, "pluginId": None})
        return out


@dataclass(frozen=True)
class CodexError:
    """One ``skills/list`` error: the canonical ``path`` and Codex's ``message``; ``discovered``
    the path as walked and ``scope`` the root's."""

    path: str
    message: str
    discovered: str
    scope: str


@dataclass(frozen=True)
class CodexListing:
    """``skills/list`` for one working directory: ``skills`` in Codex's order, ``errors`` in walk
    order (once per root that reached the file), ``roots`` every candidate root as
    ``(path, scope)`` in root order, ``root_order`` the canonical roots that supplied skills,
    ``silent`` the errors Codex drops without a word (system skills); skillshelf still shows them."""

    skills: tuple[CodexSkill, ...]
    errors: tuple[CodexError, ...]
    roots: tuple[tuple[str, str], ...]
    root_order: tuple[str, ...]
    silent: tuple[CodexError, ...] = ()


def _realpath(p: str) -> str | None:
    try:
        return os.path.realpath(p, strict=True)
    except (OSError, RuntimeError):
        return None


def _exists(p: str) -> bool:
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def _ancestors(p: str) -> list[str]:
    out = [p]
    while True:
        n = os.path.dirname(p)
        if n == p:
            return out
        out.append(n)
        p = n


def _read_toml(path: str) -> dict[str, object]:
    try:
        data = tomllib.loads(read_regular(path).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data


def _merge(a: Mapping[str, object], b: Mapping[str, object]) -> dict[str, object]:
    out = dict(a)
    for k, v in b.items():
        old = out.get(k)
        out[k] = _merge(old, v) if isinstance(v, dict) and isinstance(old, dict) else v
    return out


def _dirs_root_to_cwd(cwd: str, root: str) -> list[str]:
    out: list[str] = []
    for a in _ancestors(cwd):
        out.append(a)
        if a == root:
            break
    out.reverse()
    return out


def _root_for_agents(cwd: str, markers: list[str]) -> str:
    if not markers:
        return cwd
    for a in _ancestors(cwd):
        if any(_exists(os.path.join(a, m)) for m in markers):
            return a
    return cwd


def _root_for_config(cwd: str, markers: list[str]) -> str:
    if not markers:
        return cwd
    for a in _ancestors(cwd):
        for m in markers:
            p = os.path.join(a, m)
            if not _exists(p):
                continue
            if m == ".git" and os.path.isdir(p) and not _exists(os.path.join(p, "HEAD")):
                continue
            return a
    return cwd


def _git_checkout_root(cwd: str) -> str | None:
    for a in _ancestors(cwd):
        g = os.path.join(a, ".git")
        if not _exists(g) or (os.path.isdir(g) and not _exists(os.path.join(g, "HEAD"))):
            continue
        return a
    return None


class CodexConfig:
    """The configuration Codex reads for one working directory: the system layer
    (``/etc/codex/config.toml``), the user layer (``$CODEX_HOME/config.toml``), trusted project
    layers (``.codex/config.toml``, only when ``[projects."<dir>"] trust_level = "trusted"``),
    and session overrides (``-c``; skillshelf passes none)."""

    def __init__(self, cwd: str, home: str, env: Mapping[str, str],
                 overrides: Mapping[str, object] | None = None, system_dir: str = SYSTEM_CONFIG_DIR) -> None:
        self.home = os.path.abspath(home)
        self.cwd = os.path.abspath(cwd)
        ch = env.get("CODEX_HOME")
        self.codex_home = os.path.abspath(os.path.join(self.cwd, ch)) if ch else os.path.join(self.home, ".codex")
        self.system_dir = system_dir
        self.user_path = os.path.join(self.codex_home, "config.toml")
        self.user = _read_toml(self.user_path)
        self.overrides: dict[str, object] = dict(overrides or {})
        system = _read_toml(os.path.join(system_dir, "config.toml"))
        self.base = _merge(_merge(system, self.user), self.overrides)
        proot = _root_for_config(self.cwd, self.markers())
        self.project_layers: list[str] = []
        for d in _dirs_root_to_cwd(self.cwd, proot):
            dc = os.path.join(d, ".codex")
            if os.path.isdir(dc) and os.path.normpath(dc) != os.path.normpath(self.codex_home):
                self.project_layers.append(dc)
        projects = self.user.get("projects")
        trust = projects if isinstance(projects, dict) else {}

        def trusted(d: str) -> bool:
            for key in (d, proot, _git_checkout_root(self.cwd)):
                entry = trust.get(key) if key else None
                if isinstance(entry, dict):
                    return entry.get("trust_level") == "trusted"
            return False

        effective = _merge(system, self.user)
        for dc in self.project_layers:
            if trusted(os.path.dirname(dc)):
                layer = _read_toml(os.path.join(dc, "config.toml"))
                layer.pop("project_root_markers", None)
                effective = _merge(effective, layer)
        self.effective = _merge(effective, self.overrides)

    def markers(self) -> list[str]:
        """``project_root_markers`` of the non-project layers (default ``[".git"]``)."""
        m = self.base.get("project_root_markers")
        if isinstance(m, list) and all(isinstance(x, str) for x in m):
            return list(m)
        return [".git"]

    def skills(self) -> Mapping[str, object]:
        """The effective ``[skills]`` table."""
        s = self.effective.get("skills")
        return s if isinstance(s, dict) else {}


def resolve_roots(config: CodexConfig) -> list[tuple[str, str]]:
    """Every candidate root as ``(path, scope)`` in Codex's order (module docstring)."""
    roots: list[tuple[str, str]] = [(os.path.join(dc, "skills"), "repo") for dc in reversed(config.project_layers)]
    roots.append((os.path.join(config.codex_home, "skills"), "user"))
    roots.append((os.path.join(config.home, ".agents", "skills"), "user"))
    roots.append((os.path.join(config.codex_home, "skills", ".system"), "system"))
    roots.append((os.path.join(config.system_dir, "skills"), "admin"))
    for d in _dirs_root_to_cwd(config.cwd, _root_for_agents(config.cwd, config.markers())):
        p = os.path.join(d, ".agents", "skills")
        if os.path.isdir(p):
            roots.append((p, "repo"))
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for p, s in roots:
        if p not in seen:
            seen.add(p)
            out.append((p, s))
    bundled = config.skills().get("bundled")
    if isinstance(bundled, dict) and bundled.get("enabled") is False:
        out = [(p, s) for p, s in out if s != "system"]
    return out


def _walk(root: str, follow: bool) -> list[tuple[str, str]]:
    """Breadth-first, sorted names, dot folders not entered: ``(path, "dir"|"file")`` entries."""
    out: list[tuple[str, str]] = []
    try:
        st = os.stat(root)
    except OSError:
        return out
    if not stat.S_ISDIR(st.st_mode) or (os.path.islink(root) and not follow):
        return out
    visited = {(_realpath(root) or root) if follow else root}
    queue: list[tuple[str, int]] = [(root, 0)]
    qi = 0
    dirs, entries = 1, 0
    while qi < len(queue):
        d, depth = queue[qi]
        qi += 1
        try:
            names: list[str] = []
            with os.scandir(d) as it:
                for e in it:
                    if e.is_symlink() and not _exists(e.path):
                        continue  # broken links are left out silently
                    names.append(e.name)
        except OSError:
            continue
        names.sort()
        for name in names:
            if entries == MAX_ENTRIES_PER_ROOT:
                return out
            entries += 1
            p = os.path.join(d, name)
            try:
                lst = os.lstat(p)
                is_link = stat.S_ISLNK(lst.st_mode)
                st = os.stat(p) if is_link else lst
            except OSError:
                continue
            if is_link and (not follow or not stat.S_ISDIR(st.st_mode)):
                continue
            if stat.S_ISDIR(st.st_mode):
                kind = "dir"
            elif stat.S_ISREG(st.st_mode):
                kind = "file"
            else:
                continue
            out.append((p, kind))
            if kind == "dir" and depth < MAX_SCAN_DEPTH and not name.startswith("."):
                ident = _realpath(p) if follow else p
                if ident is None or ident in visited:
                    continue
                visited.add(ident)
                if dirs < MAX_DIRS_PER_ROOT:
                    dirs += 1
                    queue.append((p, depth + 1))
    return out


def _hidden_below(path: str, root: str) -> bool:
    a = os.path.dirname(path)
    while a and a != root:
        if os.path.basename(a).startswith("."):
            return True
        n = os.path.dirname(a)
        if n == a:
            break
        a = n
    return False


def _plugin_namespace(d: str) -> str | None:
    for rel in PLUGIN_MANIFESTS:
        c = os.path.join(d, rel)
        if os.path.isfile(c):
            try:
                v = json.loads(read_regular(c).decode("utf-8"))
            except (OSError, ValueError):
                return None
            if not isinstance(v, dict) or not isinstance(v.get("name", ""), str):
                return None
            name = str(v.get("name", ""))
            return (os.path.basename(d) or None) if name.strip() == "" else name
    return None


def _namespace_of(start: str) -> str | None:
    for a in _ancestors(start):
        n = _plugin_namespace(a)
        if n is not None:
            return n
    return None


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _namespaces(root: str, skills: list[tuple[str, str]], plugin_roots: set[str]) -> dict[str, str | None]:
    """Canonical ``SKILL.md`` → its plugin namespace (``plugin:name``), or ``None``."""
    ancestors: set[str] = set()
    for cp, _ in skills:
        a = os.path.dirname(cp)
        while True:
            ancestors.add(a)
            n = os.path.dirname(a)
            if n == a:
                break
            a = n
    ns_roots = {os.path.dirname(cp) for cp, dp in skills if cp != dp} - {root}
    plugins = [p for p in plugin_roots if p in ancestors and p != root and p not in ns_roots]
    inherited = _namespace_of(root)
    nested: list[tuple[str, str | None]] = [(r, _namespace_of(r)) for r in ns_roots]
    for p in plugins:
        namespace = _plugin_namespace(p)
        if namespace is not None:
            nested.append((p, namespace))
    out: dict[str, str | None] = {}
    for cp, _ in skills:
        under_root = _under(cp, root)
        best: tuple[int, str | None] | None = None
        for r, ns in nested:
            if _under(cp, r) and (not under_root or not _under(root, r)):
                depth = len(_ancestors(r))
                if best is None or depth > best[0]:
                    best = (depth, ns)
        out[cp] = best[1] if best else inherited
    return out


def _utf8_error(data: bytes) -> str | None:
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError as e:
        if e.reason == "unexpected end of data":
            return f"incomplete utf-8 byte sequence from index {e.start}"
        return f"invalid utf-8 sequence of {e.end - e.start} bytes from index {e.start}"


def _load_root(path: str, scope: str) -> tuple[str, list[CodexSkill], list[CodexError], list[CodexError]]:
    croot = _realpath(path) or path
    files: list[str] = []
    plugin_roots: set[str] = set()
    for p, kind in _walk(croot, follow=scope != "system"):
        if _hidden_below(p, croot):
            continue
        base = os.path.basename(p)
        if kind == "dir" and any(rel.split("/")[0] == base for rel in PLUGIN_MANIFESTS):
            plugin_roots.add(os.path.dirname(p))
        elif kind == "file" and base == SKILL_FILENAME:
            files.append(p)
    skills: list[CodexSkill] = []
    reported: list[CodexError] = []
    silent: list[CodexError] = []
    if not files:
        return croot, skills, reported, silent
    resolved = [(_realpath(p) or p, p) for p in files]
    namespaces = _namespaces(croot, resolved, plugin_roots)
    errors = reported if scope != "system" else silent  # Codex drops errors in system skills
    display: dict[str, str] = {}
    for cp, dp in resolved:
        try:
            data = read_regular(cp)
        except OSError as e:
            errors.append(CodexError(cp, f"failed to read file: {e.strerror} (os error {e.errno})", dp, scope))
            continue
        bad = _utf8_error(data)
        if bad is not None:
            errors.append(CodexError(cp, "failed to read file: " + bad, dp, scope))
            continue
        skill_dir = os.path.dirname(cp)
        try:
            parsed = parse_skill(data.decode("utf-8"), os.path.basename(skill_dir))
            name = parsed.name
            ns = namespaces.get(cp)
            if ns is not None:
                name = f"{ns}:{name}"
            if len(name) > MAX_QUALIFIED_NAME_LEN:
                raise ParseError(f"invalid qualified name: exceeds maximum length of {MAX_QUALIFIED_NAME_LEN} characters")
        except ParseError as e:
            errors.append(CodexError(cp, str(e), dp, scope))
            continue
        sidecar = load_sidecar(skill_dir)
        if sidecar.products and "codex" not in sidecar.products:
            continue  # for other products only: Codex leaves it out entirely
        display[cp] = dp  # a later spelling of the same file wins (Codex keeps a map)
        skills.append(CodexSkill(name, parsed.description, cp, scope, croot, dp, parsed.short_description,
                                 sidecar, implicit=sidecar.implicit, name_from_folder=parsed.name_from_folder,
                                 repaired=parsed.repaired))
    return croot, [replace(s, discovered=display[s.path]) for s in skills], reported, silent


def _path_key(p: str) -> list[str]:
    return [c for c in p.split("/") if c]


def _config_rules(config: CodexConfig) -> list[tuple[tuple[str, str], bool]]:
    """``[[skills.config]]`` of the user layer then the overrides; a repeated selector replaces."""
    entries: list[tuple[tuple[str, str], bool]] = []
    for layer in (config.user, config.overrides):
        s = layer.get("skills")
        if not isinstance(s, dict):
            continue
        rules = s.get("config")
        for e in rules if isinstance(rules, list) else []:
            if not isinstance(e, dict) or "enabled" not in e:
                continue
            p, n = e.get("path"), e.get("name")
            if isinstance(p, str) and n is None:
                sel = ("path", _realpath(p) or p)
            elif isinstance(n, str) and p is None:
                if not n.strip():
                    continue
                sel = ("name", n.strip())
            else:
                continue
            entries = [x for x in entries if x[0] != sel]
            entries.append((sel, bool(e["enabled"])))
    return entries


def listing(config: CodexConfig) -> CodexListing:
    """``skills/list`` for ``config.cwd`` (module docstring)."""
    roots = resolve_roots(config)
    skills: list[CodexSkill] = []
    errors: list[CodexError] = []
    silent: list[CodexError] = []
    order: list[str] = []
    seen: set[str] = set()
    for path, scope in roots:
        croot, found, errs, quiet = _load_root(path, scope)
        silent.extend(quiet)
        if found and croot not in order:
            order.append(croot)
        for s in found:
            if s.path not in seen:
                seen.add(s.path)
                skills.append(s)
        errors.extend(errs)
    used = {s.root for s in skills}
    disabled: dict[str, bool] = {}
    for (kind, value), enabled in _config_rules(config):
        targets = [value] if kind == "path" else [s.path for s in skills if s.name == value]
        for t in targets:
            disabled[t] = not enabled
    final = []
    for s in skills:
        if disabled.get(s.path):
            s = replace(s, enabled=False, disabled_by=config.user_path)
        final.append(s)
    final.sort(key=lambda s: (SCOPE_RANK[s.scope], s.name.encode("utf-8", "surrogatepass"), _path_key(s.path)))
    return CodexListing(tuple(final), tuple(errors), tuple(roots), tuple(r for r in order if r in used), tuple(silent))

