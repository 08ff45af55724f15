"""Every command under every registered host on one workspace (SPEC N1–N6, G1, C): ``debug skill
--json`` (status, ``shadowedBy``, the reason in the client's terms, name and description as the
client lists them), ``index --json``, ``lint --target``, ``tool`` and ``compare --json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.app.cli import main
from skillshelf.core.hosts import HOSTS, get_host, host_names
from skillshelf.core.hosts.base import Feature


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fm(name: str | None, description: str | None, extra: str = "") -> str:
    return ("---\n" + (f"name: {name}\n" if name else "") + (f"description: {description}\n" if description else "")
            + extra + "---\nBody of the skill.\n")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``R`` (a repository, the cwd) and ``H`` (HOME) with files every host settles differently."""
    (tmp_path / "R/.git").mkdir(parents=True)
    (tmp_path / "H").mkdir()
    write(tmp_path / "H/.claude/skills/pdf/SKILL.md", fm("pdf", "Personal PDF skill"))
    write(tmp_path / "R/.claude/skills/pdf/SKILL.md", fm("pdf", "Project PDF skill"))
    write(tmp_path / "R/.claude/skills/quiet/SKILL.md", fm("quiet", "Only when asked", "disable-model-invocation: true\n"))
    write(tmp_path / "R/.agents/skills/bom-file/SKILL.md", "\ufeff" + fm("bom-file", "Starts with a BOM"))
    write(tmp_path / "R/.agents/skills/noname/SKILL.md", fm(None, "No name here"))
    write(tmp_path / "R/.agents/skills/nodesc/SKILL.md", fm("nodesc", None))
    write(tmp_path / "R/.agents/skills/both/SKILL.md", fm("both", "The .agents copy"))
    write(tmp_path / "R/.gemini/skills/both/SKILL.md", fm("both", "The .gemini copy"))
    write(tmp_path / "R/.agents/skills/policy/SKILL.md", fm("policy", "Never implicit"))
    write(tmp_path / "R/.agents/skills/policy/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    write(tmp_path / "R/.zuno/skill/pdf/SKILL.md", fm("pdf", "Zuno project PDF"))
    write(tmp_path / "R/skills/weather/SKILL.md", fm("weather", "Look up the weather"))
    write(tmp_path / "R/skills/Bad_Name/SKILL.md", fm("Bad_Name", "A bad folder name"))
    for key in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
                "SKILLSHELF_CLIENTS_DIR", "SKILLSHELF_CODEX_BIN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "H"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    monkeypatch.chdir(tmp_path / "R")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def files(doc: dict, base: Path) -> dict[str, tuple]:
    """Relative path → (status, name, description, shadowedBy, reason) for every file."""
    out = {}
    for s in doc["sources"]:
        if s["location"].startswith(str(base)):
            out[s["location"][len(str(base)) + 1:]] = (
                s["status"], s["name"], s["description"], [p[len(str(base)) + 1:] for p in s["shadowedBy"]],
                s["statusReason"])
    for r in doc["rejected"]:
        out[r["location"][len(str(base)) + 1:]] = ("rejected", None, None, r["shadowedBy"], r["statusReason"])
    return out


CLAUDE_FIRST = ("{H}/.claude/skills/pdf/SKILL.md comes first: Claude Code lists the first copy of 'pdf' in root order "
                "(managed, user, project (nearest folder first), --add-dir, legacy commands); /skills shows this copy "
                "unadvertised")
OPENCODE_RACE = ("2 files are named `pdf`: opencode parses them concurrently and each parse that finishes overwrites "
                 "the name (WARN duplicate skill name), so any of them may win")

EXPECTED = {
    "zuno": {
        "R/.zuno/skill/pdf/SKILL.md": ("ok", "pdf", "Zuno project PDF", [], None),
        "R/.agents/skills/bom-file/SKILL.md": (
            "rejected", None, None, [],
            "skill {R}/.agents/skills/bom-file/SKILL.md has no string `name` in its frontmatter"),
        "R/.agents/skills/both/SKILL.md": ("ok", "both", "The .agents copy", [], None),
        "R/.agents/skills/nodesc/SKILL.md": ("ok", "nodesc", None, [], None),
        "R/.agents/skills/policy/SKILL.md": ("ok", "policy", "Never implicit", [], None),
        "R/.agents/skills/noname/SKILL.md": (
            "rejected", None, None, [],
            "skill {R}/.agents/skills/noname/SKILL.md has no string `name` in its frontmatter"),
    },
    "zhin": {
        "R/skills/weather/SKILL.md": ("ok", "weather", "Look up the weather", [], None),
        "R/skills/Bad_Name/SKILL.md": (
            "rejected", None, None, [], "folder name `Bad_Name` must match ^[a-z0-9][a-z0-9-]*$; Zhin skips this skill"),
    },
    "claude": {
        "H/.claude/skills/pdf/SKILL.md": ("ok", "pdf", "Personal PDF skill", [], None),
        "R/.claude/skills/pdf/SKILL.md": ("shadowed", "pdf", "Project PDF skill", ["H/.claude/skills/pdf/SKILL.md"],
                                          CLAUDE_FIRST),
        "R/.claude/skills/quiet/SKILL.md": (
            "hidden", "quiet", "Only when asked", [],
            "disable-model-invocation: only the user can run /quiet; the model is not told about it (/skills shows it "
            "as user-invocable-only)"),
    },
    "codex": {
        "R/.agents/skills/both/SKILL.md": ("ok", "both", "The .agents copy", [], None),
        "R/.agents/skills/noname/SKILL.md": ("ok", "noname", "No name here", [], None),
        "R/.agents/skills/policy/SKILL.md": (
            "hidden", "policy", "Never implicit", [],
            "agents/openai.yaml sets policy.allow_implicit_invocation: false; Codex lists it but never shows it to the "
            "model"),
        "R/.agents/skills/bom-file/SKILL.md": ("rejected", None, None, [], "missing YAML frontmatter delimited by ---"),
        "R/.agents/skills/nodesc/SKILL.md": ("rejected", None, None, [], "missing field `description`"),
    },
    "opencode": {
        "H/.claude/skills/pdf/SKILL.md": ("race", "pdf", "Personal PDF skill", ["R/.claude/skills/pdf/SKILL.md"],
                                          OPENCODE_RACE),
        "R/.claude/skills/pdf/SKILL.md": ("race", "pdf", "Project PDF skill", ["H/.claude/skills/pdf/SKILL.md"],
                                          OPENCODE_RACE),
        "R/.claude/skills/quiet/SKILL.md": ("ok", "quiet", "Only when asked", [], None),
        "R/.agents/skills/bom-file/SKILL.md": ("ok", "bom-file", "Starts with a BOM", [], None),
        "R/.agents/skills/both/SKILL.md": ("ok", "both", "The .agents copy", [], None),
        "R/.agents/skills/nodesc/SKILL.md": (
            "hidden", "nodesc", None, [],
            "no description: opencode lists it (debug skill, the skill tool can load it) but leaves it out of "
            "<available_skills>"),
        "R/.agents/skills/policy/SKILL.md": ("ok", "policy", "Never implicit", [], None),
        "R/.agents/skills/noname/SKILL.md": ("rejected", None, None, [], "no `name` key: opencode drops it silently"),
    },
    "gemini": {
        "R/.agents/skills/both/SKILL.md": ("ok", "both", "The .agents copy", [], None),
        "R/.gemini/skills/both/SKILL.md": (
            "shadowed", "both", "The .gemini copy", ["R/.agents/skills/both/SKILL.md"],
            'Skill conflict detected: "both" from "{R}/.agents/skills/both/SKILL.md" is overriding the same skill '
            'from "{R}/.gemini/skills/both/SKILL.md".'),
        "R/.agents/skills/policy/SKILL.md": ("ok", "policy", "Never implicit", [], None),
        "R/.agents/skills/noname/SKILL.md": (
            "rejected", None, None, [],
            "Gemini CLI skips it silently: `name` is missing in the YAML, and its line parser finds no `name:` line"),
        "R/.agents/skills/nodesc/SKILL.md": (
            "rejected", None, None, [],
            "Gemini CLI skips it silently: `description` is missing in the YAML, and its line parser finds no "
            "`description:` line"),
        "R/.agents/skills/bom-file/SKILL.md": (
            "rejected", None, None, [],
            "Gemini CLI skips it silently: the file starts with a byte-order mark (U+FEFF), so its first line is not "
            "`---`"),
    },
}


def test_every_registered_host_has_expectations() -> None:
    assert set(EXPECTED) == set(host_names())


@pytest.mark.parametrize("host", list(EXPECTED))
def test_debug_skill_json_per_host(ws: Path, capsys: pytest.CaptureFixture[str], host: str) -> None:
    rc, out, _ = run(capsys, "debug", "skill", "--host", host, "--json")
    doc = json.loads(out)
    assert rc == 0
    assert (doc["host"], doc["client"]) == (host, HOSTS[host].describe())
    expected = {k: tuple(x.replace("{H}", str(ws / "H")).replace("{R}", str(ws / "R")) if isinstance(x, str) else x
                         for x in v) for k, v in EXPECTED[host].items()}
    assert files(doc, ws) == expected
    for s in doc["sources"]:  # G1's keys on every source, rejected ones too
        assert {"name", "location", "provenance", "aliases", "exposure", "enabled", "described", "ambiguous",
                "status", "shadowedBy", "statusReason", "diagnostics"} <= set(s)
    for r in doc["rejected"]:
        assert {"location", "status", "shadowedBy", "statusReason", "diagnostics"} <= set(r)
        assert r["diagnostics"], r["location"]


@pytest.mark.parametrize("host", list(EXPECTED))
def test_debug_skill_text_names_the_client(ws: Path, capsys: pytest.CaptureFixture[str], host: str) -> None:
    rc, out, _ = run(capsys, "debug", "skill", "--host", host)
    assert rc == 0
    assert out.startswith(f"host {host} ({HOSTS[host].describe()}) · cwd {ws / 'R'} · generation 1 · ")


INDEX = {  # host → (listed, budget, budget rule)
    "zuno": (13, 8000, "context window unknown (no `model` configured: Zuno picks one from the providers it has "
                       "credentials for) → the default index budget of 8,000 characters"),
    "zhin": (1, None, "no budget: each description is cut at 96 characters"),
    "claude": (14, 30000, "1% of 1,000,000 tokens × 3 characters per token (claude-opus-5-5) = 30,000 columns"),
    "codex": (2, 10000, "2% of gpt-6.2-sol's 500,000-token context window: 10,000 tokens of 4 bytes"),
    "opencode": (6, None, "no budget: opencode sends every skill's whole description"),
    "gemini": (4, None, "no budget: Gemini CLI lists every enabled skill in full (no per-entry cap, no total limit)"),
}


@pytest.mark.parametrize("host", list(INDEX))
def test_index_json_per_host(ws: Path, capsys: pytest.CaptureFixture[str], host: str) -> None:
    rc, out, _ = run(capsys, "index", "--host", host, "--json")
    doc = json.loads(out)
    assert rc == 0
    assert (doc["host"], doc["client"]) == (host, HOSTS[host].describe())
    assert (doc["rendered"], doc["budget"], doc["budgetRule"]) == INDEX[host]
    rc, text, _ = run(capsys, "index", "--host", host)
    assert text == doc["text"] + "\n"


def test_index_text_per_client(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, opencode, err = run(capsys, "index", "--host", "opencode")
    assert "opencode's same-name race: `pdf` (2 copies)" in err
    assert "    <name>nodesc</name>" not in opencode  # hidden: no description
    _, codex, _ = run(capsys, "index", "--host", "codex")
    assert "- both: The .agents copy (file: " in codex and "policy" not in codex
    _, gemini, _ = run(capsys, "index", "--host", "gemini")
    assert "<description>The .agents copy</description>" in gemini and "The .gemini copy" not in gemini


LINT = {  # target → (valid, codes) for R/.agents/skills/bom-file/SKILL.md
    "claude": (True, ["claude-loads"]),
    "codex": (False, ["codex-error"]),
    "opencode": (True, ["opencode-loads"]),
    "gemini": (False, ["gemini-bom"]),
}


@pytest.mark.parametrize("target", list(LINT))
def test_lint_target_is_the_clients_verdict(ws: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    path = str(ws / "R/.agents/skills/bom-file/SKILL.md")
    rc, out, _ = run(capsys, "lint", path, "--target", target, "--json")
    doc = json.loads(out)
    assert doc["target"] == target
    assert (doc["files"][0]["valid"], [d["code"] for d in doc["files"][0]["diagnostics"]]) == LINT[target]
    assert rc == (0 if LINT[target][0] else 1)


def test_tool_per_host(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "tool", "--host", "codex", '{"name": "both"}')
    assert (rc, out, err) == (1, "", "skillshelf tool: Codex 0.171.0 gives the model no skill tool whose behaviour "
                                     "skillshelf reproduces\n")
    rc, out, err = run(capsys, "tool", "--host", "claude", '{"skill": "pdf"}')
    assert rc == 0 and out.startswith("Launching skill: pdf\n\nBase directory for this skill: "
                                      f"{ws}/H/.claude/skills/pdf\n")
    rc, out, err = run(capsys, "tool", "--host", "gemini", '{"name": "both"}')
    assert rc == 0 and out.startswith('<activated_skill name="both">\n  <instructions>\n    Body of the skill.')
    rc, out, err = run(capsys, "tool", "--host", "opencode", '{"name": "pdf"}')
    assert rc == 0 and out.startswith('<skill_content name="pdf">\n# Skill: pdf\n\nBody of the skill.\n')
    read = f"{ws}/H/.claude/skills/pdf/SKILL.md" if "H/.claude/skills/pdf" in out else f"{ws}/R/.claude/skills/pdf/SKILL.md"
    other = ({f"{ws}/H/.claude/skills/pdf/SKILL.md", f"{ws}/R/.claude/skills/pdf/SKILL.md"} - {read}).pop()
    assert err == (f"skillshelf: opencode 1.18.33: `pdf` is in a same-name race, either copy may win; this call read "
                   f"{read}, the client may read {other} instead\n")
    rc, out, err = run(capsys, "tool", "--host", "zhin", '{"name": "weather"}')
    assert rc == 0 and out.startswith("Skill 'weather' loaded.")
    rc, out, err = run(capsys, "tool", "--host", "zuno", '{"action": "load", "name": "both"}')
    assert rc == 0 and out.startswith("Loaded skill `both`.\n")


def test_compare_json_shape_and_cells(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "compare", "--json")
    doc = json.loads(out)
    assert rc == 0
    assert [h["name"] for h in doc["hosts"]] == list(host_names())
    for h in doc["hosts"]:
        assert {"name", "client", "version", "listed", "catalogChars", "budget"} <= set(h)
        assert (h["client"], h["version"]) == (HOSTS[h["name"]].client, HOSTS[h["name"]].version)
    rows = {r["location"][len(str(ws)) + 1:]: r["cells"] for r in doc["rows"]}
    for cells in rows.values():
        assert set(cells) == set(host_names())
        for c in cells.values():
            assert set(c) == {"state", "name", "description", "reason", "by"}
    pdf = rows["R/.claude/skills/pdf/SKILL.md"]
    assert pdf["claude"] == {"state": "shadowed", "name": "pdf", "description": "Project PDF skill",
                             "reason": CLAUDE_FIRST.replace("{H}", str(ws / "H")),
                             "by": str(ws / "H/.claude/skills/pdf/SKILL.md")}
    assert pdf["opencode"]["state"] == "race"
    assert pdf["opencode"]["by"] == [str(ws / "H/.claude/skills/pdf/SKILL.md")]
    assert pdf["zuno"]["state"] == "not-read"
    assert rows["R/.agents/skills/bom-file/SKILL.md"]["codex"] == {
        "state": "rejected", "name": None, "description": None, "reason": "missing YAML frontmatter delimited by ---",
        "by": None}
    assert rows["R/.agents/skills/policy/SKILL.md"]["codex"]["state"] == "hidden"
    assert rows["R/.gemini/skills/both/SKILL.md"]["gemini"]["by"] == str(ws / "R/.agents/skills/both/SKILL.md")
    rc, out, _ = run(capsys, "compare", "--json", "--hosts", "claude,codex", "--differ")
    doc = json.loads(out)
    assert [h["name"] for h in doc["hosts"]] == ["claude", "codex"]
    assert all(len({(c["state"], c["name"]) for c in r["cells"].values()}) > 1 for r in doc["rows"])



def test_compare_cells_show_the_description_as_the_catalog_shows_it(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(ws / "R/.zuno/skill/long/SKILL.md", fm("long", "Long " * 60))
    _, out, _ = run(capsys, "compare", "--json", "--hosts", "zuno,claude", "--context-window", "40000")
    _, index, _ = run(capsys, "index", "--context-window", "40000")
    cells = {r["location"][len(str(ws)) + 1:]: r["cells"] for r in json.loads(out)["rows"]}
    cut = cells["R/.zuno/skill/long/SKILL.md"]["zuno"]
    assert (cut["state"], cut["reason"]) == ("cut", "description cut to 18 characters")
    assert cut["description"] == "Long Long Long..."
    assert f'<skill name="long">{cut["description"]}</skill>' in index
    assert cells["R/.zuno/skill/pdf/SKILL.md"]["zuno"] == {
        "state": "listed", "name": "pdf", "description": "Zuno project PDF", "reason": "", "by": None}
    assert cells["R/.claude/skills/quiet/SKILL.md"]["claude"]["description"] == "Only when asked"


_WITHOUT_CONFIG = [name for name in host_names() if Feature.CONFIG not in get_host(name).features]
_WITHOUT_AGENTS = [name for name in host_names() if Feature.AGENTS not in get_host(name).features]


def test_hosts_without_config_or_agents_exist() -> None:
    assert _WITHOUT_CONFIG == ["zhin", "claude", "codex", "opencode", "gemini"]
    assert _WITHOUT_AGENTS == ["zhin", "claude", "codex", "opencode", "gemini"]


@pytest.mark.parametrize("host", _WITHOUT_CONFIG)
@pytest.mark.parametrize("argv", [["disable", "quiet"], ["enable", "quiet"], ["expose", "quiet", "--exposure", "search"],
                                  ["resolve", "pdf", "--keep", ".claude/skills/pdf"]], ids=lambda a: a[0])
def test_config_writes_under_a_host_without_skills_config_are_refused(
        ws: Path, capsys: pytest.CaptureFixture[str], host: str, argv: list[str]) -> None:
    """Writing Zuno's skills.config while looking through a client that never reads it would look
    like a fix and change nothing that client sees: usage error, nothing written."""
    client = get_host(host).describe()
    rc, out, err = run(capsys, *argv, "--host", host)
    assert (rc, out) == (2, "")
    assert err == (f"skillshelf {argv[0]}: host {host} has no skills.config: {argv[0]} writes Zuno's "
                   f"skills.config, which {client} never reads (use --host zuno)\n")
    assert not (ws / "R/.zuno/zuno.json").exists()
    rc, out, _ = run(capsys, *argv, "--host", host, "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "usage"


def test_config_writes_under_zuno_still_write(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "disable", "weather", "--path", "skills", "--dry-run")
    assert (rc, err) == (0, "")


@pytest.mark.parametrize("host", _WITHOUT_AGENTS)
def test_debug_agent_under_a_host_without_agents_is_refused(ws: Path, capsys: pytest.CaptureFixture[str],
                                                            host: str) -> None:
    client = get_host(host).describe()
    rc, out, err = run(capsys, "debug", "agent", "review", "--host", host)
    assert (rc, out) == (2, "")
    assert err == (f"skillshelf debug agent: host {host} has no agent profiles: {client} gives every "
                   "conversation the same skills (debug skill shows them; agents are Zuno's: use --host zuno)\n")
    rc, out, _ = run(capsys, "debug", "agent", "review", "--host", host, "--json")
    assert rc == 2 and json.loads(out)["error"] == {
        "code": "usage", "exit": 2,
        "message": f"host {host} has no agent profiles: {client} gives every conversation the same skills "
                   "(debug skill shows them; agents are Zuno's: use --host zuno)"}


def test_slash_note_is_for_a_skill_named_like_a_command_never_for_the_hosts_own_builtin(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code's bundled skills are its commands: the note that a skill shadows the command
    `/loop` belongs to a user's `loop`, not to the bundled `loop` itself."""
    write(ws / "H/.claude/skills/loop/SKILL.md", fm("loop", "My own loop"))
    rc, out, _ = run(capsys, "debug", "skill", "--json", "--host", "claude")
    assert rc == 0
    notes = {(s["provenance"], s["name"]): s["slashNote"] for s in json.loads(out)["sources"]}
    assert notes[("user", "loop")] == ("`/loop` is also Claude Code's own command; its lookup finds skills first, so "
                                       "`/loop` runs this skill instead of Claude Code's own `/loop`")
    assert ("builtin", "loop") in notes and ("builtin", "dataviz") in notes
    assert {k: v for k, v in notes.items() if k[0] == "builtin" and v is not None} == {}
