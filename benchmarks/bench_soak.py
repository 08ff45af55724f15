"""Live-reload soak through the real watcher (SPEC H2–H4): N random operations on the disk, the
catalog told nothing but what :class:`~skillshelf.core.watch.CatalogWatcher` reports; at the end
the published generation must equal a rescan.

Not part of the test suite (``tests/core/test_watch_soak.py`` is its 300-operation version).
Run from the repository with the venv active::

    python benchmarks/bench_soak.py                        # 1,000 operations, 3 runs, host zuno
    python benchmarks/bench_soak.py --ops 1200 --runs 1 --host all

Operations (``tests/core/soak_ops.py``): create, ``mkdir -p`` deep create, edit, break, fix,
rename, move into a freshly created subfolder of the same or another root (half of them edited
right after the move), move a whole folder of skills across roots, delete, symlink, unlink,
sidecar, hidden folder — paced like a person and their tools (0–20 ms apart). The watcher runs
with the CLI's defaults (step 50 ms, debounce 1,600 ms, poll 1 s).

Per run it checks (1) the live generation, once every change is settled, against a full
``refresh()`` from the same generation (same kept-last-valid history) and (2) after every file is
made valid again, against a brand-new catalog. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "core"))

from soak_ops import make_workspace, repair, run_operations  # noqa: E402

from skillshelf.core.catalog import Catalog  # noqa: E402
from skillshelf.core.hosts import HOSTS  # noqa: E402
from skillshelf.core.model import Generation  # noqa: E402
from skillshelf.core.watch import CatalogWatcher  # noqa: E402


def wait_until(cat: Catalog, predicate, deadline: float) -> Generation | None:
    """The first published generation satisfying ``predicate`` within ``deadline`` seconds."""
    cond = threading.Condition()

    def notify(_: Generation) -> None:
        with cond:
            cond.notify_all()

    cat.subscribe(notify)
    end = time.monotonic() + deadline
    with cond:
        while True:
            gen = cat.current
            if predicate(gen):
                return gen
            left = end - time.monotonic()
            if left <= 0:
                return None
            cond.wait(min(left, 0.25))


def quiet(cat: Catalog, watcher: CatalogWatcher, seconds: float, deadline: float) -> Generation:
    """The generation once the watcher was idle, publishing nothing, for ``seconds`` (longer
    than its batching; at most ``deadline`` s)."""
    end = time.monotonic() + deadline
    last = cat.current.number
    since = time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.05)
        if cat.current.number != last or not watcher.idle:
            last, since = cat.current.number, time.monotonic()
        elif time.monotonic() - since >= seconds:
            break
    return cat.current


def one_run(host: str, ops: int, seed: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = make_workspace(tmp, host, seeds=40)

        def fresh() -> Catalog:
            return Catalog.open(ws.project, env=ws.env, host=host, paths=ws.paths, pull_remote=False)

        cat = fresh()
        rng = random.Random(seed)
        published = [0]
        watcher = CatalogWatcher(cat, on_generation=lambda g: published.__setitem__(0, published[0] + 1))
        with watcher:
            started = time.monotonic()
            done = run_operations(ws, rng, ops, lambda kind: time.sleep(rng.choice((0, 0, 0.005, 0.02))))
            spent = time.monotonic() - started
            # (1) settled: the live generation equals a full rescan from it (same history)
            live = quiet(cat, watcher, seconds=3.0, deadline=60.0)
            history_equal = cat.refresh(publish_unchanged=False) is live
            # (2) every file valid again: equal to a brand-new catalog
            repair(ws)
            t0 = time.monotonic()
            gen = wait_until(cat, lambda g: g.same_content(fresh().current), deadline=60.0)
            settle = time.monotonic() - t0
        failures = [w.kind for w in cat.current.warnings if w.kind in ("RebuildFailed", "WatchFailed")]
        return {"host": host, "ops": sum(done.values()), "moves": done.get("move-into-new-subfolder", 0)
                + done.get("move-folder-across-roots", 0), "seconds": spent, "published": published[0],
                "history_equal": history_equal, "fresh_equal": gen is not None, "settle": settle,
                "failures": failures}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--host", default="zuno", help="a host name, or 'all'")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    hosts = sorted(HOSTS) if args.host == "all" else [args.host]
    rows = []
    for host in hosts:
        for run in range(args.runs):
            row = one_run(host, args.ops, args.seed + run)
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    print("\n| host | run | operations (moves) | time | generations published | equal to a rescan "
          "(same history) | equal to a new catalog (after repair; settled in) |")
    print("|---|---:|---:|---:|---:|---|---|")
    for i, r in enumerate(rows):
        print(f"| {r['host']} | {i + 1} | {r['ops']:,} ({r['moves']}) | {r['seconds']:.1f} s | {r['published']:,} | "
              f"{'yes' if r['history_equal'] else 'NO'} | {'yes' if r['fresh_equal'] else 'NO'} "
              f"({r['settle']:.2f} s){' ' + ','.join(r['failures']) if r['failures'] else ''} |")
    ok = all(r["history_equal"] and r["fresh_equal"] for r in rows)
    print(f"\n{len(rows)} runs, {sum(int(r['ops']) for r in rows):,} operations: "
          f"{'every run ended equal to a rescan' if ok else 'SOME RUNS DIFFER'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
