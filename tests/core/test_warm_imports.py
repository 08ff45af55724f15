"""A warm open of an unchanged tree reads no file, so it imports no reader: neither PyYAML (front
matter, sidecars) nor the lint machinery (the TUI's first rows wait for every import)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_OPEN = r"""
import json, sys
from skillshelf.core import catalog, parsecache
parsecache.RACY_NS = 0  # the files were written just now: trusted all the same (no racy window)
from skillshelf.core.paths import Environment
cwd, home, cache = sys.argv[1:4]
cat = catalog.Catalog.open(cwd, env=Environment.from_mapping({"HOME": home}), pull_remote=False,
                           cache_dir=cache, lint_target="zuno")
catalog.finish_saves()
loaded = sorted(m for m in sys.modules if m.split(".")[0] == "yaml" or m in (
    "skillshelf.core.hostlint", "skillshelf.core.lint", "skillshelf.core.frontmatter"))
print(json.dumps({"sources": sorted(s.name for s in cat.current.sources if s.location.startswith("/")),
                  "loaded": loaded}))
"""


def _open(tmp_path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _OPEN, str(tmp_path / "w"), str(tmp_path / "home"),
                          str(tmp_path / "cache")], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_a_warm_open_of_an_unchanged_tree_imports_no_reader(tmp_path):
    for name in ("alpha", "beta"):
        skill = tmp_path / "w" / ".zuno" / "skill" / name
        (skill / "agents").mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: the {name} skill\n---\nbody\n")
        (skill / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: true\n")
    (tmp_path / "home").mkdir()
    cold = _open(tmp_path)
    assert cold["sources"] == ["alpha", "beta"]
    assert "yaml" in cold["loaded"] and "skillshelf.core.hostlint" in cold["loaded"]  # every file read and linted
    warm = _open(tmp_path)
    assert warm == {"sources": ["alpha", "beta"], "loaded": []}
