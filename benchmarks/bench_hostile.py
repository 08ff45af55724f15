"""Hostile workspaces, timed per host (not part of the test suite): how long ``debug skill --json``
takes, how much memory it peaks at and how much it prints when a skill root holds

- ``slash``: a symlink to ``/`` and one to ``/usr`` in every project root (the walk bounds of
  :mod:`skillshelf.core.walklimits`);
- ``huge``: a 200 MB ``SKILL.md``, a sparse 10 GB ``SKILL.md`` and a sparse 10 GB sidecar in
  every project root (the read limit of :mod:`skillshelf.core.fileread`).

Each run is a fresh process (``--no-cache``); the figures go in the README.
Run: ``python benchmarks/bench_hostile.py [slash|huge ...]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

ROOTS = (".agents/skills", ".zuno/skill", ".claude/skills", ".codex/skills", ".opencode/skill", ".gemini/skills",
         "skills", ".claude/commands")
HOSTS = ("zuno", "zhin", "claude", "codex", "opencode", "gemini")
OK = b"---\nname: ok\ndescription: A good skill.\n---\nBody.\n"


def _sparse(path: str, size: int, head: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)


def build(kind: str, ws: str) -> None:
    """Write the ``kind`` workspace into ``ws`` (a worktree: ``ws/.git``)."""
    os.makedirs(os.path.join(ws, ".git"))
    for rel in ROOTS:
        root = os.path.join(ws, rel)
        os.makedirs(os.path.join(root, "ok"))
        with open(os.path.join(root, "ok", "SKILL.md"), "wb") as fh:
            fh.write(OK)
        if kind == "slash":
            os.symlink("/", os.path.join(root, "slash"))
            os.symlink("/usr", os.path.join(root, "usr"))
        else:
            head = b"---\nname: huge\ndescription: d\n---\n"
            os.makedirs(os.path.join(root, "huge"))
            with open(os.path.join(root, "huge", "SKILL.md"), "wb") as fh:
                fh.write(head)
                chunk = b"x" * (1024 * 1024)  # written in pieces: a forked child inherits the parent's peak
                for _ in range(200):
                    fh.write(chunk)
            _sparse(os.path.join(root, "sparse", "SKILL.md"), 10 * 1024 ** 3, head.replace(b"huge", b"sparse"))
            _sparse(os.path.join(root, "ok", "agents", "openai.yaml"), 10 * 1024 ** 3, b"interface: {}\n")


def run(ws: str, home: str, host: str) -> tuple[float, int, int, int]:
    """(seconds, peak KiB of the process, bytes printed, warnings) of one ``debug skill --json``."""
    env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "skillshelf.app.cli", "debug", "skill", "--json", "--no-cache",
                                 "--host", host, "--cwd", ws], env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory
        took = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{host}: exit {proc.returncode}")
        out.seek(0)
        data = out.read()
    doc = json.loads(data)
    return took, usage.ru_maxrss, len(data), len(doc["warnings"])


def main(kinds: list[str]) -> None:
    for kind in kinds:
        with tempfile.TemporaryDirectory() as tmp:
            ws, home = os.path.join(tmp, "ws"), os.path.join(tmp, "home")
            os.makedirs(home)
            build(kind, ws)
            print(f"{kind}:")
            for host in HOSTS:
                took, peak, size, warnings = run(ws, home, host)
                print(f"  {host:9s} {took:6.2f} s  peak {peak / 1024:6.0f} MiB  {size / 1024:7.0f} KiB of JSON  "
                      f"{warnings} warnings")


if __name__ == "__main__":
    main(sys.argv[1:] or ["slash", "huge"])
