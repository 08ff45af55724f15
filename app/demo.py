"""The ``--demo`` workspace (SPEC C3).

The package ships a small, realistic workspace under ``demo_workspace/`` (package data):

``home/``
    a fake home directory: ``.config/zuno/skill/`` (global-zuno root) and ``.agents/skills/``
    (global-agents root), with sidecars (``agents/openai.yaml`` display name and short
    description, ``agents/zuno.yaml`` ``policy.exposure: search``).
``project/``
    the working directory: ``.zuno/skill/`` and ``.agents/skills/`` (project roots),
    ``.zuno/zuno.json`` (``skills.paths`` → ``extra-skills``, a ``maxContextTokens`` small enough
    that the index truncates, and ``skills.config`` rules making one skill search-only, one
    explicit and one disabled), ``extra-skills/`` (configured path, with a nested category
    folder) and ``.claude/skills/`` (no root covers it: the uncovered-folder hint).

It holds a same-name conflict (``pdf`` in the project and in the home), a search-only skill, an
explicit skill, a disabled skill, a skill the host rescues with the sanitize retry (unquoted
colon in its description), a skill it rejects (unquoted colon in ``allowed-tools``), a skill
without a ``name`` and a skill with a ``references/`` file.

:func:`prepare_demo` copies that tree into a fresh directory so the user may edit it live
(the watcher picks the edits up) without touching the installed package.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["DEMO_PACKAGE_DIR", "GIT_MARKER", "DemoWorkspace", "prepare_demo"]

DEMO_PACKAGE_DIR = "demo_workspace"
"""Folder of package data (inside ``skillshelf.app``) holding the demo tree."""

GIT_MARKER = "gitdir: nowhere\n"
"""Content of the ``project/.git`` *file* :func:`prepare_demo` writes.

Git refuses to track a path named ``.git``, so the marker cannot ship as package data; it is
created on copy. It makes ``project/`` the worktree (SPEC D1: ``.git`` may be a file) so the
project walk stops there instead of climbing into the temporary directory's parents.
"""


@dataclass(frozen=True)
class DemoWorkspace:
    """A prepared demo workspace.

    ``root`` is the absolute, symlink-resolved directory holding ``home/`` and ``project/``;
    ``cwd`` is ``root/project`` (the working directory to open the catalog in); ``env`` is a copy
    of the process environment with ``HOME`` = ``root/home``, ``XDG_CONFIG_HOME`` =
    ``root/home/.config``, ``XDG_CACHE_HOME`` = ``root/home/.cache`` and every ``ZUNO_*``
    variable removed (SPEC C1), so the user's real skills and configuration do not leak in.
    """

    root: str
    cwd: str
    env: dict[str, str] = field(compare=False)

    @property
    def home(self) -> str:
        """``root/home`` (the fake ``$HOME``)."""
        return os.path.join(self.root, "home")


def _copy_tree(src: Traversable, dest: str) -> None:
    """Copy a package-data directory (any :class:`Traversable`, also inside a zip) to ``dest``.

    Dot-files and dot-directories are copied like any other entry. Existing files are
    overwritten. Raises ``OSError`` if ``dest`` cannot be written.
    """
    os.makedirs(dest, exist_ok=True)
    for child in src.iterdir():
        target = os.path.join(dest, child.name)
        if child.is_dir():
            _copy_tree(child, target)
        elif child.is_file():
            with open(target, "wb") as fh:
                fh.write(child.read_bytes())


def demo_source() -> Traversable:
    """The packaged demo tree (``skillshelf.app/demo_workspace``)."""
    return resources.files("skillshelf.app").joinpath(DEMO_PACKAGE_DIR)


def demo_env(root: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a demo at ``root``: ``base`` (default ``os.environ``) with ``HOME``,
    ``XDG_CONFIG_HOME``, ``XDG_CACHE_HOME``, ``XDG_STATE_HOME`` inside ``root/home`` (so the demo's
    writes go to a journal of its own, deleted with it), all ``ZUNO_*``, ``SKILLSHELF_STATE_DIR``
    and the clients' own overrides (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``GEMINI_CLI_HOME``,
    ``OPENCODE_*``) unset, and the project trusted for Gemini CLI (``GEMINI_CLI_TRUST_WORKSPACE=true``, as after
    answering its trust prompt), so every host shows the demo's skills."""
    drop = ("ZUNO_", "OPENCODE_", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "SKILLSHELF_STATE_DIR")
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith(drop)}
    env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    home = os.path.join(root, "home")
    env["HOME"] = home
    env["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
    env["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    env["XDG_STATE_HOME"] = os.path.join(home, ".local", "state")
    return env


def prepare_demo(target_dir: str | None = None) -> DemoWorkspace:
    """Copy the packaged demo workspace and return where it is (SPEC C3).

    ``target_dir`` ``None`` creates a fresh temporary directory (``skillshelf-demo-*``; the
    caller may delete it when done); otherwise the tree is copied into ``target_dir`` (created
    if missing; files already there with the same names are overwritten). The copy includes
    every dot-directory (``.zuno``, ``.agents``, ``.config``, ``.claude``) and gets a
    ``project/.git`` marker file (:data:`GIT_MARKER`). Raises ``FileNotFoundError`` when the
    package data is missing (a broken install), ``OSError`` when the target is not writable.
    """
    src = demo_source()
    if not src.is_dir():
        raise FileNotFoundError(f"demo workspace missing from the package: {src}")
    if target_dir is None:
        target_dir = tempfile.mkdtemp(prefix="skillshelf-demo-")
    root = os.path.realpath(target_dir)
    _copy_tree(src, root)
    project = os.path.join(root, "project")
    git = os.path.join(project, ".git")
    if not os.path.exists(git):
        with open(git, "w", encoding="utf-8") as fh:
            fh.write(GIT_MARKER)
    os.makedirs(os.path.join(root, "home", ".cache"), exist_ok=True)
    return DemoWorkspace(root=root, cwd=project, env=demo_env(root))
