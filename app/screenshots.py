"""Screenshots of the TUI for the docs: ``python -m skillshelf.app.screenshots [OUTDIR]``.

Runs :class:`~skillshelf.app.tui.SkillshelfApp` headless (``App.run_test``) on the demo workspace
(:func:`skillshelf.app.demo.prepare_demo`, opened like ``run_tui --demo``) at 140×42 cells with
the ``textual-dark`` theme, and saves SVGs (``App.save_screenshot``) of: the main screen, a
selected ambiguous row, the ambiguity picker, the index preview, what-if, help, the Problems
screen (``e``) and the Compare screen (``x``, every host side by side); ``narrow.svg``: the main
screen at 80×24 with the demo's two ``pdf`` copies on screen; ``zhin.svg``:
host ``zhin`` on a small plugin written to a temporary directory (:data:`ZHIN_PLUGIN`). When
``<repo>/../shared/corpus`` exists it also saves ``corpus.svg``: the main screen with that corpus
as an extra ``--path``. Each SVG is converted to PNG with cairosvg when it is installed, after
replacing ``Fira Code`` with ``DejaVu Sans Mono`` in the SVG text (Fira Code is usually not
installed; a proportional fallback would misalign the columns). OUTDIR defaults to
``screenshots/`` in the current directory. The demo copy is deleted afterwards.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from textual.pilot import Pilot

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.demo import demo_env, prepare_demo
from skillshelf.app.tui import SkillshelfApp
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList

__all__ = ["NARROW", "PNG_FONT", "SHOTS", "SIZE", "THEME", "ZHIN_PLUGIN", "main", "svg_to_png", "take_screenshots"]

#: Terminal size of every screenshot, in cells (columns, rows).
SIZE = (140, 42)
#: Fixed theme, so screenshots do not depend on ``TEXTUAL_THEME``.
THEME = "textual-dark"
#: Screenshot names (without extension), in the order taken.
SHOTS = ("main", "ambiguous", "picker", "index-preview", "whatif", "help", "problems", "compare", "narrow", "zhin")
#: Size of ``narrow.svg``: the smallest terminal the TUI is laid out for.
NARROW = (80, 24)


#: Font substituted for ``Fira Code`` in the PNGs. cairosvg uses only the first family named, with
#: no per-glyph fallback, so Chinese text (Zhin's load_skill texts in ``zhin.png``) shows as boxes
#: in the PNG; the SVG keeps it (viewers fall back per glyph). A CJK monospace font as the only
#: font (WenQuanYi Zen Hei Mono) misaligned the Latin columns; rsvg-convert dropped leading spaces.
PNG_FONT = "DejaVu Sans Mono"
def svg_to_png(svg_path: Path, png_path: Path, *, font: str = PNG_FONT) -> bool:
    """Convert one SVG to PNG with cairosvg, substituting ``Fira Code`` by ``font``. Returns False
    (and writes nothing) when cairosvg cannot be imported."""
    try:
        import cairosvg  # optional: only the PNGs need it
    except (ImportError, OSError):  # not installed, or its cairo library is missing
        return False
    text = svg_path.read_text(encoding="utf-8").replace("Fira Code", font)
    cairosvg.svg2png(bytestring=text.encode("utf-8"), write_to=str(png_path), output_width=1960)
    return True


#: The Zhin plugin of ``zhin.svg``: relative path → file text (SPEC Z1–Z5 on show: a missing
#: dependency, private tools, an ``always: true`` skill, an agent-private skill, a long description).
ZHIN_PLUGIN: dict[str, str] = {
    "skills/weather/SKILL.md": (
        "---\nname: weather\ndescription: Look up the weather forecast for a city and explain it\n"
        "compatibility:\n  deps:\n    - sh\n    - weather-cli\n---\n\n# Weather\n\n## Workflow\n\n"
        "1. Call `skill__weather__forecast` with the city.\n2. Summarise the next three days.\n"),
    "skills/weather/tools/forecast/index.js": "export default {}\n",
    "skills/weather/tools/radar/index.js": "export default {}\n",
    "skills/greeter/SKILL.md": (
        "---\nname: greeter\ndescription: Greets every new member of a group\nalways: true\n---\n\n"
        "## 执行规则\nSay hello politely and mention the rules channel.\n"),
    "skills/release-notes/SKILL.md": (
        "---\nname: release-notes\ndescription: Write release notes from merged pull requests, grouped "
        "by area, with breaking changes first and links to every pull request\n---\n\n"
        "Collect the merged pull requests since the last tag.\n"),
    "agents/reviewer/skills/audit/SKILL.md": (
        "---\nname: audit\ndescription: Audit a pull request for risky changes\n---\n\n"
        "## Instructions\nRead the diff; list risky changes.\n"),
    "agents/reviewer/skills/audit/tools/diff/index.js": "export default {}\n",
}


def _catalog_opener(cwd: str, env_map: dict[str, str] | None, paths: Sequence[str],
                    host: str = "zuno") -> Callable[[], AppCatalog]:
    env = Environment.from_mapping(env_map)

    def open_catalog() -> AppCatalog:
        return Catalog.open(cwd, env=env, host=host, paths=tuple(paths), pull_remote=False)

    return open_catalog


async def _settle(app: SkillshelfApp, pilot: Pilot[int], rounds: int = 3) -> None:
    """Until no worker runs through two pauses in a row (workers start more workers), at least
    ``rounds`` times: a screenshot never shows a half-computed pane."""
    quiet = 0
    for n in range(200):
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        quiet = quiet + 1 if not any(w.is_running for w in app.workers) else 0
        if quiet >= 2 and n + 1 >= rounds:
            break


def _make_app(open_catalog: Callable[[], AppCatalog], cwd_display: str, host: str = "zuno") -> SkillshelfApp:
    app = SkillshelfApp(open_catalog, host=host, cwd_display=cwd_display, watch=False)
    app.theme = THEME
    return app


async def _shoot_demo(outdir: Path) -> list[Path]:
    demo = prepare_demo()
    written: list[Path] = []
    try:
        app = _make_app(_catalog_opener(str(demo.cwd), dict(demo.env), ()), "~/demo/project")

        def save(name: str) -> None:
            app.save_screenshot(filename=f"{name}.svg", path=str(outdir))
            written.append(outdir / f"{name}.svg")

        async with app.run_test(size=SIZE) as pilot:
            await _settle(app, pilot)
            save("main")
            await pilot.press("n")
            await _settle(app, pilot)
            save("ambiguous")
            await pilot.press("a")
            await _settle(app, pilot)
            save("picker")
            await pilot.press("escape")
            await pilot.press("i")
            await _settle(app, pilot)
            save("index-preview")
            await pilot.press("escape")
            await pilot.press("w")
            await _settle(app, pilot)
            save("whatif")
            await pilot.press("escape")
            await pilot.press("question_mark")
            await _settle(app, pilot, 1)
            save("help")
            await pilot.press("escape")
            await pilot.press("e")
            await _settle(app, pilot, 1)
            save("problems")
            await pilot.press("escape")
            await pilot.press("x")
            await _settle(app, pilot)
            # the Claude cell of the project's .claude/skills/frontend-a11y (shadowed by the user copy)
            await pilot.press(*(["down"] * 19), "right", "right")
            await _settle(app, pilot, 1)
            save("compare")
    finally:
        shutil.rmtree(demo.root, ignore_errors=True)
    return written


async def _shoot_narrow(outdir: Path) -> list[Path]:
    """The demo at :data:`NARROW` with the two ``pdf`` copies on screen (the cursor on the first)."""
    demo = prepare_demo()
    try:
        app = _make_app(_catalog_opener(str(demo.cwd), dict(demo.env), ()), "~/demo/project")
        async with app.run_test(size=NARROW) as pilot:
            await _settle(app, pilot)
            await pilot.press("n")
            await _settle(app, pilot)
            app.save_screenshot(filename="narrow.svg", path=str(outdir))
    finally:
        shutil.rmtree(demo.root, ignore_errors=True)
    return [outdir / "narrow.svg"]


async def _shoot_corpus(outdir: Path, corpus: Path) -> list[Path]:
    root = tempfile.mkdtemp(prefix="skillshelf-shot-")
    try:
        cwd = os.path.join(root, "project")
        os.makedirs(cwd)
        os.makedirs(os.path.join(root, "home"))
        app = _make_app(_catalog_opener(cwd, demo_env(root), (str(corpus),)), "~/project --path ../shared/corpus")
        async with app.run_test(size=SIZE) as pilot:
            await _settle(app, pilot)
            app.save_screenshot(filename="corpus.svg", path=str(outdir))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return [outdir / "corpus.svg"]


async def _shoot_zhin(outdir: Path) -> list[Path]:
    root = tempfile.mkdtemp(prefix="skillshelf-zhin-")
    try:
        bot = Path(root) / "bot"
        for rel, text in ZHIN_PLUGIN.items():
            path = bot / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        (Path(root) / "home").mkdir()
        env = dict(demo_env(root))
        env["PATH"] = "/usr/bin:/bin"  # sh is found, weather-cli is not (SPEC Z5)
        app = _make_app(_catalog_opener(str(bot), env, (), host="zhin"), "~/bot", host="zhin")
        async with app.run_test(size=SIZE) as pilot:
            await _settle(app, pilot)
            main = app.main_screen
            lst = main.query_one(CatalogList)
            lst.highlighted = [main.rows[i].name for i in lst.order].index("weather")
            await _settle(app, pilot)
            app.save_screenshot(filename="zhin.svg", path=str(outdir))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return [outdir / "zhin.svg"]


def take_screenshots(outdir: str | os.PathLike[str], *, corpus: str | os.PathLike[str] | None = None,
                     png: bool = True) -> list[Path]:
    """Write the SVGs (and PNGs when ``png`` and cairosvg is available) into ``outdir`` (created);
    ``corpus``: a skills tree for ``corpus.svg`` (skipped when ``None`` or missing). Returns every
    file written. Must not be called from a running event loop."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.pop("NO_COLOR", None)
    svgs = asyncio.run(_shoot_demo(out))
    svgs += asyncio.run(_shoot_narrow(out))
    svgs += asyncio.run(_shoot_zhin(out))
    if corpus is not None and Path(corpus).is_dir():
        svgs += asyncio.run(_shoot_corpus(out, Path(corpus)))
    files = list(svgs)
    if png:
        for svg in svgs:
            target = svg.with_suffix(".png")
            if svg_to_png(svg, target):
                files.append(target)
    return files


def _default_corpus() -> Path:
    return Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m skillshelf.app.screenshots [OUTDIR]``: print each file written; exit 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    outdir = args[0] if args else "screenshots"
    corpus = _default_corpus()
    for path in take_screenshots(outdir, corpus=corpus if corpus.is_dir() else None):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
