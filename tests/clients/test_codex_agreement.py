"""Host ``codex`` against the real Codex CLI 0.171.0 (SPEC N2): ``skills/list`` records, error
records (path and message, in order) and the ``<skills_instructions>`` block byte for byte.

Skips when the clients are not installed (``SKILLSHELF_CLIENTS_DIR``); the corpus workspaces
also need ``../shared``. Differences the known-differences file does not list fail."""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest
from codex_probe import catalog, native_binary, skills_list
from codex_workspaces import budget_workspace, corpus_workspace, rules_workspace
from known import unexplained
from realclients import require, require_shared

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.codex.discovery import CodexConfig, listing
from skillshelf.core.paths import Environment


def _env(home: str, extra: dict[str, str]) -> dict[str, str]:
    return {"HOME": home, "PATH": "/usr/bin:/bin", "SKILLSHELF_CODEX_BIN": native_binary(), **extra}


def _differences(ws: str, home: str, env: dict[str, str], *, context_window: int | None = None,
                 args: tuple[str, ...] = ()) -> tuple[list[tuple[str, str, str]], dict[str, Any]]:
    """(differences as (path, field, detail), counts) between the host and the client."""
    real = skills_list(ws, home, env)
    mine = listing(CodexConfig(ws, home, _env(home, env)))
    diffs: list[tuple[str, str, str]] = []
    real_skills = {s["path"]: s for s in real["skills"]}
    my_skills = {s.path: s.to_json() for s in mine.skills}
    for path in sorted(set(real_skills) | set(my_skills)):
        a, b = real_skills.get(path), my_skills.get(path)
        if a != b:
            diffs.append((path, "listed" if a is None or b is None else "record",
                          f"client {json.dumps(a)[:300]} host {json.dumps(b)[:300]}"))
    if [s["path"] for s in real["skills"]] != [s.path for s in mine.skills] and not diffs:
        diffs.append(("*", "order", "skills/list order differs"))
    my_errors = [{"path": e.path, "message": e.message} for e in mine.errors]
    if real["errors"] != my_errors:
        for line in difflib.unified_diff([json.dumps(e) for e in real["errors"]], [json.dumps(e) for e in my_errors],
                                         lineterm="", n=0):
            if line.startswith(("+{", "-{")):
                rec = json.loads(line[1:])
                diffs.append((rec["path"], "error", line[:300]))
    real_cat = catalog(ws, home, env, args)
    cat = Catalog.open(ws, env=Environment.from_mapping(_env(home, env)), host="codex", context_window=context_window)
    mine_cat = cat.model_catalog().text
    if real_cat != mine_cat:
        detail = "\n".join(list(difflib.unified_diff(real_cat.splitlines(), mine_cat.splitlines(), lineterm="", n=0))[:12])
        diffs.append(("*", "catalog", detail))
    own = [s for s in real["skills"] if s["scope"] != "system"]  # Codex installs six system skills at start
    return diffs, {"skills": len(own), "errors": len(real["errors"]), "catalog": len(real_cat)}


def test_rules_workspace_agrees_with_codex(tmp_path):
    require("codex")
    ws, home, env = rules_workspace(str(tmp_path))
    diffs, counts = _differences(ws, home, env)
    assert counts["skills"] > 30 and counts["errors"] >= 15
    assert unexplained("codex", "rules", diffs) == []


@pytest.mark.parametrize("n, desc_len, window", [(40, 300, 4_000), (400, 200, None), (200, 120, 20_000), (60, 90, 0)])
def test_budget_fitting_agrees_with_codex(tmp_path, n, desc_len, window):
    require("codex")
    ws, home, env = budget_workspace(str(tmp_path), n, desc_len)
    args = ("-c", f"model_context_window={window}") if window is not None else ()
    diffs, counts = _differences(ws, home, env, context_window=window, args=args)
    assert counts["skills"] == n
    assert unexplained("codex", f"budget-{n}", diffs) == []


@pytest.mark.parametrize("limit", [400, None])
def test_corpus_workspace_agrees_with_codex(tmp_path, limit):
    require("codex")
    corpus = require_shared() / "corpus"
    ws, home, env = corpus_workspace(str(tmp_path), corpus, limit=limit)
    diffs, counts = _differences(ws, home, env)
    assert counts["skills"] > (300 if limit else 900)
    assert unexplained("codex", "corpus", diffs) == []
