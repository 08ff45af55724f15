"""The app and the widgets never single a host out: they import only the host registry and the
host protocol, and no comparison names a registered host (host behaviour is asked of the host:
its features, labels and session)."""

from __future__ import annotations

import ast
from pathlib import Path

from skillshelf.core.hosts import host_names

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"skillshelf.core.hosts", "skillshelf.core.hosts.base"}


def _sources() -> list[Path]:
    return sorted([*(ROOT / "app").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")])


def test_app_and_widgets_import_only_the_registry_and_the_protocol():
    bad = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in names
                    if n.startswith("skillshelf.core.hosts") and n not in ALLOWED]
    assert bad == []


def test_no_comparison_names_a_host():
    hosts = set(host_names())
    bad = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(isinstance(o, ast.Constant) and o.value in hosts for o in operands):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bad == []
