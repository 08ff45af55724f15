"""skillshelf at 1,000 / 10,000 / 100,000 skills, each figure beside the file-system floors
measured in the same run (``python benchmarks/bench_scale.py [N ...] [--runs R]``).

Not part of the test suite (speed targets are never timed unit tests). For each N a synthetic
tree (:mod:`gen_tree`: six roots — four the host finds itself, two given with ``--path`` —
nested folders, same names, symlink aliases, broken files, ``skills.config`` rules) is written
once into a temporary directory (``--keep DIR`` keeps and reuses it). Every figure is a whole
fresh process (interpreter start-up and imports included), the median of ``--runs``:

- floors, plain Python over the same six roots (``os.scandir`` recursion, symlinks followed):
  *walk + stat* (one ``stat`` per ``SKILL.md``) and *walk + read* (every ``SKILL.md`` read);
  and for the TUI a Textual *hello-world* (one ``Static``, headless 120×36) from start to its
  first frame;
- ``skillshelf index``: *cold* (what skillshelf's cache keeps of the skill files deleted first,
  :func:`forget_skills`: every file is read and parsed; the cache is written by a writer forked
  as the command ends and finishing after it, as the ``skillshelf`` console script does:
  :func:`skillshelf.app.entry.console`) and *warm* (the cache from the run before, the tree
  unchanged); each process starts once the writer of the one before has finished, as it has by
  the time a person types the next command;
- ``skillshelf debug skill --json`` (warm, with its lint of every file: one unmeasured run first
  keeps the lint in the cache) against warm ``index``;
- ``skillshelf compare --json`` (every host, warm: one unmeasured run first);
- the TUI, headless (120×36, no watcher): *empty project* — start until the first frame is
  drawn (the start screen: header and a loading line) and until the main screen lists the
  (empty) catalog, in a folder with no skills; *first rows* — start until catalog rows are on screen
  (the first page the last run kept, drawn with the first frame, :mod:`skillshelf.app.keptpage`);
  *list has rows* — until the list itself has rows (over a kept page: the checked generation,
  unless the check outlasts ``Timings.partial_after`` and the last run's build is drawn first);
  *full list* — start until the complete generation is listed (warm cache, lint included: one
  unmeasured run first); the marks are taken by a 5 ms timer of the app while the driver
  sleeps (no ``pilot.pause``, which forces a screen update each time); peak RSS, read once the
  background work (the view, the lint of every file, the filter index) has finished;
- the TUI *cold* (what the cache keeps of the skill files deleted first, as for a cold
  ``index``: the first start, or the first after an upgrade): start until the full list, and
  until every file is linted (the background work has finished);
- ``skillshelf debug skill --json`` cold (every file read, parsed and linted);
- *filter keystroke*: in the TUI process above, typing one more character of a query until the
  new list is shown (median over a few queries, in milliseconds), typed as soon as the full list
  is on screen (while the TUI still lints and builds the filter index in the background) and,
  in another run, once the TUI is idle (no worker running);
- peak RSS (MB) of the warm ``index`` and of the TUI.

skillshelf's own modules are byte-compiled first (``compileall``, as ``pip install`` does), so an
environment with ``PYTHONDONTWRITEBYTECODE`` set does not make every process compile them again.
The OS page cache is not dropped (that needs root): "cold" is a cold skillshelf cache over warm
file-system caches, exactly like the floors. Figures on a shared machine vary with its load;
the load average is printed with the machine's name. The output ends with a Markdown table
ready for the README: absolute times and the ratios the targets are stated in.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gen_tree import generate  # noqa: E402

#: Targets (issue "Fast at any size"): figure → (bound, what it is compared with).
TARGETS = {
    "warm_index": (1.5, "× walk + stat"),
    "cold_index": (2.5, "× walk + read"),
    "debug": (1.3, "× warm index"),
}

_FLOOR = r"""
import os, sys, time
def walk(top, read, seen):
    try:
        it = os.scandir(top)
    except OSError:
        return 0
    n = 0
    with it:
        for e in it:
            if e.name == "SKILL.md":
                if read:
                    with open(e.path, "rb") as fh:
                        fh.read()
                else:
                    os.stat(e.path)
                n += 1
            elif e.is_dir():
                real = os.path.realpath(e.path) if e.is_symlink() else e.path
                if real not in seen:
                    seen.add(real)
                    n += walk(e.path, read, seen)
    return n
read = sys.argv[1] == "read"
print(sum(walk(r, read, set()) for r in sys.argv[2:]))
"""

_HELLO = r"""
import asyncio, os, time
t0 = float(os.environ.pop("SKILLSHELF_BENCH_T0"))
out = os.environ.pop("SKILLSHELF_BENCH_OUT")
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("hello")
    def on_ready(self):
        with open(out, "w") as fh:
            fh.write(repr(time.time() - t0))
        self.exit()

async def run():
    async with Hello().run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.05)
asyncio.run(run())
"""

_CLI = r"""
import atexit, json, os, resource, sys
out = os.environ.pop("SKILLSHELF_BENCH_OUT")
def report():
    with open(out, "w") as fh:
        json.dump({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}, fh)
atexit.register(report)  # after the parse cache's writes in threads have finished
from skillshelf.app.entry import console  # what the `skillshelf` console script runs
sys.stdout = open(os.devnull, "w")
sys.argv = ["skillshelf", *sys.argv[1:]]
console()
"""

_TUI = r"""
import asyncio, json, os, resource, statistics, sys, time
t0 = float(os.environ.pop("SKILLSHELF_BENCH_T0"))
out = os.environ.pop("SKILLSHELF_BENCH_OUT")
queries = json.loads(os.environ.pop("SKILLSHELF_BENCH_QUERIES"))
settle = bool(os.environ.pop("SKILLSHELF_BENCH_SETTLE", ""))
from skillshelf.app import codecache
codecache.install(os.environ, [])  # (as the `skillshelf` console script does first: app/entry.py)
from skillshelf.app.cli import build_parser, merged_options
# the options as `skillshelf --no-watch [--path P ...]` parses them, and what its main() does
# before it imports the TUI (the kept build's check, forked: app/ahead.py)
paths = sys.argv[1:]
ns = merged_options(build_parser().parse_args(["--no-watch", *(a for p in paths for a in ("--path", p))]))
from skillshelf.app import ahead
ahead.start(ns)
from skillshelf.app import tui

marks = {}
def mark(name):
    marks.setdefault(name, time.time() - t0)

class Probe(tui.SkillshelfApp):
    CSS_PATH = os.path.join(os.path.dirname(tui.__file__), tui.SkillshelfApp.CSS_PATH)
    def on_ready(self):  # the first frame has been drawn (the start screen)
        mark("first_frame")
        if self.screen.query("KeptPageView.-shown"):  # with the last run's first page
            mark("first_rows")
    def on_mount(self):
        self.set_interval(0.005, self._poll)
    def _poll(self):
        try:
            main = self.main_screen
            pane = main.catalog_pane
            shown = pane.catalog_list.order
            page = pane.kept_page_lines
        except Exception:  # not composed yet
            return
        if main.generation is not None:
            mark("catalog_shown")
        if page:
            mark("first_rows")
        if shown:
            mark("first_rows")
            mark("list_rows")
            if main.generation is not None:
                mark("full_list")

async def run():
    # the app exactly as `skillshelf --no-watch [--path P ...]` builds it, driven headless at 120x36
    app, _ = tui.app_for(ns, app_class=Probe)
    async with app.run_test(size=(120, 36)) as pilot:
        deadline = time.time() + 600
        # the app's own timer (_poll) takes the marks: a plain sleep here, for pilot.pause() would
        # post a message to every widget and force a screen update 200 times a second (no terminal
        # does that), taking the CPU the start needs (~0.1 s at 10,000 skills)
        while ("full_list" if paths else "catalog_shown") not in marks and time.time() < deadline:
            await asyncio.sleep(0.005)
        pane = app.main_screen.catalog_pane
        while settle and any(w.is_running for w in app.workers) and time.time() < deadline:
            await pilot.pause(0.01)  # the TUI idle: lint and the filter index done
        typing = []
        for q in queries:
            for k in range(1, len(q) + 1):
                start = time.perf_counter()
                pane.set_query(q[:k], now=True)
                typing.append((time.perf_counter() - start) * 1000)
            pane.set_query("", now=True)
        marks["filter_ms"] = statistics.median(typing) if typing else None
        marks["filter_max_ms"] = max(typing) if typing else None
        # the peak once the background work (view, lint, filter index) has finished, too
        while any(w.group != "watcher" and not w.is_finished for w in app.workers) and time.time() < deadline:
            await pilot.pause(0.02)
        mark("settled")
    marks["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

asyncio.run(run())
with open(out, "w") as fh:
    json.dump(marks, fh)
"""


def _env(info: dict) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZUNO_", "XDG_"))}
    env.update(info["env"])
    env.pop("NO_COLOR", None)
    return env


def _roots(info: dict) -> list[str]:
    root = info["root"]
    return [os.path.join(root, p) for p in ("project/.zuno/skill", "project/.agents/skills",
                                             "home/.config/zuno/skill", "home/.agents/skills")] + _paths(info)


def _paths(info: dict) -> list[str]:
    return [*info["paths"], os.path.join(info["root"], "home/.cache/zuno/skills")]


def _timed(argv: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _settled(info: dict) -> None:
    """Wait until the cache writers the last command left running have finished (a one-shot
    command ends before its forked writers do: :mod:`skillshelf.core.cachelock`), as they have
    by the time a person types the next command."""
    from skillshelf.core.cachelock import await_writers

    await_writers(os.path.join(info["env"]["XDG_CACHE_HOME"], "skillshelf"), timeout=60.0, again=True)


def _cli(args: list[str], info: dict) -> tuple[float, float]:
    """(seconds, peak RSS MB) of one ``skillshelf ARGS`` process."""
    _settled(info)
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = {**_env(info), "SKILLSHELF_BENCH_OUT": out}
    try:
        seconds = _timed([sys.executable, "-c", _CLI, *args], env, info["cwd"])
        with open(out) as fh:
            rss = json.load(fh)["rss_mb"]
    finally:
        os.unlink(out)
    return seconds, rss


def _tui(info: dict, paths: list[str], cwd: str, queries: list[str], *, settle: bool = False) -> dict:
    if "XDG_CACHE_HOME" in info["env"]:
        _settled(info)
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = {**_env(info), "SKILLSHELF_BENCH_OUT": out, "SKILLSHELF_BENCH_QUERIES": json.dumps(queries)}
    if settle:
        env["SKILLSHELF_BENCH_SETTLE"] = "1"
    try:
        env["SKILLSHELF_BENCH_T0"] = repr(time.time())
        subprocess.run([sys.executable, "-c", _TUI, *paths], env=env, cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as fh:
            return json.load(fh)
    finally:
        os.unlink(out)


def _hello() -> float:
    """Seconds from start to the first frame of a Textual hello-world (the TUI's floor)."""
    fd, out = tempfile.mkstemp(suffix=".txt")
    os.close(fd)
    try:
        env = {**os.environ, "SKILLSHELF_BENCH_OUT": out, "SKILLSHELF_BENCH_T0": repr(time.time())}
        subprocess.run([sys.executable, "-c", _HELLO], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as fh:
            return float(fh.read())
    finally:
        os.unlink(out)


def compile_skillshelf() -> None:
    """Byte-compile skillshelf's modules (what ``pip install`` does for an installed package)."""
    import importlib

    dirs = [p for m in ("skillshelf.core", "skillshelf.app", "skillshelf.widgets")
            for p in importlib.import_module(m).__path__]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], check=True, stdout=subprocess.DEVNULL)


def forget_skills(cache: str) -> None:
    """Delete what skillshelf's cache directory ``cache`` keeps of skill files (the parse cache,
    kept outputs and pages: everything but ``code/``, the compiled methods of dataclasses, which
    any earlier run on the machine made whatever the files, as the byte-compiled modules are)."""
    if os.path.isdir(cache):
        for name in os.listdir(cache):
            if name != "code":
                path = os.path.join(cache, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)


def _median(values: list[float]) -> float:
    return statistics.median(values)


def bench(n: int, runs: int, base: str) -> dict:
    """Every figure for an ``n``-skill tree under ``base`` (generated when missing)."""
    tree = os.path.join(base, f"tree-{n}")
    meta = os.path.join(base, f"tree-{n}.json")
    if os.path.exists(meta):
        with open(meta) as fh:
            info = json.load(fh)
    else:
        info = generate(tree, n)
        info.pop("remote_dirs")
        with open(meta, "w") as fh:
            json.dump(info, fh)
    env = _env(info)
    roots = _roots(info)
    common = [arg for p in _paths(info) for arg in ("--path", p)]
    cache = os.path.join(info["env"]["XDG_CACHE_HOME"], "skillshelf")
    r: dict = {"n": n, "files": info["files"]}

    def floor(kind: str) -> float:
        return _timed([sys.executable, "-c", _FLOOR, kind, *roots], env, info["cwd"])

    r["walk_stat"] = _median([floor("stat") for _ in range(runs)])
    r["walk_read"] = _median([floor("read") for _ in range(runs)])
    cold = []
    for _ in range(runs):
        _settled(info)
        forget_skills(cache)
        cold.append(_cli(["index", *common], info)[0])
    r["cold_index"] = _median(cold)
    warm = [_cli(["index", *common], info) for _ in range(runs)]
    r["warm_index"] = _median([w[0] for w in warm])
    r["index_rss"] = max(w[1] for w in warm)
    _cli(["debug", "skill", "--json", *common], info)  # its lint is kept from here on (warm, like index)
    r["debug"] = _median([_cli(["debug", "skill", "--json", *common], info)[0] for _ in range(runs)])
    _cli(["compare", "--json", *common], info)  # every other host's cache
    r["compare"] = _median([_cli(["compare", "--json", *common], info)[0] for _ in range(runs)])
    r["hello"] = _median([_hello() for _ in range(runs)])
    empty = os.path.join(base, "empty-project")
    os.makedirs(os.path.join(empty, ".git"), exist_ok=True)
    empties = [_tui({"env": {"HOME": os.path.join(base, "empty-home")}}, [], empty, []) for _ in range(runs)]
    r["tui_empty"] = _median([t["first_frame"] for t in empties])
    r["tui_empty_shown"] = _median([t["catalog_shown"] for t in empties])
    _tui(info, _paths(info), info["cwd"], [])  # the TUI's lint of every file is kept from here on
    tuis = [_tui(info, _paths(info), info["cwd"], ["deploy", "pdf-sql", "zzzz"]) for _ in range(runs)]
    for key in ("first_rows", "list_rows", "full_list", "filter_ms", "filter_max_ms"):
        r[f"tui_{key}"] = _median([t[key] for t in tuis if t.get(key) is not None] or [float("nan")])
    r["tui_rss"] = max(t["rss_mb"] for t in tuis)
    idle = [_tui(info, _paths(info), info["cwd"], ["deploy", "pdf-sql", "zzzz"], settle=True) for _ in range(runs)]
    for key in ("filter_ms", "filter_max_ms"):
        r[f"tui_idle_{key}"] = _median([t[key] for t in idle if t.get(key) is not None] or [float("nan")])
    colds = []
    for _ in range(runs):  # the TUI with nothing kept (the first start, or after an upgrade)
        _settled(info)
        forget_skills(cache)
        colds.append(_tui(info, _paths(info), info["cwd"], []))
    r["tui_cold_full_list"] = _median([t["full_list"] for t in colds])
    r["tui_cold_settled"] = _median([t["settled"] for t in colds])
    cold_debug = []
    for _ in range(runs):
        _settled(info)
        forget_skills(cache)
        cold_debug.append(_cli(["debug", "skill", "--json", *common], info)[0])
    r["cold_debug"] = _median(cold_debug)
    return r


def machine() -> str:
    """The machine, named: host, CPU model, CPUs, memory, Python, load average now."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kb = int(next(line.split()[1] for line in fh if line.startswith("MemTotal")))
            mem = f", {kb / 1024 / 1024:.0f} GB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    load = ", load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()) if hasattr(os, "getloadavg") else ""
    return (f"{platform.node()}: {cpu}, {os.cpu_count()} CPUs{mem}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}{load}")


def _s(x: float) -> str:
    return f"{x:.2f} s" if x >= 0.995 else f"{x * 1000:.0f} ms"


def table(rows: list[dict]) -> str:
    """The README table: one column per N, each figure with its ratio to its reference."""
    head = "| figure | " + " | ".join(f"{r['n']:,} skills" for r in rows) + " | target |"
    out = [head, "|---|" + "---:|" * len(rows) + "---|"]

    def line(label: str, cell, target: str) -> None:
        out.append(f"| {label} | " + " | ".join(cell(r) for r in rows) + f" | {target} |")

    line("floor: walk + stat", lambda r: _s(r["walk_stat"]), "—")
    line("floor: walk + read", lambda r: _s(r["walk_read"]), "—")
    line("`index`, warm cache", lambda r: f"{_s(r['warm_index'])} ({r['warm_index'] / r['walk_stat']:.1f}× walk+stat)",
         "≤ 1.5× walk + stat at 10k")
    line("`index`, cold (no cache)", lambda r: f"{_s(r['cold_index'])} ({r['cold_index'] / r['walk_read']:.1f}× walk+read)",
         "≤ 2.5× walk + read at 10k")
    line("`debug skill --json`, warm", lambda r: f"{_s(r['debug'])} ({r['debug'] / r['warm_index']:.2f}× index)",
         "≤ 1.3× index")
    line("`debug skill --json`, cold", lambda r: f"{_s(r['cold_debug'])} ({r['cold_debug'] / r['cold_index']:.1f}× cold index)",
         "—")
    line("`compare --json` (6 hosts), warm", lambda r: _s(r["compare"]), "—")
    line("floor: Textual hello-world, first frame", lambda r: _s(r["hello"]), "—")
    line("TUI empty project: first frame", lambda r: f"{_s(r['tui_empty'])} ({r['tui_empty'] / r['hello']:.1f}× hello-world)",
         "≤ 0.3 s")
    line("TUI empty project: main screen, empty catalog listed", lambda r: _s(r["tui_empty_shown"]), "—")
    line("TUI first rows on screen, warm (the last run's first page)", lambda r: _s(r["tui_first_rows"]),
         "≤ 0.5 s at 10k")
    line("TUI list has rows (the last run's list, checked meanwhile)", lambda r: _s(r["tui_list_rows"]), "—")
    line("TUI full list, warm", lambda r: _s(r["tui_full_list"]), "≤ 1.0 s at 10k")
    line("TUI cold (nothing kept): full list / every file linted", lambda r: f"{_s(r['tui_cold_full_list'])} / "
         f"{_s(r['tui_cold_settled'])}", "—")
    line("filter keystroke → new list (median / max)",
         lambda r: f"{r['tui_filter_ms']:.0f} / {r['tui_filter_max_ms']:.0f} ms", "≤ 30 ms at 10k, ≤ 150 ms at 100k")
    line("filter keystroke, TUI idle (median / max)",
         lambda r: f"{r['tui_idle_filter_ms']:.0f} / {r['tui_idle_filter_max_ms']:.0f} ms", "≤ 30 ms at 10k, ≤ 150 ms at 100k")
    line("peak RSS: TUI / warm `index`", lambda r: f"{r['tui_rss']:.0f} / {r['index_rss']:.0f} MB",
         "≤ 150 MB at 10k, ≤ 800 MB at 100k")
    by_n = {r["n"]: r for r in rows}
    if 10_000 in by_n and 100_000 in by_n:
        a, b = by_n[10_000], by_n[100_000]
        keys = ("walk_stat", "walk_read", "warm_index", "cold_index", "debug", "cold_debug", "compare",
                "tui_first_rows", "tui_full_list", "tui_cold_full_list", "tui_filter_ms", "tui_rss")
        ratios = ", ".join(f"{k} {b[k] / a[k]:.1f}×" for k in keys if a.get(k))
        out.append("")
        out.append(f"100k / 10k (target: every figure ≤ 12×): {ratios}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[1_000, 10_000])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per figure (the median is kept)")
    ap.add_argument("--keep", metavar="DIR", help="generate the trees into DIR and keep them (reused when present)")
    ns = ap.parse_args(argv)
    compile_skillshelf()
    load_before = "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    base = ns.keep or tempfile.mkdtemp(prefix="skillshelf-scale-")
    os.makedirs(base, exist_ok=True)
    rows = []
    try:
        for n in ns.sizes:
            r = bench(n, ns.runs, base)
            print(json.dumps(r), file=sys.stderr)
            rows.append(r)
    finally:
        if ns.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    print(f"Machine: {machine()} (at the start: {load_before})")
    print(f"Median of {ns.runs} fresh processes per figure; OS file cache warm.")
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
