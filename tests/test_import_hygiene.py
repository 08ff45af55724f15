"""skillshelf.core never imports Textual or Rich (DESIGN "Measured here": harlequin's rule)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import skillshelf.core as core_package


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
    offenders = []
    for path in Path(core_package.__file__).parent.rglob("*.py"):
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


#: The package as one tree (package/, core/, widgets/, app/ linked the way setuptools maps them),
#: so grimp can walk it: the editable install maps folders with an import hook grimp cannot follow.
TREE = Path(__file__).resolve().parents[1] / ".ci" / "tree"

_CYCLES = r"""
import grimp
graph = grimp.build_graph("skillshelf")
index, low, stack, on, cycles = {}, {}, [], set(), []

def visit(v):  # Tarjan's strongly connected components, iteratively
    work = [(v, iter(sorted(graph.find_modules_directly_imported_by(v))))]
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    while work:
        node, children = work[-1]
        for w in children:
            if w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                break
            if w in on:
                low[node] = min(low[node], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    cycles.append(" <-> ".join(sorted(component)))

assert len(graph.modules) > 50, sorted(graph.modules)  # the whole package was found
for m in sorted(graph.modules):
    if m not in index:
        visit(m)
print("\n".join(cycles))
"""


def test_no_import_cycles_in_the_package():
    """No module of skillshelf imports itself through others (grimp's graph of the package)."""
    env = {**os.environ, "PYTHONPATH": str(TREE)}
    out = subprocess.run([sys.executable, "-c", _CYCLES], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == ""


def test_the_tuis_first_frame_imports_no_catalog_machinery():
    """What ``skillshelf`` imports before the first frame is drawn: the app, its start screen and
    the host's name — not the main screen and its widgets (the catalog list, the source pane's
    text area, the meters and the token counter behind them: imported once the start screen is
    drawn) nor the catalog machinery (configuration, JSONC, YAML, walks, the catalog, the other
    screens, the ``regex`` module), which the worker opening the catalog imports after that.
    Building the app as ``skillshelf`` does imports none of it either."""
    code = (
        "import sys\n"
        "from skillshelf.app.cli import build_parser, merged_options\n"
        "from skillshelf.app import tui\n"
        "app, _ = tui.app_for(merged_options(build_parser().parse_args(['--no-watch'])))\n"
        "banned = ('yaml', 'regex', 'skillshelf.core.config', 'skillshelf.core.jsonc', 'skillshelf.core.catalog',\n"
        "          'skillshelf.core.sidecar', 'skillshelf.core.scan', 'skillshelf.core.discovery',\n"
        "          'skillshelf.core.hosts.zuno.build', 'skillshelf.core.render', 'skillshelf.app.screens.whatif',\n"
        "          'skillshelf.app.screens.index_preview', 'skillshelf.app.screens.palette', 'tiktoken',\n"
        "          'skillshelf.app.screens.main', 'skillshelf.app.components.catalog_pane', 'skillshelf.app.budgets',\n"
        "          'skillshelf.widgets.source_pane', 'skillshelf.core.tokens', 'textual.widgets._text_area')\n"
        "print(','.join(m for m in banned if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
