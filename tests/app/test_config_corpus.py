"""Issue "Configuration…" must-hold: on the real corpus, a config that disables one subtree,
re-enables one skill under it and marks another subtree search-only is obeyed by
``debug skill --json`` and by ``index`` (SPEC K3–K4, E1, P1). Skipped without ../shared."""

from __future__ import annotations

import json
import os

import pytest
from conftest import SHARED

from skillshelf.app.cli import main

CORPUS = SHARED / "corpus"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")


@pytest.fixture
def env(zuno_home):
    """The shared temporary HOME/XDG environment (tests/conftest.py)."""
    return zuno_home


def test_disable_subtree_reenable_one_and_search_only_subtree(env, capsys):
    anth = CORPUS / "anthropics__skills"
    reenabled = anth / "skills" / "mcp-builder" / "SKILL.md"
    obra = CORPUS / "obra__superpowers"
    cfg = env / "rules.jsonc"
    cfg.write_text(
        "{\n  // disable one subtree, re-enable one skill under it, search-only another subtree\n"
        '  "skills": {"config": [\n'
        f'    {{"path": "{anth}", "recursive": true, "enabled": false}},\n'
        f'    {{"path": "{reenabled}"}},\n'
        f'    {{"path": "{obra}", "recursive": true, "exposure": "search"}},\n'
        "  ]}\n}\n",
        encoding="utf-8",
    )
    common = ["--cwd", str(env / "proj"), "--path", str(CORPUS), "--config", str(cfg)]
    assert main(["debug", "skill", "--json", "--lint-target", "none", *common]) == 0
    doc = json.loads(capsys.readouterr().out)
    under = lambda s, d: s["location"].startswith(str(d) + os.sep)  # noqa: E731
    anth_sources = [s for s in doc["sources"] if under(s, anth)]
    assert len(anth_sources) == 14
    for s in anth_sources:
        if s["location"] == str(reenabled):
            assert (s["enabled"], s["status"]) == (True, "ok")
        else:
            assert (s["enabled"], s["status"]) == (False, "disabled"), s["location"]
            assert s["disabledReason"] == f"skills.config entry 1 in {cfg} (enabled: false)"
    obra_sources = [s for s in doc["sources"] if under(s, obra)]
    assert len(obra_sources) == 14
    assert {s["exposure"] for s in obra_sources} == {"search"}
    assert {s["exposureReason"] for s in obra_sources} == {f"skills.config entry 3 in {cfg} (exposure: search)"}
    assert doc["summary"]["disabled"] == 13

    assert main(["index", "--json", "--budget", "10000000", *common]) == 0
    idx = json.loads(capsys.readouterr().out)
    text = idx["text"]
    assert '<skill name="mcp-builder"' in text
    # canvas-design exists only under the disabled subtree; brainstorming only in the search-only one.
    assert '<skill name="canvas-design"' not in text
    assert '<skill name="brainstorming"' not in text
    assert idx["searchOnly"] == sum(
        1 for s in doc["sources"] if s["enabled"] and s["exposure"] == "search" and s["described"]
    )
    indexed = [s for s in doc["sources"] if s["enabled"] and s["exposure"] == "index" and s["described"]]
    assert idx["rendered"] == len(indexed)

    assert main(["tool", '{"action":"search","query":"brainstorming"}', *common]) == 0
    assert "- brainstorming:" in capsys.readouterr().out
