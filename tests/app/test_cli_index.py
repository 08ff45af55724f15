"""``skillshelf index`` (SPEC C, P, U1)."""

from __future__ import annotations

import json

import pytest

from skillshelf.app.cli import main


def write_skill(folder, name, description):
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\nbody of {name}\n")
    return str(folder / "SKILL.md")


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    for key in list(__import__("os").environ):
        if key.startswith(("ZUNO_", "XDG_", "TIKTOKEN_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    proj = tmp_path / "proj"
    skills = proj / ".agents" / "skills"
    a = write_skill(skills / "pdf-a", "pdf", "Read PDFs & forms.")
    b = write_skill(skills / "pdf-b", "pdf", "Other pdf.")
    write_skill(skills / "zz-docx", "zz-docx", "Word files.")
    return {"proj": str(proj), "a": a, "b": b}


def run_cli(capsys, *args):
    code = main(["index", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_index_prints_the_rendered_text_and_one_newline(workspace, capsys):
    from skillshelf.app.cli import build_parser
    from skillshelf.app.common import open_catalog
    from skillshelf.core.render import Form, render_budgeted

    code, out, _err = run_cli(capsys, "--cwd", workspace["proj"])
    assert code == 0
    assert out.endswith("</skill_index>\n") and not out.endswith("\n\n")
    lines = out.split("\n")
    # P2: the ambiguous name carries its locator right after the name attribute, in locator order
    pdf_lines = [line for line in lines if 'name="pdf"' in line]
    assert pdf_lines == [
        f'  <skill name="pdf" source="{workspace["a"]}">Read PDFs &amp; forms.</skill>',
        f'  <skill name="pdf" source="{workspace["b"]}">Other pdf.</skill>',
    ]
    assert '  <skill name="zz-docx">Word files.</skill>' in lines
    # exactly what render_budgeted gives for the catalog at the default U1 budget (8,000)
    ns = build_parser().parse_args(["index", "--cwd", workspace["proj"]])
    entries = open_catalog(ns).current.entries()
    assert out == render_budgeted(entries, Form.INDEX, 8_000).text + "\n"


def test_index_json_document(workspace, capsys):
    code, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--json", "--budget", "0")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"host", "client", "text", "rendered", "truncated", "omitted", "omittedNames",
                        "truncatedNames", "searchOnly", "budget", "budgetRule"}
    assert (doc["host"], doc["client"], doc["budgetRule"]) == ("zuno", "Zuno 0.10.3", "--budget 0 characters")
    assert doc["text"] == "" and doc["rendered"] == 0 and doc["budget"] == 0
    assert doc["omitted"] == len(doc["omittedNames"]) >= 3
    assert doc["omittedNames"].count("pdf") == 2 and "zz-docx" in doc["omittedNames"]


def test_index_budget_override_keeps_name_only_lines(workspace, capsys):
    # frame 28 + the cheapest name-only line: zz-docx costs 19 + 7 + 1 = 27 → 55 fits it alone
    _code, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--budget", "55", "--json")
    doc = json.loads(out)
    assert doc["text"] == '<skill_index>\n  <skill name="zz-docx" />\n</skill_index>'
    assert (doc["rendered"], doc["truncated"], doc["truncatedNames"]) == (1, 1, ["zz-docx"])


def test_u1_default_budget_follows_context_window(workspace, capsys):
    _, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--json", "--context-window", "200000")
    assert json.loads(out)["budget"] == 4_000
    _, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--json")
    assert json.loads(out)["budget"] == 8_000


def test_u1_max_context_tokens_from_config(workspace, capsys, tmp_path):
    cfg = tmp_path / "extra.json"
    cfg.write_text(json.dumps({"skills": {"maxContextTokens": 25}}))
    _, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--json", "--config", str(cfg),
                        "--context-window", "200000")
    assert json.loads(out)["budget"] == 100


@pytest.mark.parametrize("form, head", [("list", "## Available Skills"), ("verbose", "<available_skills>")])
def test_index_other_forms(workspace, capsys, form, head):
    code, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--form", form, "--budget", "100000")
    assert code == 0 and out.split("\n", 1)[0] == head
    if form == "list":
        assert "- **zz-docx**: Word files.\n" in out
        assert "- **pdf**: Read PDFs & forms.\n" in out


@pytest.mark.parametrize("bad", ["-1", "ten"])
def test_bad_budget_is_a_usage_error(workspace, capsys, bad):
    with pytest.raises(SystemExit) as info:
        main(["index", "--cwd", workspace["proj"], "--budget", bad])
    assert info.value.code == 2


def test_missing_cwd_is_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["index", "--cwd", str(tmp_path / "nope")])
    assert info.value.code == 2


@pytest.mark.parametrize("bad", ["-5", "abc"])
def test_bad_context_window_is_a_usage_error(workspace, capsys, bad):
    """A negative window used to be accepted and silently rendered with the 8,000 default."""
    with pytest.raises(SystemExit) as info:
        main(["index", "--cwd", workspace["proj"], f"--context-window={bad}"])
    assert info.value.code == 2
    assert "--context-window: " in capsys.readouterr().err


def test_context_window_zero_means_unknown(workspace, capsys):
    code, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--context-window", "0", "--json")
    assert (code, json.loads(out)["budget"]) == (0, 8000)


def test_a_broken_config_layer_is_announced_on_stderr_while_stdout_stays_exact(zuno_home, capsys, monkeypatch):
    """SPEC K1/C2: the layer is skipped, the index still prints, and stderr says why."""
    monkeypatch.setenv("ZUNO_CONFIG_CONTENT", "{not json")
    from skillshelf.app.cli import main as cli_main

    assert cli_main(["index", "--cwd", str(zuno_home / "proj")]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("<skill_index>\n")
    err = out.err.splitlines()
    assert len(err) == 1 and err[0].startswith("skillshelf: warning: $ZUNO_CONFIG_CONTENT:1:6: ")
