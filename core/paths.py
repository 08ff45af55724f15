"""Home, XDG, worktree walk and path expansion for discovery (SPEC D1, D3, C1).

Everything here is a pure function of its arguments plus the file system: the process
environment is read exactly once, at the edge, by :meth:`Environment.from_mapping` (called
with ``None``), and the resulting value is passed down (SPEC C1; DESIGN "Style").

Paths are ``str`` throughout (POSIX spelling, ``/`` separator); nothing here resolves symlinks
except :func:`canonical`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "AUTO_WORKTREE",
    "AutoWorktree",
    "Environment",
    "WorktreeArg",
    "canonical",
    "expand_path",
    "find_worktree",
    "is_within",
    "own_home",
    "private_dirs",
    "project_walk",
    "working_directory",
    "write_private",
]


@dataclass(frozen=True)
class Environment:
    """The environment inputs that decide where skills live (SPEC C1, D1).

    ``home`` is ``$HOME`` (an empty value counts as unset and falls back to the account's home
    directory, as Node's ``os.homedir()`` does). ``xdg_config_home`` / ``xdg_cache_home`` are
    ``$XDG_CONFIG_HOME`` / ``$XDG_CACHE_HOME`` when non-empty, else ``home/.config`` /
    ``home/.cache`` (Zuno's ``||`` semantics: an empty variable falls back; a relative one is
    kept verbatim and resolved later against the working directory). ``vars`` is the whole
    mapping, read-only (``ZUNO_*`` switches, ``ZUNO_CONFIG_DIR`` …).

    Build it once at the edge (CLI / app) and pass it down; core never reads ``os.environ``.
    """

    home: str
    xdg_config_home: str
    xdg_cache_home: str
    vars: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def from_mapping(cls, env: Mapping[str, str] | None = None) -> Environment:
        """Snapshot ``env`` (``None`` → a copy of ``os.environ``, the only place that is read).

        Never raises. ``HOME`` missing or empty → ``os.path.expanduser('~')`` (which consults
        the password database when ``HOME`` is unset).
        """
        source = dict(os.environ if env is None else env)
        home = source.get("HOME") or os.path.expanduser("~")
        if not home or home.startswith("~"):
            home = "/"
        config = source.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        cache = source.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
        return cls(home=home, xdg_config_home=config, xdg_cache_home=cache,
                   vars=MappingProxyType(source))

    def get(self, key: str) -> str | None:
        """The raw value of ``key`` (present even when empty), or ``None`` when unset."""
        return self.vars.get(key)

    def flag(self, key: str) -> bool:
        """Zuno's ``Flag.truthy`` (conformance Z021): true iff the value is ``"1"`` or ``"true"``.

        The comparison with ``true`` ignores ASCII case, as the host does
        (``zuno-paths/src/env.rs`` ``Env::flag`` lower-cases before comparing), so ``TRUE``
        and ``True`` are truthy too; ``yes``, ``0``, ``""`` and an unset key are not.
        """
        value = self.vars.get(key)
        if value is None:
            return False
        return value == "1" or value.lower() == "true"


def _normal(path: str) -> str:
    """``os.path.normpath`` but keeping ``//`` → ``/`` at the start (POSIX spelling)."""
    out = os.path.normpath(path)
    if out.startswith("//"):
        out = "/" + out.lstrip("/")
    return out


class AutoWorktree:
    """Type of :data:`AUTO_WORKTREE`."""

    def __repr__(self) -> str:
        return "AUTO_WORKTREE"


#: Default for ``worktree=`` parameters: "find it with :func:`find_worktree`". Pass ``None``
#: explicitly for "no worktree" (the walk then runs to ``/``).
AUTO_WORKTREE = AutoWorktree()

#: A ``worktree=`` argument: a directory, ``None`` (no worktree) or :data:`AUTO_WORKTREE`.
WorktreeArg = str | AutoWorktree | None


def own_home(home: str) -> str:
    """The home directory skillshelf keeps its own folders under: ``home`` when absolute, else
    (a relative ``$HOME``) the account's home directory from the password database, so they are
    never made in the working directory; ``home`` when there is none."""
    if os.path.isabs(home):
        return home
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir or home
    except (KeyError, OSError):
        return home


def working_directory(cwd: str | None) -> str:
    """The absolute working directory a command works in: ``cwd`` (``--cwd``) made absolute,
    else the process's current directory. Raises ``OSError`` whose ``str`` is the message to
    show: ``NotADirectoryError`` (``--cwd /x: not a directory``) or ``FileNotFoundError`` (the
    current directory was deleted: ``the current directory no longer exists …``)."""
    try:
        path = os.path.abspath(cwd or os.getcwd())
    except FileNotFoundError:
        raise FileNotFoundError(
            "the current directory no longer exists: run skillshelf from an existing directory or give "
            "--cwd DIR") from None
    if not os.path.isdir(path):
        raise NotADirectoryError(f"--cwd {path}: not a directory")
    return path


def resolve_worktree(cwd: str, worktree: WorktreeArg) -> str | None:
    """``find_worktree(cwd)`` for :data:`AUTO_WORKTREE`, else ``worktree`` unchanged."""
    if isinstance(worktree, AutoWorktree):
        return find_worktree(cwd)
    return worktree


def find_worktree(cwd: str) -> str | None:
    """The nearest ancestor of ``cwd`` (``cwd`` included) holding ``.git`` — file or directory.

    ``cwd`` is made absolute and normalised first (no symlink resolution), and the result is
    spelled the same way, so it compares equal by string to an entry of :func:`project_walk`
    (SPEC D1). ``None`` when no ancestor has one. Never raises.
    """
    current = _normal(os.path.abspath(cwd))
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def project_walk(cwd: str, worktree: str | None) -> list[str]:
    """Directories from ``cwd`` up to ``worktree`` inclusive, nearest first (SPEC D1).

    Zuno's ``walk::up``: the stop test is *string equality* against ``worktree`` (both are
    normalised to absolute paths first), checked after a directory is added, so the worktree
    itself is included. A ``worktree`` that is not on the chain — or ``None`` — never matches
    and the walk runs to the filesystem root ``/``.
    """
    current = _normal(os.path.abspath(cwd))
    stop = _normal(os.path.abspath(worktree)) if worktree is not None else None
    out: list[str] = []
    while True:
        out.append(current)
        if stop is not None and current == stop:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return out


def expand_path(entry: str, *, home: str, cwd: str) -> str:
    """A ``skills.paths`` entry as an absolute, normalised path (SPEC D3).

    A leading ``~/`` is replaced by ``home``; anything still relative is joined to ``cwd``
    (the working directory, *not* the worktree). Only the ``~/`` prefix expands — exactly as
    the host does (``strip_prefix("~/")``): a bare ``~`` or ``~user`` is an ordinary relative
    name. ``.`` and ``..`` components are folded lexically; symlinks are not resolved.
    """
    expanded = os.path.join(home, entry[2:]) if entry.startswith("~/") else entry
    if not os.path.isabs(expanded):
        expanded = os.path.join(os.path.abspath(cwd), expanded)
    return _normal(expanded)


#: Attempts :func:`canonical` makes before it settles for the lexical form.
CANONICAL_ATTEMPTS = 4


def canonical(path: str) -> str:
    """The symlink-resolved absolute path (identity, SPEC D5); ``normpath`` when that fails.

    Never raises. ``os.path.realpath`` raises when a symlink on the way vanishes or changes
    between its ``lstat`` and its ``readlink`` (a tree changing while it is scanned): that is
    retried, up to :data:`CANONICAL_ATTEMPTS` times, and only then — or on ``ValueError`` (NUL)
    — the lexical normal form of the absolute path is returned (the host's
    ``canonical_or_normalized``). A relative ``path`` needs the process's working directory.
    """
    for _ in range(CANONICAL_ATTEMPTS):
        try:
            return os.path.realpath(path, strict=False)
        except ValueError:
            break
        except OSError:
            continue
    try:
        return _normal(os.path.abspath(path))
    except OSError:  # the working directory itself is gone
        return _normal(path)


def is_within(path: str, directory: str) -> bool:
    """True when ``path`` is ``directory`` or below it, comparing whole components (SPEC K3).

    Never a string prefix: ``/a/b`` covers ``/a/b`` and ``/a/b/c`` but not ``/a/bc``. Both
    arguments are normalised lexically first; no file-system access.
    """
    p = _normal(path)
    d = _normal(directory)
    if p == d:
        return True
    if d == "/":
        return p.startswith("/")
    return p.startswith(d + "/")


def private_dirs(directory: str) -> None:
    """``os.makedirs(directory, exist_ok=True)`` with every folder it makes private (0700) —
    ``makedirs`` gives its ``mode`` to the last folder only, and a cache holds the user's skill
    paths and texts. Folders that exist are left as they are. Raises ``OSError`` as ``makedirs``
    does."""
    missing: list[str] = []
    d = os.path.abspath(directory)
    while not os.path.isdir(d):
        missing.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            if not os.path.isdir(d):
                raise


def write_private(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` as a private file (0600) in private folders
    (:func:`private_dirs`): a new temporary file beside it (never a name another process could
    plant a link at), renamed over ``path``. Raises ``OSError``; no temporary file is left."""
    import tempfile

    directory = os.path.dirname(path) or "."
    private_dirs(directory)
    fd, tmp = tempfile.mkstemp(prefix=".skillshelf-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
