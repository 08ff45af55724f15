"""skillshelf.core never imports Textual or Rich (DESIGN "Measured here": harlequin's rule)."""

import subprocess
import sys


def test_core_never_imports_textual():
    code = (
        "import sys, importlib, pkgutil\n"
        "import skillshelf.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'skillshelf.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_no_core_module_mentions_textual_or_rich_imports():
    """Static check as well: no ``import textual`` / ``from rich`` in any core source file, even lazily."""
    import ast
    from pathlib import Path

    import skillshelf.core as c

    offenders = []
    for path in Path(c.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for n in names:
                if n.split(".")[0] in ("textual", "rich") or n.startswith(("skillshelf.widgets", "skillshelf.app")):
                    offenders.append(f"{path.name}:{node.lineno} {n}")
    assert offenders == []
