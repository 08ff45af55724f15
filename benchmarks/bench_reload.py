"""Hot-reload benchmarks (SPEC H2, H4): edit → published generation, incremental vs cold, soak.

Not part of the test suite. Run from the repository with the venv active::

    python benchmarks/bench_reload.py              # N = 10,000 skills
    python benchmarks/bench_reload.py 2000 --edits 10 --soak 300

A tree of N skills is generated once with :func:`gen_tree.generate` (remote cache handed to the
catalog as if pulled; no network). Then, in this process:

- *cold scan*: ``Catalog.refresh()`` — every root rescanned, every skill re-read (best of 3);
- *refresh_paths after one edit*: append a line to one ``SKILL.md`` and time
  ``Catalog.refresh_paths([path])`` (median over ``--edits`` edits in different roots);
- *write → publish*: with a running :class:`~skillshelf.core.watch.CatalogWatcher`
  (``step`` 50 ms, ``debounce`` 1600 ms — the defaults), the time from the write to the new
  generation being published, split into the watcher's batching delay (write → batch handed to
  the catalog) and the catalog's own work (batch → publish). Target: ≤ 50 ms beyond batching;
- *soak*: ``--soak`` random operations (create, edit, break, fix, rename, delete, symlink …)
  applied through ``refresh_paths``; afterwards the generation is compared with a full
  ``refresh()`` from it (same kept-last-valid history; must be equal) and the mean cost per
  operation is reported.

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fake_remote  # noqa: E402
from gen_tree import generate  # noqa: E402

from skillshelf.core.catalog import Catalog  # noqa: E402
from skillshelf.core.paths import Environment  # noqa: E402
from skillshelf.core.watch import CatalogWatcher  # noqa: E402

TARGET_BEYOND_BATCH_MS = 50.0


def open_catalog(info: dict) -> Catalog:
    env = {**info["env"], **fake_remote.install(info["remote_dirs"])}
    return Catalog.open(info["cwd"], env=Environment.from_mapping(env), paths=info["paths"])


def user_locations(cat: Catalog, info: dict) -> list[str]:
    watched = (info["cwd"], info["paths"][0], os.path.join(info["env"]["HOME"], ".agents"))
    return [s.location for s in cat.current.sources if s.location.startswith(watched)]


def bench_cold(cat: Catalog) -> float:
    best = None
    for _ in range(3):
        t = time.perf_counter()
        cat.refresh()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best


def bench_incremental(cat: Catalog, locations: list[str], edits: int, rng: random.Random) -> float:
    times = []
    for loc in rng.sample(locations, edits):
        with open(loc, "a", encoding="utf-8") as fh:
            fh.write("\nOne more line.\n")
        t = time.perf_counter()
        cat.refresh_paths([loc])
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_live(cat: Catalog, locations: list[str], edits: int, rng: random.Random) -> tuple[float, float, float]:
    """Median (write→publish, write→batch, batch→publish) in seconds."""
    marks: dict[str, float] = {}
    published = threading.Event()
    real = cat.refresh_paths

    def timed(changed):
        marks["batch"] = time.perf_counter()
        gen = real(changed)
        marks["publish"] = time.perf_counter()
        published.set()
        return gen

    cat.refresh_paths = timed  # type: ignore[method-assign]
    totals, batches, works = [], [], []
    with CatalogWatcher(cat, step=50, debounce=1600):
        time.sleep(0.5)
        for loc in rng.sample(locations, edits):
            published.clear()
            t0 = time.perf_counter()
            with open(loc, "a", encoding="utf-8") as fh:
                fh.write("\nEdited live.\n")
            if not published.wait(10):
                continue
            totals.append(marks["publish"] - t0)
            batches.append(marks["batch"] - t0)
            works.append(marks["publish"] - marks["batch"])
            time.sleep(0.2)
    del cat.refresh_paths
    return statistics.median(totals), statistics.median(batches), statistics.median(works)


def bench_soak(info: dict, cat: Catalog, ops: int, rng: random.Random) -> tuple[float, bool]:
    roots = [os.path.join(info["cwd"], ".agents", "skills"), os.path.join(info["cwd"], ".zuno", "skill"),
             info["paths"][0]]
    dirs = sorted({os.path.dirname(loc) for loc in user_locations(cat, info)})
    spent = 0.0
    for i in range(ops):
        op = rng.choice(["create", "edit", "break", "fix", "rename", "delete", "symlink"])
        changed: list[str] = []
        if op == "create" or not dirs:
            d = os.path.join(rng.choice(roots), f"soak-{i}", "inner")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "SKILL.md"), "w") as fh:
                fh.write(f"---\nname: soak-{i}\ndescription: Soak {i}\n---\nbody\n")
            dirs.append(d)
            changed = [os.path.dirname(d)]
        else:
            d = rng.choice(dirs)
            loc = os.path.join(d, "SKILL.md")
            if not os.path.isdir(d):
                dirs.remove(d)
                continue
            if op in ("edit", "fix"):
                with open(loc, "w") as fh:
                    fh.write(f"---\nname: {os.path.basename(d)}\ndescription: Fixed {i}\n---\nbody\n")
                changed = [loc]
            elif op == "break":
                with open(loc, "w") as fh:
                    fh.write("---\nname: x\ndescription: [broken\n---\n")
                changed = [loc]
            elif op == "rename" and not os.path.islink(d):
                new = os.path.join(rng.choice(roots), f"renamed-{i}")
                os.rename(d, new)
                dirs.remove(d)
                dirs.append(new)
                changed = [d, new]
            elif op == "delete":
                if os.path.islink(d):
                    os.remove(d)
                else:
                    shutil.rmtree(d, ignore_errors=True)
                dirs.remove(d)
                changed = [d]
            elif op == "symlink":
                link = os.path.join(rng.choice(roots), f"link-{i}")
                os.symlink(os.path.realpath(d), link)
                dirs.append(link)
                changed = [link]
        t = time.perf_counter()
        cat.refresh_paths(changed)
        spent += time.perf_counter() - t
    inc = cat.current
    # a full rescan from the same previous generation (same kept-last-valid history) must agree
    full = cat.refresh()
    equal = (full.sources == inc.sources and full.warnings == inc.warnings and full.rejected == inc.rejected
             and full.digest == inc.digest)
    return spent / max(ops, 1), equal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=10_000)
    ap.add_argument("--edits", type=int, default=15)
    ap.add_argument("--soak", type=int, default=1000)
    args = ap.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        info = generate(tmp, args.n)
        cat = open_catalog(info)
        locations = user_locations(cat, info)
        cold = bench_cold(cat)
        inc = bench_incremental(cat, locations, args.edits, rng)
        total, batch, work = bench_live(cat, locations, min(args.edits, 10), rng)
        soak_per_op, soak_equal = bench_soak(info, cat, args.soak, rng)
    ok = "yes" if work * 1000 <= TARGET_BEYOND_BATCH_MS else "NO"
    print(f"\n### Hot reload, {args.n:,} skills ({len(locations):,} under watched roots)\n")
    print("| measurement | time | note |")
    print("|---|---:|---|")
    print(f"| cold scan (`refresh()`, best of 3) | {cold * 1000:.0f} ms | every skill re-read |")
    print(f"| `refresh_paths` after one edit (median of {args.edits}) | {inc * 1000:.1f} ms | "
          f"{cold / inc:.0f}x faster than cold |")
    print(f"| write → published generation (median) | {total * 1000:.0f} ms | step 50 ms, debounce 1600 ms |")
    print(f"| … of which watcher batching | {batch * 1000:.0f} ms | watchfiles quiet period + delivery |")
    print(f"| … of which catalog work beyond batching | {work * 1000:.1f} ms | target ≤ {TARGET_BEYOND_BATCH_MS:.0f} ms: {ok} |")
    print(f"| soak: {args.soak:,} random operations via `refresh_paths` | {soak_per_op * 1000:.1f} ms/op | "
          f"equal to a full refresh afterwards: {'yes' if soak_equal else 'NO'} |")


if __name__ == "__main__":
    main()
