"""``skillshelf debug skill`` (SPEC G1) and ``debug agent`` (SPEC G2) end to end, on trees we write."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.app.cli import main


def skill(d: Path, name: str | None, desc: str | None = None, body: str = "body\n") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if desc is not None:
        lines.append(f"description: {desc}")
    lines.append("---")
    p = d / "SKILL.md"
    p.write_text("\n".join(lines) + "\n" + body, encoding="utf-8")
    return p


@pytest.fixture
def home(zuno_home):
    """The shared temporary HOME/XDG environment (tests/conftest.py)."""
    return zuno_home


#: Zuno 0.10.3's built-in pack, in pack order (conformance Z-B).
ZUNO_PACK_ORDER = [
    "customize-zuno", "develop-zuno", "deepwork", "codemap", "verification-planning", "reflect",
    "worktree", "git-workflow", "github-delivery", "ui-design", "bedrock-model-capability-review",
]


def run_json(capsys, *args) -> tuple[int, dict]:
    rc = main(list(args))
    out = capsys.readouterr().out
    return rc, json.loads(out)


def build_tree(t: Path) -> dict[str, Path]:
    proj = t / "proj"
    h = t / "home"
    paths = {
        "pdf_project": skill(proj / ".zuno/skill/pdf", "pdf", "Project PDF forms."),
        "pdf_home": skill(h / ".agents/skills/pdf", "pdf", "Read PDFs."),
        "good": skill(proj / ".agents/skills/good", "good", "A fine skill."),
        "quiet": skill(proj / ".agents/skills/quiet", "quiet"),
        "old": skill(proj / ".agents/skills/old", "old", "Old build tooling."),
        "searchy": skill(h / ".config/zuno/skill/searchy", "searchy", "Only found by search."),
    }
    bad = proj / ".agents/skills/broken"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("---\nname: [unclosed\n  - a: : :\n---\nB\n", encoding="utf-8")
    paths["broken"] = bad / "SKILL.md"
    noname = proj / ".agents/skills/noname"
    noname.mkdir(parents=True)
    (noname / "SKILL.md").write_text("---\ndescription: I forgot my name.\n---\nBody.\n", encoding="utf-8")
    paths["noname"] = noname / "SKILL.md"
    (h / ".config/zuno/skill/searchy/agents").mkdir(parents=True)
    (h / ".config/zuno/skill/searchy/agents/zuno.yaml").write_text("policy:\n  exposure: search\n", encoding="utf-8")
    # a symlink alias of `good` reached again through a configured path
    (t / "aliases").mkdir()
    os.symlink(proj / ".agents/skills/good", t / "aliases/good-link")
    (proj / ".zuno").mkdir(exist_ok=True)
    (proj / ".zuno/zuno.json").write_text(
        json.dumps(
            {
                "skills": {
                    "paths": [str(t / "aliases")],
                    "config": [{"path": str(proj / ".agents/skills/old"), "enabled": False}],
                },
                "agents": {
                    "docs": {"requiredSkills": ["pdf"]},
                    "writer": {"requiredSkills": ["good"], "profile": "plan", "tools": ["read"]},
                },
            }
        ),
        encoding="utf-8",
    )
    return paths


def test_g1_every_reached_file_appears_once_with_host_verdicts(home, capsys):
    paths = build_tree(home)
    proj = home / "proj"
    rc, doc = run_json(capsys, "debug", "skill", "--json", "--cwd", str(proj))
    assert rc == 0
    assert doc["host"] == "zuno" and doc["generation"] == 1 and len(doc["digest"]) == 64
    disk = [s for s in doc["sources"] if not s["location"].startswith("builtin://")]
    listed = sorted([s["location"] for s in disk] + [r["location"] for r in doc["rejected"]])
    assert listed == sorted(str(p) for p in paths.values())
    by_loc = {s["location"]: s for s in doc["sources"]}
    assert by_loc[str(paths["pdf_project"])]["ambiguous"] is True
    assert by_loc[str(paths["pdf_home"])]["ambiguous"] is True
    assert by_loc[str(paths["good"])]["aliases"] == [str(home / "aliases/good-link/SKILL.md")]
    old = by_loc[str(paths["old"])]
    assert (old["enabled"], old["status"]) == (False, "disabled")
    assert old["disabledReason"] == f"skills.config entry 1 in {proj / '.zuno/zuno.json'} (enabled: false)"
    searchy = by_loc[str(paths["searchy"])]
    assert searchy["exposure"] == "search"
    assert searchy["exposureReason"] == "sidecar agents/zuno.yaml policy.exposure"
    assert searchy["metadataSources"] == [str(home / "home/.config/zuno/skill/searchy/agents/zuno.yaml")]
    assert by_loc[str(paths["quiet"])]["described"] is False
    rejected = {r["location"]: r for r in doc["rejected"]}
    assert rejected[str(paths["noname"])]["warning"] == {
        "kind": "MissingName",
        "source": str(paths["noname"]),
        "message": f"skill {paths['noname']} has no string `name` in its frontmatter",
    }
    assert rejected[str(paths["broken"])]["warning"]["kind"] == "Frontmatter"
    assert rejected[str(paths["broken"])]["warning"]["message"].startswith(
        f"failed to load skill {paths['broken']}: invalid YAML frontmatter: "
    )
    diag = rejected[str(paths["broken"])]["diagnostics"][0]
    assert (diag["severity"], diag["line"]) == ("error", 2)  # where the unclosed `[` opened
    assert doc["summary"] == {
        "sources": 17,  # Zuno's 11 built-ins + pdf×2, good, quiet, old (disabled), searchy
        "indexed": 14,
        "searchable": 15,
        "explicit": 0,
        "disabled": 1,
        "described": 15,
        "unique": 15,
        "rejected": 2,
        "ambiguous": ["pdf"],
    }
    builtins = [s["location"] for s in doc["sources"][:11]]
    assert builtins == [f"builtin://zuno-orchestration/0.10.3/{name}" for name in ZUNO_PACK_ORDER]


def test_g1_text_form_marks_ambiguous_disabled_and_rejected(home, capsys):
    paths = build_tree(home)
    rc = main(["debug", "skill", "--cwd", str(home / "proj"), "--lint-target", "none"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "  pdf  index  project-zuno  [AMBIGUOUS]" in out.splitlines()
    assert "  old  index  project-agents  [disabled]" in out.splitlines()
    assert f"      skill {paths['noname']} has no string `name` in its frontmatter" in out.splitlines()
    assert out.splitlines()[-1] == "ambiguous: pdf"


def test_g2_agent_fails_to_start_on_an_ambiguous_required_skill(home, capsys):
    build_tree(home)
    rc, doc = run_json(capsys, "debug", "agent", "docs", "--json", "--cwd", str(home / "proj"))
    assert rc == 1
    assert doc["ok"] is False
    assert doc["requiredSkills"]["failures"][0]["name"] == "pdf"
    proj = home / "proj"
    assert doc["requiredSkills"]["failures"][0]["reason"] == (
        "agents.docs.requiredSkills references ambiguous Skill `pdf`; matching sources: "
        f"`{proj / '.zuno/skill/pdf/SKILL.md'}`, `{home / 'home/.agents/skills/pdf/SKILL.md'}`"
    )


def test_g2_a_custom_agent_sees_no_builtin_and_profile_is_a_note(home, capsys):
    paths = build_tree(home)
    rc, doc = run_json(capsys, "debug", "agent", "writer", "--json", "--cwd", str(home / "proj"), "--context-window", "200000")
    assert rc == 0 and doc["ok"] is True
    # Z-A: a custom agent's name is its profile; no built-in lists `writer`, so all eleven are hidden.
    assert [h["name"] for h in doc["hidden"]] == ZUNO_PACK_ORDER
    assert {h["reason"] for h in doc["hidden"]} == {"built-in not allowed for this agent's name or tools"}
    assert doc["notes"] == [
        "`agents.writer.profile` has no effect: Zuno has no `profile` key, the agent's name (writer) is its profile"
    ]
    assert doc["requiredSkills"]["resolved"] == [{"name": "good", "location": str(paths["good"])}]
    assert doc["budgets"]["index"]["budgetChars"] == 4000  # 2% of 200,000 tokens (Z-W)
    assert doc["budgets"]["index"]["rule"] == "200,000 tokens from --context-window → index budget 2% = 4,000 characters"
    assert (doc["budgets"]["selected"]["budget"], doc["budgets"]["selected"]["unit"]) == (80000, "bytes")  # 20,000 tok × 4
    assert doc["window"] == {
        "tokens": 200000, "origin": "--context-window", "model": None, "source": None, "note": None,
        "text": "200,000 tokens from --context-window",
    }


def test_unknown_agent_is_a_custom_agent_that_sees_no_builtin(home, capsys):
    build_tree(home)
    rc, doc = run_json(capsys, "debug", "agent", "nobody", "--json", "--cwd", str(home / "proj"))
    assert rc == 0
    assert (doc["configured"], doc["native"]) == (False, False)
    assert [h["name"] for h in doc["hidden"]] == ZUNO_PACK_ORDER


def test_native_review_agent_shows_its_required_skills_with_no_configuration(zuno_home, capsys):
    proj = zuno_home / "empty"
    proj.mkdir()
    rc, doc = run_json(capsys, "debug", "agent", "review", "--json", "--cwd", str(proj))
    assert (doc["configured"], doc["native"]) == (False, True)
    assert doc["requiredSkills"]["names"] == ["codemap", "verification-planning"]
    # review is in no built-in's profile list (Z-B table), so Zuno's own check fails both.
    assert doc["requiredSkills"]["failures"] == [
        {"name": "codemap", "reason": "agents.review.requiredSkills references unavailable Skill `codemap` after Agent visibility filtering"},
        {"name": "verification-planning", "reason": "agents.review.requiredSkills references unavailable Skill `verification-planning` after Agent visibility filtering"},
    ]
    assert rc == 1


def test_bad_cwd_is_a_usage_error(home, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["debug", "skill", "--cwd", str(home / "nope")])
    assert exc.value.code == 2


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="../shared/corpus is absent")
def test_corpus_every_reachable_skill_md_appears_exactly_once(home, capsys):
    corpus = SHARED / "corpus"
    rc, doc = run_json(capsys, "debug", "skill", "--json", "--lint-target", "none", "--cwd", str(home / "proj"), "--path", str(corpus))
    assert rc == 0
    listed = [s["location"] for s in doc["sources"] if not s["location"].startswith("builtin://")]
    listed += [r["location"] for r in doc["rejected"]]
    expected = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        if "SKILL.md" in filenames:
            expected.append(os.path.join(dirpath, "SKILL.md"))
    assert len(expected) == 1100
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(expected)


class _Terminal(io.StringIO):
    """A stdout that says it is a terminal."""

    def isatty(self) -> bool:
        return True


EVIL = "---\nname: \"evil\\e[31m\\e]0;title\\a\"\ndescription: \"x \\e[2J \\u202e y\"\n---\nBody \x1b[31m red\n"


def test_x1_debug_text_on_a_terminal_shows_escapes_visibly(home, monkeypatch):
    """SPEC X1: the text report used to write a skill's ESC/BEL bytes raw to the terminal."""
    proj = home / "proj"
    d = proj / ".agents/skills/evil"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(EVIL, encoding="utf-8")
    tty = _Terminal()
    monkeypatch.setattr("sys.stdout", tty)
    assert main(["debug", "skill", "--cwd", str(proj)]) == 0
    out = tty.getvalue()
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "  evil␛[31m␛]0;title␇  index  project-agents\n" in out
    pipe = io.StringIO()  # isatty() is False: a pipe still gets the exact text
    monkeypatch.setattr("sys.stdout", pipe)
    assert main(["debug", "skill", "--cwd", str(proj)]) == 0
    assert "  evil\x1b[31m\x1b]0;title\x07  index  project-agents\n" in pipe.getvalue()


# --------------------------------------------------------------------------- Z-K refusal, --format zuno (Z-T)


def _refusing_project(zuno_home) -> tuple[Path, str]:
    proj = zuno_home / "refusing"
    (proj / ".zuno").mkdir(parents=True)
    (proj / ".zuno" / "zuno.json").write_text('{"skills": {"maxContextTokens": 0}}', encoding="utf-8")
    message = (f"Zuno would refuse to start: {proj / '.zuno/zuno.json'}:1:33: invalid value: integer `0`, "
               "expected a nonzero u32")
    return proj, message


def test_zk_debug_skill_says_first_that_zuno_would_refuse_to_start(zuno_home, capsys):
    proj, message = _refusing_project(zuno_home)
    assert main(["debug", "skill", "--cwd", str(proj), "--lint-target", "none"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == message
    rc, doc = run_json(capsys, "debug", "skill", "--json", "--cwd", str(proj), "--lint-target", "none")
    assert rc == 0 and doc["refusal"] == message


def test_zk_debug_agent_exits_1_when_zuno_would_refuse_to_start(zuno_home, capsys):
    proj, message = _refusing_project(zuno_home)
    assert main(["debug", "agent", "build", "--cwd", str(proj)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == message and out[-2:] == ["agent build would FAIL to start:", f"  - {message}"]


def test_zt_format_zuno_prints_zunos_own_shapes(zuno_home, capsys):
    proj = zuno_home / "empty"
    proj.mkdir()
    rc, doc = run_json(capsys, "debug", "skill", "--format", "zuno", "--cwd", str(proj))
    assert rc == 0 and list(doc) == ["view", "summary", "warnings", "skills"]
    assert doc["view"] == {"kind": "raw_discovery", "agentFiltered": False, "extensionOverlayApplied": False}
    assert doc["summary"] == {"sourceCount": 11, "describedSourceCount": 11, "uniqueNameCount": 11,
                              "promptMetadataEnabled": True, "warningCount": 0, "ambiguousNames": []}
    assert [s["name"] for s in doc["skills"]] == ZUNO_PACK_ORDER
    rc, doc = run_json(capsys, "debug", "agent", "build", "--format", "zuno", "--cwd", str(proj))
    assert rc == 0 and doc["schemaVersion"] == 2
    summary = doc["skills"]["summary"]
    assert (summary["indexedSourceCount"], summary["metadataBudgetCharacters"], summary["selectedBodyBudgetBytes"],
            summary["previewLimit"]) == (11, 8000, 32000, 50)
    assert summary["metadataCoverage"] == {"rendered": 11, "omitted": 0, "truncated": 0}


def test_format_zuno_is_a_usage_error_for_another_host(zuno_home, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["debug", "skill", "--host", "zhin", "--format", "zuno", "--cwd", str(zuno_home)])
    assert exc.value.code == 2
    assert capsys.readouterr().err == "skillshelf: --format zuno: host zhin has no Zuno report shape\n"


def test_a_folder_named_with_line_breaks_cannot_forge_report_lines(home, capsys):
    """One item per line in the text report: a name or path holding a line break is written
    ``\\n`` / ``\\r`` (lint's form), on a pipe and on a terminal; --json keeps the exact text."""
    proj = home / "proj"
    forged = "x\n  pdf  index  global-agents\r"
    f = skill(proj / ".agents/skills" / forged, "real-name", "Desc.")
    assert main(["debug", "skill", "--cwd", str(proj)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("  real-name  index  project-agents")
    shown = str(f).replace("\n", "\\n").replace("\r", "\\r")
    assert lines[start + 1] == f"      {shown}"
    assert "  pdf  index  global-agents" not in lines
    assert not any(line.endswith("\r") for line in lines)
    assert lines[start + 2] == ("      lint/spec line 2 col 7: error[name-mismatch] (name) name `real-name` does not "
                                "match its folder `x\\n  pdf  index  global-agents\\r` (compared after NFKC)")
    _, doc = run_json(capsys, "debug", "skill", "--json", "--cwd", str(proj))
    assert str(f) in [s["location"] for s in doc["sources"]]


def test_a_host_finding_its_lint_repeats_is_shown_once(tmp_path, monkeypatch, capsys):
    proj, home = tmp_path / "p", tmp_path / "h"
    (proj / ".git").mkdir(parents=True)
    skill = proj / ".agents" / "skills" / "broken" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: broken\ndescription: foo: bar\n---\nbody\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    assert main(["debug", "skill", "--host", "codex", "--cwd", str(proj), "--no-cache"]) == 0
    out = capsys.readouterr().out
    repaired = [line.strip() for line in out.splitlines() if "warning[codex-repaired]" in line]
    assert len(repaired) == 1 and repaired[0].startswith("line 3 col 17: warning[codex-repaired] ")
