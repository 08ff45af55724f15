"""The screenshot script writes one SVG (and PNG when cairosvg is installed) per screen."""

from __future__ import annotations

import html
import re

from skillshelf.app import screenshots


def _plain(svg: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def test_screenshots_written(tmp_path):
    files = screenshots.take_screenshots(tmp_path, corpus=None, png=False)   # PNGs: one below (speed)
    svgs = {p.name for p in files}
    assert svgs == {f"{name}.svg" for name in screenshots.SHOTS}
    texts = {name: _plain((tmp_path / f"{name}.svg").read_text(encoding="utf-8")) for name in screenshots.SHOTS}
    assert "1 ambiguous" in texts["main"]
    assert "Resolve pdf — 2 sources, 2 enabled (ambiguous)." in texts["picker"]
    assert "Index preview — Zuno 0.10.3" in texts["index-preview"]
    assert "What-if: another context window — nothing is written" in texts["whatif"]
    assert "focus the filter (esc clears it and returns to the list)" in texts["help"]
    # four uncovered folders: .claude, .opencode and .gemini in the project, ~/.claude
    assert "Problems · generation 1 · 2 errors · 4 notes" in texts["problems"] and "rejected files (2)" in texts["problems"]
    assert "Zhin (im/skill) ─ ~/bot ─ generation 1 ─ 4 sources" in texts["zhin"]
    assert "locked until load_skill" in texts["zhin"] and "agent:reviewer" in texts["zhin"]
    try:
        import cairosvg  # noqa: F401
    except Exception:
        return
    svg = tmp_path / "picker.svg"
    assert "Fira Code" in svg.read_text(encoding="utf-8")
    assert screenshots.svg_to_png(svg, tmp_path / "picker.png")
    assert (tmp_path / "picker.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
