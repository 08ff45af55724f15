"""Cases B07 and B08 (same-name sources across one root and across two roots) end to end:
catalog, index ``source=``, ``ambiguous-skill`` refusal, lint name≠folder (SPEC D6, P2, I1, S1).
Each test builds its own tree; the ``real_`` variants also run ../shared/cases when present."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.app.cli import main
from skillshelf.core.resolve import ResolveError, resolve_name, resolve_slash

CASES = SHARED / "cases"


@pytest.fixture
def env(zuno_home):
    """The shared temporary HOME/XDG environment (tests/conftest.py)."""
    return zuno_home


def write(d: Path, name: str, desc: str) -> Path:
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nBody of {d.name}.\n", encoding="utf-8")
    return d / "SKILL.md"


def b07_tree(root: Path) -> dict[str, Path]:
    return {
        "alpha": write(root / "alpha", "shared-name", "Alpha copy of the shared skill."),
        "beta": write(root / "beta", "shared-name", "Beta copy of the shared skill."),
        "gamma": write(root / "gamma", "gamma", "The unique one."),
    }


def check_b07(env: Path, root: Path, capsys) -> None:
    alpha, beta = root / "alpha" / "SKILL.md", root / "beta" / "SKILL.md"
    common = ["--cwd", str(env / "proj"), "--path", str(root)]
    for _ in range(2):  # identical on every run
        assert main(["index", *common]) == 0
        text = capsys.readouterr().out.rstrip("\n")
        assert f'  <skill name="shared-name" source="{alpha}">' in text
        assert f'  <skill name="shared-name" source="{beta}">' in text
        assert '  <skill name="gamma">The unique one.</skill>' in text
    assert main(["debug", "skill", "--json", *common]) == 0
    doc = json.loads(capsys.readouterr().out)
    shared = [s for s in doc["sources"] if s["name"] == "shared-name"]
    assert [s["location"] for s in shared] == [str(alpha), str(beta)]
    assert all(s["ambiguous"] for s in shared)
    assert doc["summary"]["ambiguous"] == ["shared-name"]
    for s in shared:
        codes = [d["code"] for d in s["lint"]["diagnostics"]]
        assert "name-mismatch" in codes  # error for --target spec, ignored by host zuno
        assert s["status"] == "ok" and s["diagnostics"] == []
    assert main(["tool", '{"action":"load","name":"shared-name"}', *common]) == 1
    out = capsys.readouterr().out
    assert out.rstrip("\n") == (
        f"Skill name `shared-name` is ambiguous. Retry with one exact `source`: `{alpha}`, `{beta}`"
    )


def test_b07_same_name_in_one_root_is_ambiguous_and_both_carry_source(env, capsys):
    root = env / "skills"
    b07_tree(root)
    check_b07(env, root, capsys)


@pytest.mark.skipif(not (CASES / "B07").is_dir(), reason="../shared/cases is absent")
def test_b07_real_case_tree(env, capsys):
    root = env / "B07skills"
    shutil.copytree(CASES / "B07" / "skills", root, symlinks=True)
    from skillshelf.core.frontmatter import parse_skill_file

    names = {p.parent.name: parse_skill_file(str(p)).name for p in root.glob("*/SKILL.md")}
    assert names == {"alpha": "shared-name", "beta": "shared-name", "gamma": "gamma"}
    alpha, beta = root / "alpha" / "SKILL.md", root / "beta" / "SKILL.md"
    assert main(["index", "--cwd", str(env / "proj"), "--path", str(root)]) == 0
    text = capsys.readouterr().out
    assert f'<skill name="shared-name" source="{alpha}">' in text
    assert f'<skill name="shared-name" source="{beta}">' in text
    assert '<skill name="gamma">' in text


def test_b08_project_and_user_roots_keep_both_and_slash_is_disabled(env, capsys):
    proj_f = write(env / "proj/.agents/skills/formatter", "formatter", "Formats source files with the project settings.")
    user_f = write(env / "home/.agents/skills/formatter", "formatter", "Formats with the user's defaults.")
    write(env / "home/.agents/skills/linter", "linter", "Lints.")
    from skillshelf.app.common import environment
    from skillshelf.core.catalog import Catalog

    cat = Catalog.open(str(env / "proj"), env=environment(dict(os.environ)))
    gen = cat.current
    formatters = gen.named("formatter")
    assert [s.location for s in formatters] == [str(proj_f), str(user_f)]
    assert [s.provenance.value for s in formatters] == ["project-agents", "global-agents"]
    assert formatters[0].description == "Formats source files with the project settings."
    assert gen.get("formatter") is None and gen.get("linter") is not None
    with pytest.raises(ResolveError) as err:
        resolve_name(gen.entries(), "formatter")
    assert err.value.code == "ambiguous-skill"
    slash = resolve_slash(gen.entries(), "/formatter")
    assert slash.kind == "ambiguous"
    assert slash.locators == (str(proj_f), str(user_f))
    assert str(proj_f) in slash.message and str(user_f) in slash.message
