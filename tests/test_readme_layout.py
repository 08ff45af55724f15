"""The README's Layout section matches the tree: every module it names exists, and every module
of core/, widgets/ and app/ is named there (so a newcomer finds any SPEC rule's module by name)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layout() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index("## Layout"):]


def test_every_path_the_layout_names_exists() -> None:
    named = set(re.findall(r"`((?:core|app|widgets)/[\w/]*(?:\.py|/))`", _layout()))
    assert named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == []


def test_every_module_is_in_the_layout() -> None:
    layout = _layout()
    words = set(re.findall(r"[\w]+", layout))
    modules = [p for d in ("core", "app", "widgets") for p in (ROOT / d).rglob("*.py")
               if p.name != "__init__.py" and "demo_workspace" not in p.parts]
    absent = sorted(str(p.relative_to(ROOT)) for p in modules if p.stem not in words)
    assert absent == []


def test_every_host_package_is_in_the_layout() -> None:
    layout = _layout()
    hosts = sorted(p.name for p in (ROOT / "core/hosts").iterdir() if (p / "__init__.py").is_file())
    assert hosts == ["claude", "codex", "gemini", "opencode", "zhin", "zuno"]
    assert all(f"{h}/" in layout for h in hosts)
