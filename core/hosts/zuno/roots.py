"""Host ``zuno``: the ordered root list (SPEC D1–D3; conformance §0.3 "Discovery order").

The built-in row (SPEC D1 row 0) is not produced here — the catalog puts built-ins first.
Rows, in order:

1. ``project-zuno``: every ``.zuno`` on :func:`~skillshelf.core.paths.project_walk`, nearest
   first, prefix ``skill`` (singular only), dot-dirs skipped. Removed when
   ``ZUNO_DISABLE_PROJECT_CONFIG`` is truthy.
2. ``project-agents``: every ``.agents`` on the same walk, prefix ``skills``, dot-dirs
   scanned. Removed when ``ZUNO_DISABLE_EXTERNAL_SKILLS`` is truthy.
3. ``global-zuno``: ``$XDG_CONFIG_HOME/zuno``, then ``$ZUNO_CONFIG_DIR`` when set, non-empty
   and different; prefix ``skill``, dot-dirs skipped. A directory whose canonical path was
   already a row-1 root is left out (its files would only be aliases).
4. ``global-agents``: ``~/.agents`` only if it is a directory, prefix ``skills``, dot-dirs
   scanned. Removed by ``ZUNO_DISABLE_EXTERNAL_SKILLS``.
5. ``configured-path``: each ``skills.paths`` entry expanded per SPEC D3, no prefix, dot-dirs
   skipped; an entry that is not a directory gives warning ``PathNotFound`` and no root.
6. ``remote``: each remote cache directory, no prefix, dot-dirs skipped.

``.claude``, ``.opencode``, ``~/.zuno`` and a plural ``zuno/skills`` are never roots (Z001,
Z018, Z019); :func:`skillshelf.core.discovery.uncovered_folders` hints about them instead.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import replace

from skillshelf.core.discovery import Discovery, discover, uncovered_folders
from skillshelf.core.model import CatalogWarning, Provenance, Root
from skillshelf.core.paths import (
    AUTO_WORKTREE,
    Environment,
    WorktreeArg,
    canonical,
    expand_path,
    find_worktree,
    is_within,
    project_walk,
    resolve_worktree,
)

__all__ = [
    "AGENTS_DIR",
    "DISABLE_EXTERNAL_SKILLS",
    "DISABLE_PROJECT_CONFIG",
    "PROJECT_CONFIG_DIR",
    "git_worktree",
    "path_not_found",
    "uncovered_folders",
    "zuno_discover",
    "zuno_remote_cache_root",
    "zuno_roots",
    "zuno_watch_roots",
]

#: Project configuration directory name (row 1).
PROJECT_CONFIG_DIR = ".zuno"
#: Agent Skills shared directory name (rows 2 and 4).
AGENTS_DIR = ".agents"
#: Switch removing rows 2 and 4 (SPEC D2).
DISABLE_EXTERNAL_SKILLS = "ZUNO_DISABLE_EXTERNAL_SKILLS"
#: Switch removing row 1 (SPEC D2).
DISABLE_PROJECT_CONFIG = "ZUNO_DISABLE_PROJECT_CONFIG"
#: Extra global configuration directory (row 3).
CONFIG_DIR = "ZUNO_CONFIG_DIR"

ZUNO_PREFIX = "skill"
AGENTS_PREFIX = "skills"


#: How long one ``git rev-parse`` may take before the worktree counts as unknown, seconds.
GIT_TIMEOUT = 5.0
_WORKTREES: dict[tuple[str, int, float, str], str | None] = {}
_WORKTREE_LOCK = threading.Lock()


def _git(cwd: str, env: Environment, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, env=dict(env.vars), capture_output=True,
                              timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def git_worktree(cwd: str, env: Environment) -> str | None:
    """The worktree Zuno uses for ``cwd`` (conformance Z-T; ``zuno-paths`` ``discover_repository``):
    the nearest ancestor holding ``.git``, confirmed by asking git there. ``git rev-parse
    --git-dir`` and ``--git-common-dir`` must succeed (else: no worktree, the walks go to ``/``);
    the worktree is ``git rev-parse --show-toplevel``, or the folder holding ``.git`` when that
    fails (a bare repository). Without git on ``PATH`` there is no worktree. Each git call is
    bounded by :data:`GIT_TIMEOUT`; answers are remembered per ``.git`` (path and mtime)."""
    marker_dir = find_worktree(cwd)
    if marker_dir is None:
        return None
    marker = os.path.join(marker_dir, ".git")
    try:
        st = os.lstat(marker)
    except OSError:
        return None
    key = (marker, st.st_ino, st.st_mtime, env.get("PATH") or "")
    with _WORKTREE_LOCK:
        if key in _WORKTREES:
            return _WORKTREES[key]
    result: str | None = None
    if _git(marker_dir, env, "rev-parse", "--git-dir") is not None and \
            _git(marker_dir, env, "rev-parse", "--git-common-dir") is not None:
        top = _git(marker_dir, env, "rev-parse", "--show-toplevel")
        top = top.rstrip("\r\n") if top is not None else ""
        result = os.path.normpath(os.path.join(marker_dir, top)) if top else marker_dir
    with _WORKTREE_LOCK:
        _WORKTREES[key] = result
    return result


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(os.path.abspath(cwd), path))


def path_not_found(path: str) -> CatalogWarning:
    """Zuno's ``PathNotFound`` warning for an expanded ``skills.paths`` entry (SPEC D3, Z025)."""
    return CatalogWarning(kind="PathNotFound", source=path, message=f"skill path not found: {path}")


def zuno_remote_cache_root(env: Environment, cwd: str = "/") -> str:
    """Where pulled remote skills are cached: ``$XDG_CACHE_HOME/zuno/skills`` (Z031).

    A relative ``XDG_CACHE_HOME`` is resolved against ``cwd``.
    """
    return os.path.join(_absolute(env.xdg_cache_home, cwd), "zuno", "skills")


def zuno_roots(
    env: Environment,
    cwd: str,
    *,
    paths: Sequence[str] = (),
    remote_dirs: Sequence[str] = (),
    worktree: WorktreeArg = AUTO_WORKTREE,
) -> tuple[tuple[Root, ...], tuple[CatalogWarning, ...]]:
    """The host-``zuno`` roots for working directory ``cwd``, in discovery order (SPEC D1).

    ``paths``: the merged ``skills.paths`` entries as written in the configuration.
    ``remote_dirs``: remote cache directories already pulled (SPEC R). ``worktree``: the walk's
    stop directory; by default the nearest ancestor holding ``.git``
    (:func:`~skillshelf.core.paths.find_worktree`); pass ``None`` for "no worktree" (walk to
    ``/``). Each :class:`Root` records ``exists`` = its ``scan_dir`` is a directory right now.

    Returns ``(roots, warnings)``; ``warnings`` holds one ``PathNotFound`` per ``skills.paths``
    entry that is not a directory, in entry order. Row details: module docstring.
    Never raises for file-system problems.
    """
    cwd = os.path.abspath(cwd)
    stop = resolve_worktree(cwd, worktree)
    walk = project_walk(cwd, stop)
    external = not env.flag(DISABLE_EXTERNAL_SKILLS)
    roots: list[Root] = []
    warnings: list[CatalogWarning] = []

    def add(provenance: Provenance, path: str, prefix: str, dot: bool) -> Root:
        root = Root(provenance=provenance, path=path, prefix=prefix, dot=dot)
        root = replace(root, exists=os.path.isdir(root.scan_dir))
        roots.append(root)
        return root

    project_zuno: set[str] = set()
    if not env.flag(DISABLE_PROJECT_CONFIG):
        for directory in walk:
            candidate = os.path.join(directory, PROJECT_CONFIG_DIR)
            if os.path.exists(candidate):
                add(Provenance.PROJECT_ZUNO, candidate, ZUNO_PREFIX, False)
                project_zuno.add(canonical(candidate))

    if external:
        for directory in walk:
            candidate = os.path.join(directory, AGENTS_DIR)
            if os.path.exists(candidate):
                add(Provenance.PROJECT_AGENTS, candidate, AGENTS_PREFIX, True)

    config = os.path.join(_absolute(env.xdg_config_home, cwd), "zuno")
    user_dirs = [config]
    extra = env.get(CONFIG_DIR)
    if extra:
        extra_dir = _absolute(extra, cwd)
        if extra_dir not in user_dirs:
            user_dirs.append(extra_dir)
    for directory in user_dirs:
        if canonical(directory) in project_zuno:
            continue
        add(Provenance.GLOBAL_ZUNO, directory, ZUNO_PREFIX, False)

    if external:
        agents = os.path.join(_absolute(env.home, cwd), AGENTS_DIR)
        if os.path.isdir(agents):
            add(Provenance.GLOBAL_AGENTS, agents, AGENTS_PREFIX, True)

    for entry in paths:
        directory = expand_path(entry, home=env.home, cwd=cwd)
        if not os.path.isdir(directory):
            warnings.append(path_not_found(directory))
            continue
        add(Provenance.CONFIGURED_PATH, directory, "", False)

    for remote in remote_dirs:
        add(Provenance.REMOTE, _absolute(remote, cwd), "", False)

    return tuple(roots), tuple(warnings)


def zuno_discover(
    env: Environment,
    cwd: str,
    *,
    paths: Sequence[str] = (),
    remote_dirs: Sequence[str] = (),
    worktree: WorktreeArg = AUTO_WORKTREE,
    hints: bool = False,
) -> Discovery:
    """:func:`zuno_roots` then :func:`~skillshelf.core.discovery.discover` in one call.

    Root-building warnings (``PathNotFound``) come first in ``Discovery.warnings``. With
    ``hints=True`` the browser-only ``uncovered-folder`` diagnostics (SPEC D2) are attached.
    """
    stop = resolve_worktree(os.path.abspath(cwd), worktree)
    roots, warnings = zuno_roots(env, cwd, paths=paths, remote_dirs=remote_dirs, worktree=stop)
    diagnostics = uncovered_folders(env, cwd, roots, worktree=stop) if hints else ()
    return discover(roots, warnings=warnings, diagnostics=diagnostics)


def zuno_watch_roots(
    env: Environment,
    cwd: str,
    *,
    paths: Sequence[str] = (),
    config_paths: Sequence[str] = (),
    worktree: WorktreeArg = AUTO_WORKTREE,
) -> tuple[str, ...]:
    """Directories whose changes can alter host-``zuno`` discovery (SPEC H4; host
    ``SkillOptions::watch_roots``), including ones that do not exist yet.

    Candidates: the worktree (or ``cwd`` without one) — it holds every project ``.zuno`` and
    ``.agents``; ``$XDG_CONFIG_HOME/zuno/skill``; ``$ZUNO_CONFIG_DIR/skill`` when set and
    non-empty; ``~/.agents/skills`` only when it is a directory now and external skills are not
    disabled; every ``skills.paths`` entry and every ``skills.config`` ``path``
    (``config_paths``), expanded per SPEC D3, a file or a ``SKILL.md`` target replaced by its
    parent. Each is canonicalised (normalised when it does not exist), then the list is sorted
    by component count and a candidate is dropped when it equals one already kept or lies
    inside a kept *existing* directory (watched recursively). The remote cache is never a
    watch root. Returns absolute paths, shallowest first.
    """
    cwd = os.path.abspath(cwd)
    stop = resolve_worktree(cwd, worktree)
    candidates = [stop if stop is not None else cwd]
    candidates.append(os.path.join(_absolute(env.xdg_config_home, cwd), "zuno", ZUNO_PREFIX))
    extra = env.get(CONFIG_DIR)
    if extra:
        candidates.append(os.path.join(_absolute(extra, cwd), ZUNO_PREFIX))
    shared = os.path.join(_absolute(env.home, cwd), AGENTS_DIR, AGENTS_PREFIX)
    if not env.flag(DISABLE_EXTERNAL_SKILLS) and os.path.isdir(shared):
        candidates.append(shared)
    for entry in list(paths) + list(config_paths):
        candidates.append(expand_path(entry, home=env.home, cwd=cwd))
    targets: list[str] = []
    for path in candidates:
        if os.path.isfile(path) or os.path.basename(path).lower() == "skill.md":
            path = os.path.dirname(path)
        if path:
            targets.append(canonical(path))
    targets.sort(key=lambda p: len([c for c in p.split("/") if c]))
    kept: list[str] = []
    for path in targets:
        if any(path == k or (os.path.isdir(k) and is_within(path, k)) for k in kept):
            continue
        kept.append(path)
    return tuple(kept)
