"""``skillshelf tool REQUEST`` (SPEC C, C2, L) against a temporary home and project."""

from __future__ import annotations

import io
import json
import os

import pytest

from skillshelf.app.cli import main


@pytest.fixture()
def workspace(tmp_path, monkeypatch):
    """A project with two skills under ``.agents/skills`` and an isolated home (SPEC C1)."""
    home = tmp_path / "home"
    home.mkdir()
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for name, desc, body in [
        ("spreadsheet", "Handle spreadsheet work.", "Normalize the workbook.\n"),
        ("release-rust", "Release and publish a Rust CLI.", "Ship it.\n"),
    ]:
        d = proj / ".agents" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n{body}")
    (proj / ".agents" / "skills" / "spreadsheet" / "notes.md").write_text("Column A is the key.\n")
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return proj


def run(capsys, *argv):
    code = main(["tool", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_search_prints_exactly_the_tool_text(workspace, capsys):
    # available = every searchable source, built-ins included: take it from `list`
    _, listed, _ = run(capsys, '{"action":"list"}', "--cwd", str(workspace), "--json")
    available = json.loads(listed)["metadata"]["available"]
    code, out, _ = run(capsys, '{"action":"search","query":"spreadsheet"}', "--cwd", str(workspace))
    assert code == 0
    assert out == (
        f"Skill matches for `spreadsheet` (1 shown, 1 matched, {available} available):\n"
        "- spreadsheet: Handle spreadsheet work.\n"
        "Load the selected instructions with action `load`, its exact `name`, and the advertised "
        "`source` when one is present; do not treat a description as the skill body."
    )


def test_load_json_has_output_and_metadata(workspace, capsys):
    code, out, _ = run(capsys, '{"action":"load","name":"spreadsheet"}', "--cwd", str(workspace), "--json")
    assert code == 0
    doc = json.loads(out)
    location = str(workspace / ".agents" / "skills" / "spreadsheet" / "SKILL.md")
    assert doc["metadata"]["location"] == location
    assert doc["metadata"]["complete"] is True
    assert "--- BEGIN SKILL BODY ---\nNormalize the workbook.\n\n--- END SKILL BODY ---" in doc["output"]
    assert f"Source: `{location}`" in doc["output"]


def test_read_resource_is_byte_exact_on_a_pipe(workspace, capsys):
    code, out, _ = run(
        capsys, '{"action":"read_resource","name":"spreadsheet","path":"notes.md"}', "--cwd", str(workspace)
    )
    assert (code, out) == (0, "Column A is the key.\n")


def test_a_refusal_exits_1_with_the_text_on_stdout(workspace, capsys):
    code, out, _ = run(capsys, '{"action":"load","name":"deploy","query":"x"}', "--cwd", str(workspace))
    assert (code, out) == (1, "`skill` action `load` does not accept `query`")
    code, out, _ = run(capsys, '{"action":"load","name":"nope"}', "--cwd", str(workspace), "--json")
    assert code == 1
    err = json.loads(out)["error"]
    assert err["code"] == "unknown-skill"
    assert err["message"].startswith("Unknown skill `nope`. Use action `search`")
    assert "release-rust, " in err["message"] and "spreadsheet" in err["message"]


def test_invalid_json_is_a_usage_error_that_shows_the_request_shape(workspace, capsys):
    code, out, err = run(capsys, "{action:list}", "--cwd", str(workspace))
    assert code == 2 and out == ""
    assert err == (
        "skillshelf tool: REQUEST is not valid JSON: Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1)\n"
        "  REQUEST is one JSON object, as Zuno 0.10.3's model sends it, in single quotes for the shell:\n"
        "    skillshelf tool '{\"action\":\"list\"}'\n"
        "    skillshelf tool '{\"action\":\"search\",\"query\":\"pdf\"}'\n"
        "    skillshelf tool '{\"action\":\"load\",\"name\":\"pdf\"}'\n"
        "    skillshelf tool '{\"action\":\"read_resource\",\"name\":\"pdf\",\"path\":\"references/forms.md\"}'\n")
    code, out, err = run(capsys, "pdf", "--cwd", str(workspace), "--host", "claude")
    assert code == 2 and "    skillshelf tool --host claude '{\"skill\":\"pdf\"}'\n" in err
    code, out, err = run(capsys, "pdf", "--cwd", str(workspace), "--json")
    assert code == 2 and err == ""
    assert json.loads(out) == {"error": {"code": "invalid-request",
                                         "message": "REQUEST is not valid JSON: Expecting value: line 1 column 1 (char 0)",
                                         "examples": ['{"action":"list"}', '{"action":"search","query":"pdf"}',
                                                      '{"action":"load","name":"pdf"}',
                                                      '{"action":"read_resource","name":"pdf","path":"references/forms.md"}']}}


def test_z112_live_catalog_renamed_source_is_catalog_stale(workspace):
    """I3 with the real Catalog: a renamed skill folder → one refresh → catalog-stale naming the new locator."""
    from skillshelf.app.common import environment
    from skillshelf.core.catalog import Catalog
    from skillshelf.core.tool import SkillTool, ToolError

    catalog = Catalog.open(str(workspace), env=environment(), pull_remote=False)
    tool = SkillTool(catalog)
    skills = workspace / ".agents" / "skills"
    old = str(skills / "spreadsheet" / "SKILL.md")
    os.rename(skills / "spreadsheet", skills / "spreadsheet-new")
    new = str(skills / "spreadsheet-new" / "SKILL.md")
    number = catalog.current.number
    with pytest.raises(ToolError) as info:
        tool.call({"action": "load", "name": "spreadsheet", "source": old})
    assert info.value.code == "catalog-stale"
    assert info.value.message == (
        f"Skill catalog changed while loading `spreadsheet` from stale source `{old}`. "
        f"Retry with one currently advertised source: `{new}`"
    )
    assert catalog.current.number == number + 1
    loaded = tool.call({"action": "load", "name": "spreadsheet", "source": new})
    assert "Normalize the workbook." in loaded.output


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_x1_load_on_a_terminal_shows_escapes_visibly_and_a_pipe_gets_exact_bytes(workspace, monkeypatch):
    """SPEC X1: the body's ESC bytes used to reach the terminal raw."""
    (workspace / ".agents/skills/spreadsheet/SKILL.md").write_text(
        "---\nname: spreadsheet\ndescription: d\n---\nred \x1b[31m text\x07\n")
    req = ['{"action":"load","name":"spreadsheet"}', "--cwd", str(workspace)]
    tty = _Terminal()
    monkeypatch.setattr("sys.stdout", tty)
    assert main(["tool", *req]) == 0
    assert "red ␛[31m text␇" in tty.getvalue() and "\x1b" not in tty.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stdout", pipe)
    assert main(["tool", *req]) == 0
    assert "red \x1b[31m text\x07" in pipe.getvalue()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(workspace, capsys, constant):
    """Python's json accepts NaN/Infinity; the agent's JSON parser does not (exit 2, not a tool call)."""
    code, out, err = run(capsys, f'{{"action":"search","query":"x","limit":{constant}}}', "--cwd", str(workspace))
    assert (code, out) == (2, "")
    assert err.startswith(f"skillshelf tool: REQUEST is not valid JSON: {constant} is not valid JSON\n"
                          "  REQUEST is one JSON object")
