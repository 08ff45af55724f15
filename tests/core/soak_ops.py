"""Random file-system operations on skill roots, for soak tests of live reload (SPEC H2–H4).

Used by ``test_watch_soak.py`` (through the real watcher) and ``benchmarks/bench_soak.py``.
The operations are what people and tools do to skill folders: create (also ``mkdir -p`` deep),
edit, break, fix, rename in place, move into a freshly created subfolder of the same or another
root, move a whole folder of skills across roots, delete, symlink, unlink, sidecars, hidden
folders. Every operation touches the disk only; nothing here tells the catalog anything.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from skillshelf.core.paths import Environment

#: Operation kinds and their weights.
OPERATIONS: tuple[tuple[str, int], ...] = (
    ("create", 3), ("mkdir-p", 1), ("edit", 3), ("break", 2), ("fix", 2), ("rename", 2),
    ("move-into-new-subfolder", 3), ("move-folder-across-roots", 1), ("delete", 2), ("symlink", 1),
    ("unlink", 1), ("sidecar", 1), ("hidden", 1),
)

BROKEN = ("---\nname: x\ndescription: [\n---\n", "---\ndescription: nameless\n---\n", "no frontmatter\n")
SIDECARS = ("policy:\n  exposure: search\n", "policy:\n  exposure: bogus\n", "interface:\n  display_name: Shown\n")


def skill_text(name: str, description: str = "Soak skill", body: str = "body\n") -> str:
    """A valid ``SKILL.md`` for every host."""
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def write(path: str, text: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


@dataclass
class Workspace:
    """``T/project`` (a git worktree), ``T/home`` and ``T/shared`` (passed as ``--path``), and the
    skill ``roots`` the soak writes into for one host (some missing at the start)."""

    t: str
    host: str
    roots: list[str] = field(default_factory=list)

    @property
    def project(self) -> str:
        return os.path.join(self.t, "project")

    @property
    def home(self) -> str:
        return os.path.join(self.t, "home")

    @property
    def shared(self) -> str:
        return os.path.join(self.t, "shared")

    @property
    def env(self) -> Environment:
        return Environment.from_mapping({"HOME": self.home})

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.shared,)


#: Skill roots per host, relative to T (``{p}`` project, ``{h}`` home, ``{s}`` shared); the last
#: one of each list is missing when the soak starts.
HOST_ROOTS: dict[str, tuple[str, ...]] = {
    "zuno": ("{p}/.agents/skills", "{p}/.zuno/skill", "{s}", "{h}/.agents/skills", "{h}/.config/zuno/skill"),
    "zhin": ("{p}/skills", "{s}"),
    "claude": ("{p}/.claude/skills", "{h}/.claude/skills", "{s}/.claude/skills"),
    "codex": ("{h}/.codex/skills", "{h}/.agents/skills", "{p}/.agents/skills"),
    "opencode": ("{h}/.config/opencode/skill", "{p}/.opencode/skill", "{p}/.claude/skills", "{p}/.agents/skills"),
    "gemini": ("{h}/.gemini/skills", "{h}/.agents/skills", "{p}/.gemini/skills", "{p}/.agents/skills"),
}


def make_workspace(tmp: str, host: str, seeds: int = 8) -> Workspace:
    """The workspace for ``host`` with ``seeds`` skills spread over its roots but the last."""
    t = os.path.realpath(tmp)
    ws = Workspace(t, host)
    os.makedirs(os.path.join(ws.project, ".git"))
    os.makedirs(ws.home)
    ws.roots = [r.format(p=ws.project, h=ws.home, s=ws.shared) for r in HOST_ROOTS[host]]
    present = ws.roots[:-1] if len(ws.roots) > 1 else ws.roots
    for i in range(seeds):
        write(os.path.join(present[i % len(present)], f"seed{i}", "SKILL.md"), skill_text(f"n{i}"))
    return ws


def skill_dirs(roots: Sequence[str]) -> list[str]:
    """Every directory holding a ``SKILL.md`` under ``roots`` (symlinks not followed), sorted."""
    out: list[str] = []
    for r in roots:
        for dirpath, _, filenames in os.walk(r):
            if "SKILL.md" in filenames:
                out.append(dirpath)
    return sorted(set(out))


def _folders(roots: Sequence[str]) -> list[str]:
    """Directories below a root that hold skills further down but no ``SKILL.md`` themselves."""
    out: list[str] = []
    for r in roots:
        for dirpath, dirnames, filenames in os.walk(r):
            if dirpath != r and "SKILL.md" not in filenames and dirnames and not os.path.islink(dirpath):
                out.append(dirpath)
    return sorted(out)


def _inside(path: str, other: str) -> bool:
    return path == other or path.startswith(other + "/")


def run_operations(ws: Workspace, rng: random.Random, count: int,
                   after: Callable[[str], None] = lambda kind: None) -> dict[str, int]:
    """Apply ``count`` random operations to ``ws``'s roots; ``after(kind)`` runs after each
    (pacing). Returns how many of each kind were applied (skipped ones are retried as another)."""
    kinds = [k for k, _ in OPERATIONS]
    weights = [w for _, w in OPERATIONS]
    done: dict[str, int] = {}
    n = 0
    while sum(done.values()) < count:
        n += 1
        kind = rng.choices(kinds, weights)[0]
        if _apply(ws, rng, kind, n):
            done[kind] = done.get(kind, 0) + 1
            after(kind)
    return done


def _apply(ws: Workspace, rng: random.Random, kind: str, n: int) -> bool:
    roots = ws.roots
    dirs = skill_dirs(roots)
    if kind in ("create", "mkdir-p", "hidden") or not dirs:
        top = os.path.join(rng.choice(roots), (".h" if kind == "hidden" else "") + f"s{n}")
        leaf = os.path.join(top, "inner", "deep") if kind == "mkdir-p" else top
        write(os.path.join(leaf, "SKILL.md"), skill_text(f"n{rng.randint(0, 40)}"))
        return True
    d = rng.choice(dirs)
    loc = os.path.join(d, "SKILL.md")
    if kind == "edit":
        write(loc, skill_text(f"n{rng.randint(0, 40)}", f"d{n}", f"b{n}\n"))
    elif kind == "break":
        write(loc, rng.choice(BROKEN))
    elif kind == "fix":
        write(loc, skill_text(f"n{rng.randint(0, 40)}"))
    elif kind in ("rename", "move-into-new-subfolder"):
        if os.path.islink(d) or any(os.path.islink(x) for x in _ancestors(d, roots)):
            return False
        if kind == "rename":
            new = os.path.join(os.path.dirname(d), f"r{n}")
        else:
            new = os.path.join(rng.choice(roots), f"sub{n}", *(["deeper"] if rng.random() < 0.4 else []), f"m{n}")
        if _inside(new, d):
            return False
        os.makedirs(os.path.dirname(new), exist_ok=True)
        os.rename(d, new)
        if rng.random() < 0.5:  # edited right after the move, as an installer would
            write(os.path.join(new, "SKILL.md"), skill_text(f"n{rng.randint(0, 40)}", f"moved {n}"))
    elif kind == "move-folder-across-roots":
        folders = [f for f in _folders(roots) if not any(os.path.islink(x) for x in _ancestors(f, roots))]
        if not folders:
            return False
        src = rng.choice(folders)
        new = os.path.join(rng.choice(roots), f"group{n}", os.path.basename(src))
        if _inside(new, src):
            return False
        os.makedirs(os.path.dirname(new), exist_ok=True)
        os.rename(src, new)
    elif kind == "delete":
        if os.path.islink(d):
            os.remove(d)
        else:
            shutil.rmtree(d, ignore_errors=True)
    elif kind == "symlink":
        link = os.path.join(rng.choice(roots), f"l{n}")
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.realpath(d), link)
    elif kind == "unlink":
        links = sorted(os.path.join(r, x) for r in roots if os.path.isdir(r) for x in os.listdir(r)
                       if os.path.islink(os.path.join(r, x)))
        if not links:
            return False
        os.remove(rng.choice(links))
    elif kind == "sidecar":
        write(os.path.join(d, "agents", "zuno.yaml"), rng.choice(SIDECARS))
    else:
        raise ValueError(kind)
    return True


def _ancestors(path: str, roots: Sequence[str]) -> list[str]:
    """``path`` and its ancestors up to (not including) the root it lies in."""
    out = []
    x = path
    while x and not any(x == r for r in roots) and x != os.path.dirname(x):
        out.append(x)
        x = os.path.dirname(x)
    return out


def repair(ws: Workspace) -> None:
    """Make every skill valid again (so a fresh catalog, which has no kept-last-valid history,
    can be compared) and drop every sidecar folder."""
    for base in ws.roots:
        for dirpath, dirnames, filenames in os.walk(base):
            if "SKILL.md" in filenames:
                write(os.path.join(dirpath, "SKILL.md"), skill_text(os.path.basename(dirpath)))
            if "agents" in dirnames and not os.path.islink(os.path.join(dirpath, "agents")):
                shutil.rmtree(os.path.join(dirpath, "agents"))
                dirnames.remove("agents")
