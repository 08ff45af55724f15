"""Benchmark ``compare`` (SPEC N4): 1,000 skill files seen by every registered host.

The tree spreads ``N`` skills over the project and user folders every client reads
(``.agents/skills``, ``.claude/skills``, ``.codex/skills``, ``.gemini/skills``,
``.opencode/skills``, ``.zuno/skill`` and their home counterparts), with same-name copies,
directory symlinks and broken files mixed in. Measured, best of ``--repeat`` runs:

- the CLI: ``skillshelf compare --json`` in a fresh process (wall clock, Python start-up included,
  and the CPU time the process used: on a shared machine the wall clock mostly measures the wait
  for a core, the CPU time what the command costs);
- the TUI screen: :class:`~skillshelf.app.screens.compare.CompareScreen` pushed in a headless app
  until its table is filled (wall clock, and this process's CPU time meanwhile).

The load average is printed with the numbers.

Target (issue "Every client people run"): ≤ 1 s each for 1,000 files and six hosts.
Run: ``python benchmarks/bench_compare.py [N] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

FOLDERS = (
    "project/.agents/skills", "project/.claude/skills", "project/.codex/skills", "project/.gemini/skills",
    "project/.opencode/skills", "project/.zuno/skill", "home/.agents/skills", "home/.claude/skills",
    "home/.codex/skills", "home/.gemini/skills", "home/.config/opencode/skills", "home/.config/zuno/skill",
)
WORDS = ["analyze", "audit", "build", "check", "clean", "deploy", "design", "diff", "export", "format", "lint", "migrate", "parse", "plan", "review", "scan", "test"]


def generate(root: str, n: int, seed: int = 0) -> None:
    """Write ``n`` skills under ``root`` (``project/`` is a git worktree, ``home/`` the HOME)."""
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "project", ".git"), exist_ok=True)
    made: list[str] = []
    for i in range(n):
        folder = FOLDERS[i % len(FOLDERS)]
        name = f"{rng.choice(WORDS)}-{i:04d}"
        if made and rng.random() < 0.03:  # same-name copy of an earlier skill in another folder
            name = os.path.basename(rng.choice(made))
        d = os.path.join(root, folder, name)
        os.makedirs(d, exist_ok=True)
        desc = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
        text = f"---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\n" + "Step.\n" * rng.randint(3, 30)
        if rng.random() < 0.01:
            text = "---\ndescription: no name here\n---\nbody\n"
        with open(os.path.join(d, "SKILL.md"), "w", encoding="utf-8") as fh:
            fh.write(text)
        made.append(d)
    for j, target in enumerate(rng.sample(made, max(1, n // 100))):  # directory symlink aliases
        link = os.path.join(root, FOLDERS[(j + 3) % len(FOLDERS)], f"link-{j:03d}")
        if not os.path.exists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(target, link)


def bench_cli(root: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``skillshelf compare --json`` process."""
    # PYTHONDONTWRITEBYTECODE off, as on a user's machine: byte code is cached after the first run
    drop = ("XDG_", "ZUNO_", "CODEX_", "CLAUDE_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["HOME"] = os.path.join(root, "home")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "skillshelf.app.cli", "compare", "--json", "--cwd",
                    os.path.join(root, "project")], env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench_screen(root: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) from pushing the screen to its table being filled."""
    from textual.app import App

    from skillshelf.app.screens.compare import CompareScreen
    from skillshelf.core.hosts import HOSTS
    from skillshelf.core.hosts.base import HostContext
    from skillshelf.core.paths import Environment

    ctx = HostContext(os.path.join(root, "project"), Environment.from_mapping({"HOME": os.path.join(root, "home")}))
    took: list[tuple[float, float]] = []

    class Bench(App[None]):
        def on_mount(self) -> None:
            self.start = time.perf_counter()
            self.cpu = time.process_time()
            self.push_screen(CompareScreen(ctx, list(HOSTS.values())))

    async def main() -> None:
        app = Bench()
        async with app.run_test(size=(120, 40)) as pilot:
            while True:
                await pilot.pause(0.01)
                screen = app.screen
                if isinstance(screen, CompareScreen) and screen.result is not None:
                    took.append((time.perf_counter() - app.start, time.process_time() - app.cpu))
                    break

    asyncio.run(main())
    return took[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="?", default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    from skillshelf.core.hosts import HOSTS

    with tempfile.TemporaryDirectory() as root:
        generate(root, a.n)
        bench_cli(root)  # warm-up: writes the byte-code cache
        cli = [bench_cli(root) for _ in range(a.repeat)]
        screen = [bench_screen(root) for _ in range(a.repeat)]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"compare, {a.n} skill files, {len(HOSTS)} hosts ({', '.join(HOSTS)}); best of {a.repeat}; "
          f"load average {load} on {os.cpu_count()} cores:")
    print(f"  CLI `skillshelf compare --json` (fresh process): {min(w for w, _ in cli):.2f} s wall, "
          f"{min(c for _, c in cli):.2f} s CPU")
    print(f"  TUI compare screen open until the table is filled: {min(w for w, _ in screen):.2f} s wall, "
          f"{min(c for _, c in screen):.2f} s CPU")


if __name__ == "__main__":
    main()
