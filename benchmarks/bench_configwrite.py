"""Config-write benchmark (SPEC K5): ``skillshelf resolve`` on a large ``skills.config``.

Not part of the test suite. Run from the repository with the venv active::

    python benchmarks/bench_configwrite.py            # 5.9 MB config, JSON and JSONC
    python benchmarks/bench_configwrite.py --entries 20000

A temporary home and project are made with two ``pdf`` skills (a conflict) and a project
``.zuno/zuno.json[c]`` holding ``--entries`` ``skills.config`` entries for other paths (84,000 ≈
5.9 MB), once as plain JSON and once as JSONC (a comment at the top, so no plain-JSON fast path
applies). Each case runs ``skillshelf resolve pdf --keep …`` in a fresh process, then
``skillshelf undo``, and reports the wall time of each and the largest resident set of the
child processes (``ru_maxrss``). A write that scales linearly keeps both a few seconds on a
file this size. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def make_workspace(base: str, entries: int, jsonc: bool) -> tuple[str, dict[str, str]]:
    home = os.path.join(base, "home")
    proj = os.path.join(base, "proj")
    os.makedirs(os.path.join(proj, ".git"))
    for root in (proj, home):
        d = os.path.join(root, ".agents", "skills", "pdf")
        os.makedirs(d)
        with open(os.path.join(d, "SKILL.md"), "w", encoding="utf-8") as f:
            f.write("---\nname: pdf\ndescription: PDF tools.\n---\nBody.\n")
    lines = ",\n".join(f'      {{"path": "/srv/skills/group-{i // 100:04d}/s{i:06d}/SKILL.md", "exposure": "search"}}'
                       for i in range(entries))
    head = "// team settings\n" if jsonc else ""
    text = head + '{\n  "model": "big",\n  "skills": {\n    "config": [\n' + lines + "\n    ]\n  }\n}\n"
    os.makedirs(os.path.join(proj, ".zuno"))
    with open(os.path.join(proj, ".zuno", "zuno.jsonc" if jsonc else "zuno.json"), "w", encoding="utf-8") as f:
        f.write(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZUNO_", "XDG_"))}
    env["HOME"] = home
    return proj, env


def timed(argv: list[str], cwd: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "skillshelf.app.cli", *argv], cwd=cwd, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=84_000, help="skills.config entries (84,000 ≈ 5.9 MB)")
    args = parser.parse_args()
    print("| config | size | resolve | undo | peak RSS |")
    print("|---|---:|---:|---:|---:|")
    for jsonc in (False, True):
        base = tempfile.mkdtemp(prefix="bench-configwrite-")
        try:
            proj, env = make_workspace(base, args.entries, jsonc)
            name = "zuno.jsonc" if jsonc else "zuno.json"
            size = os.path.getsize(os.path.join(proj, ".zuno", name))
            keep = os.path.join(proj, ".agents", "skills", "pdf")
            write = timed(["resolve", "pdf", "--keep", keep], proj, env)
            back = timed(["undo"], proj, env)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            kind = "JSONC" if jsonc else "JSON"
            print(f"| {kind} | {size / 1e6:.1f} MB | {write:.1f} s | {back:.1f} s | {peak:.0f} MB |")
        finally:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
