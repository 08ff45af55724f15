"""Host ``zuno``: what a first build depended on, kept so that a later run can prove it
unchanged without building (the kept command output, :mod:`skillshelf.core.keptoutput`).

A first build (:meth:`~skillshelf.core.hosts.zuno.build.ZunoSession.build`) is a function of:

- the *workspace inputs* — the git-confirmed worktree, the merged configuration (every layer's
  parsed value and text, its diagnostics, its resolved ``skills.config`` rules), the roots and
  their warnings, the uncovered-folder hints, whether and what ``skills.urls`` pulled (a pull
  is never proved: a build that pulled keeps no proof), and the identity of the two files read
  for the prompt besides the skills — the Zuno executable its texts come from and the model
  catalog its context window comes from;
- the *walk* of every root (:class:`~skillshelf.core.scanproof.ScanProof`);
- every skill directory's files (:func:`dir_keys`: ``SKILL.md`` and, when ``agents/`` exists,
  both sidecars — size, times, inode, device; a file younger than the racy window is never
  trusted).

:func:`record` makes the proof from what the build used (values computed, keys taken *before*
the files were read); :func:`holds` recomputes the workspace inputs with the same functions the
build calls (:func:`workspace_config`, :func:`workspace_roots`, :func:`workspace_hints`) and
compares them, then re-checks the walks and the keys. A proof that holds means a build now
would produce exactly the generation the recorded build produced (and that every folder the
walks listed has the same entries as when the build looked). This module imports only
what that check needs (no YAML, no parser, no build).
"""

from __future__ import annotations

import os
import stat as stat_mod
import time
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from skillshelf.core import parsecache
from skillshelf.core.config import Config, load_config
from skillshelf.core.hosts.zuno.roots import git_worktree, uncovered_folders, zuno_roots
from skillshelf.core.model import CatalogWarning, Diagnostic, Root
from skillshelf.core.parsecache import StatKey, stat_key
from skillshelf.core.paths import Environment

if TYPE_CHECKING:
    from skillshelf.core.scanproof import ScanProof

__all__ = [
    "FORMAT",
    "dir_keys",
    "dir_keys_stat",
    "executable_identity",
    "file_identity",
    "file_key",
    "holds",
    "inputs_text",
    "record",
    "workspace_config",
    "workspace_hints",
    "workspace_roots",
]

#: Bumped whenever the layout of a recorded proof changes.
FORMAT = 1

#: The folder beside a ``SKILL.md`` that holds its sidecars (``skillshelf.core.sidecar.SIDECAR_DIR``;
#: spelled here so the check never imports the YAML reader).
SIDECAR_DIR = "agents"

#: What a skill directory's files were when read: the ``SKILL.md`` key, then (when an
#: ``agents/`` entry exists) each sidecar's key or ``"missing"``; ``None``: not to be trusted.
DirKeys = tuple["StatKey | str", ...] | None


def file_key(path: str, now_ns: int) -> StatKey | str | None:
    """The identity key of the regular file at ``path`` (symlinks followed), ``"missing"`` when
    there is none, ``None`` when it cannot be trusted (not a regular file, unreadable, or
    changed less than :data:`~skillshelf.core.parsecache.RACY_NS` before ``now_ns``)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return None
    return _trusted_key(st, now_ns)


def _trusted_key(st: os.stat_result, now_ns: int) -> StatKey | None:
    if not stat_mod.S_ISREG(st.st_mode) or now_ns - max(st.st_mtime_ns, st.st_ctime_ns) < parsecache.RACY_NS:
        return None
    return stat_key(st)


def _lexists(path: str) -> bool:
    """:func:`os.path.lexists` without an exception for the usual answer (no ``agents/``)."""
    try:
        return os.access(path, os.F_OK, follow_symlinks=False)
    except (OSError, ValueError, NotImplementedError):
        return os.path.lexists(path)


def dir_keys(location: str, canonical: str, sidecars: tuple[str, str] | Callable[[str], tuple[str, str]],
             now_ns: int, listed: DirKeys | bool = False) -> DirKeys:
    """The identity keys of what a build reads for the skill at ``location``: its ``SKILL.md``
    (``canonical``) and, when ``agents/`` exists beside it, both ``sidecars`` (as spelled: they
    are read so; or a function of the skill directory giving them). ``listed``: the keys kept
    for it when its folder's listing is proved unchanged — then whether ``agents/`` exists is
    known already."""
    skill = file_key(canonical, now_ns)
    if skill is None or skill == "missing":
        return None
    if isinstance(listed, tuple) and len(listed) == 1:
        return (skill,)  # no agents/ entry then, and the listing is the same
    assert not isinstance(skill, str)
    return _with_sidecars(skill, location, sidecars, now_ns)[0]


def _with_sidecars(skill: StatKey, location: str,
                   sidecars: tuple[str, str] | Callable[[str], tuple[str, str]],
                   now_ns: int) -> tuple[DirKeys, bool]:
    skill_dir = location.rsplit("/", 1)[0] or "/"
    if not _lexists(f"{skill_dir}/{SIDECAR_DIR}" if skill_dir != "/" else f"/{SIDECAR_DIR}"):
        return (skill,), False
    if callable(sidecars):
        sidecars = sidecars(skill_dir)
    a = file_key(sidecars[0], now_ns)
    b = file_key(sidecars[1], now_ns)
    if a is None or b is None:
        return None, True
    return (skill, a, b), True


def dir_keys_stat(location: str, canonical: str, sidecars: tuple[str, str] | Callable[[str], tuple[str, str]],
                  now_ns: int) -> tuple[DirKeys, os.stat_result | None, bool | None]:
    """:func:`dir_keys` (no ``listed``) with what it looked at, for the read that follows it:
    the ``stat`` of ``canonical`` (``None`` when it failed) and whether ``agents/`` exists
    beside the skill (``None`` when that was not looked at: the keys are ``None`` already)."""
    try:
        st = os.stat(canonical)
    except (OSError, ValueError):
        return None, None, None
    skill = _trusted_key(st, now_ns)
    if skill is None:
        return None, st, None
    keys, agents = _with_sidecars(skill, location, sidecars, now_ns)
    return keys, st, agents


def file_identity(path: str | None, now_ns: int) -> tuple[Any, ...] | None:
    """What a build that reads the file at ``path`` (``None``: no such file to read) depends
    on, for the proof: the path, its canonical path and the identity keys of both (or the
    ``errno`` of a failed ``stat``); ``None`` when it cannot be trusted (changed within the
    racy window)."""
    if path is None:
        return ("none",)
    out: list[Any] = [path]
    for p in (path, os.path.realpath(path)):
        try:
            st = os.stat(p)
        except OSError as exc:
            out.append((p, -(exc.errno or 0)))
            continue
        if now_ns - max(st.st_mtime_ns, st.st_ctime_ns) < parsecache.RACY_NS:
            return None
        out.append((p, stat_mod.S_IFMT(st.st_mode), *stat_key(st)))
    return tuple(out)


def executable_identity(path: str | None, now_ns: int) -> tuple[Any, ...] | None:
    """:func:`file_identity` of the Zuno executable at ``path``, ``None`` also for a script (a file
    starting ``#!``): a launcher (an npm or version-manager shim, a wrapper) runs other files, and
    what ``zuno debug skill --json`` prints comes from those, which the proof never sees. A
    native executable is taken as self-contained (Zuno ships as one compiled binary)."""
    if path is not None:
        try:
            with open(path, "rb") as fh:
                if fh.read(2) == b"#!":
                    return None
        except OSError:
            pass  # file_identity records why it cannot be read
    return file_identity(path, now_ns)


def zuno_executable(env: Environment) -> str | None:
    """The Zuno executable whose texts the prompt shows (:func:`.installed.find_zuno`)."""
    from skillshelf.core.hosts.zuno.installed import find_zuno

    return find_zuno(env)


def models_file(env: Environment, cwd: str) -> str:
    """The model catalog file the context window is read from (:func:`.window.models_catalog_path`)."""
    from skillshelf.core.hosts.zuno.window import models_catalog_path

    return models_catalog_path(env, cwd)


def workspace_config(cwd: str, env: Environment, config_files: Sequence[str], worktree: str | None) -> Config:
    """The merged configuration a build of this workspace uses (SPEC K1–K4)."""
    return load_config(cwd=cwd, worktree=worktree, home=env.home, xdg_config_home=env.xdg_config_home,
                       env=env.vars, extra_files=config_files)


def workspace_roots(cwd: str, env: Environment, paths: Sequence[str], config: Config,
                    remote_dirs: Sequence[str], worktree: str | None) -> tuple[tuple[Root, ...], tuple[CatalogWarning, ...]]:
    """The roots (and their warnings) a build of this workspace scans (SPEC D1–D3)."""
    return zuno_roots(env, cwd, paths=config.paths + tuple(paths), remote_dirs=remote_dirs, worktree=worktree)


def workspace_hints(cwd: str, env: Environment, roots: Sequence[Root], worktree: str | None) -> tuple[Diagnostic, ...]:
    """The uncovered-folder hints of a build of this workspace."""
    return tuple(uncovered_folders(env, cwd, roots, worktree=worktree))


def inputs_text(*, worktree: str | None, config: Config, roots: Sequence[Root],
                  root_warnings: Sequence[CatalogWarning], hints: Sequence[Diagnostic],
                  context: tuple[Any, ...]) -> str:
    """The workspace inputs (module docstring) as one text, compared whole. ``repr`` is exact for
    them: frozen dataclasses, tuples, read-only mappings, strings and numbers (a layer's text is
    ``repr=False`` in :class:`~skillshelf.core.config.ConfigLayer`, so it is added)."""
    return repr((worktree, config, tuple(layer.text for layer in config.layers), tuple(roots),
                 tuple(root_warnings), tuple(hints), context))


def _ints(rows: Sequence[Sequence[int]]) -> bytes:
    """Rows of integers as one block (signed 64-bit, native order; :class:`OverflowError` for a
    value outside it): loads at ``memcpy`` speed, unlike a tuple per row."""
    return array("q", [v for row in rows for v in row]).tobytes()


def _rows(block: bytes, width: int) -> list[tuple[int, ...]]:
    values = array("q")
    values.frombytes(block)
    it = iter(values)
    return list(zip(*([it] * width), strict=True))


def record(*, context: tuple[Any, ...], inputs: str, proofs: Sequence[ScanProof | None],
           locations: Sequence[str], canonicals: Sequence[str], sidecars: Sequence[tuple[str, str]],
           keys: Sequence[DirKeys]) -> tuple[Any, ...] | None:
    """The proof of a first build (marshal-able and quick to load), or ``None`` when some part of
    it cannot be proved later (a root walked without a proof, a file key not to be trusted).
    ``context``: the workspace's own inputs ``(cwd, paths, config files, context window,
    pull_remote, executable identity, model catalog identity)`` (:func:`file_identity`);
    ``inputs``: :func:`inputs_text` of what the build used (compared whole); ``locations``, ``canonicals``,
    ``sidecars`` and ``keys`` in parallel, one per skill (:func:`dir_keys`)."""
    if any(p is None for p in proofs) or any(k is None for k in keys):
        return None
    walks = []
    for p in proofs:
        assert p is not None
        if any("\0" in d for d in p.dirs):
            return None
        walks.append((p.scan_dir, p.canon, p.absent, "\0".join(p.dirs), p.links))
    plain: list[StatKey] = []
    other: list[tuple[int, tuple[str, str], DirKeys]] = []
    for i, key in enumerate(keys):
        assert key is not None
        if len(key) == 1 and isinstance(key[0], tuple):
            plain.append(key[0])
        else:  # sidecars beside it: checked one by one
            plain.append((0, 0, 0, 0, 0))
            other.append((i, sidecars[i], key))
    if any("\0" in loc for loc in locations):
        return None
    moved = tuple((i, c) for i, (loc, c) in enumerate(zip(locations, canonicals, strict=True)) if c != loc)
    try:
        dir_blocks = tuple(_ints(p.dir_keys) for p in proofs if p is not None)
        key_block = _ints(plain)
    except OverflowError:
        return None
    return (FORMAT, context, inputs, tuple(walks), dir_blocks, "\0".join(locations), moved, key_block, tuple(other))


def holds(proof: Any, env_vars: dict[str, str]) -> frozenset[str] | None:
    """When a first build in the process environment ``env_vars`` would now produce exactly the
    generation whose :func:`record` is ``proof`` (module docstring): the folders whose listings
    were proved unchanged on the way (every folder the walks listed); else ``None``. Never
    raises: a proof of another shape, or any failure, is ``None``."""
    try:
        return _holds(proof, env_vars)
    except Exception:  # a damaged proof is only a reason to build
        return None


def _holds(proof: Any, env_vars: dict[str, str]) -> frozenset[str] | None:
    from skillshelf.core.scanproof import ScanProof

    fmt, context, inputs, walks, dir_blocks, joined, moved, key_block, other = proof
    if fmt != FORMAT:
        return None
    cwd, paths, config_files, context_window, pull_remote, _texts, _models = context
    if not os.path.isdir(cwd):
        return None
    env = Environment.from_mapping(env_vars)
    now = time.time_ns()
    worktree = git_worktree(cwd, env)
    config = workspace_config(cwd, env, config_files, worktree)
    if config.urls and pull_remote:
        return None  # a pull is never proved
    fresh = (cwd, tuple(paths), tuple(config_files), context_window, pull_remote,
             executable_identity(zuno_executable(env), now), file_identity(models_file(env, cwd), now))
    if fresh != tuple(context):
        return None
    roots, root_warnings = workspace_roots(cwd, env, paths, config, (), worktree)
    hints = workspace_hints(cwd, env, roots, worktree)
    if inputs_text(worktree=worktree, config=config, roots=roots, root_warnings=root_warnings, hints=hints,
                     context=fresh) != inputs:
        return None
    if len(walks) != len(roots) or len(dir_blocks) != len(walks):
        return None
    proved: list[str] = []
    for (scan_dir, canon, absent, dirs, links), block in zip(walks, dir_blocks, strict=True):
        listed = tuple(dirs.split("\0")) if dirs else ()
        if not ScanProof(scan_dir, canon, listed, tuple(_rows(block, 5)), tuple(links), absent).holds():  # type: ignore[arg-type]
            return None
        proved.extend(listed)
    # every SKILL.md without sidecars: its identity key, in one tight loop (an equal key means a
    # file older than the racy window already when it was kept)
    locations = joined.split("\0") if joined else []
    canonicals = dict(moved)
    values = array("q")
    values.frombytes(key_block)
    if len(values) != 5 * len(locations):
        return None
    skip = {i for i, _, _ in other}
    stat = os.stat
    j = 0
    for i, loc in enumerate(locations):
        if i not in skip:
            st = stat(canonicals.get(i, loc))
            if (st.st_size != values[j] or st.st_mtime_ns != values[j + 1] or st.st_ctime_ns != values[j + 2]
                    or st.st_ino != values[j + 3] or st.st_dev != values[j + 4]):
                return None
        j += 5
    for i, side, key in other:
        if dir_keys(locations[i], canonicals.get(i, locations[i]), tuple(side), now, key) != key:
            return None
    return frozenset(proved)
