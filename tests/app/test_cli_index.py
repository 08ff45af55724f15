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


#: Zuno 0.10.3's built-ins, sorted by name as the index lists them (conformance Z-B, SPEC P1).
BUILTINS_SORTED = [
    "bedrock-model-capability-review", "codemap", "customize-zuno", "deepwork", "develop-zuno", "git-workflow",
    "github-delivery", "reflect", "ui-design", "verification-planning", "worktree",
]
POLICY_HEAD = "[Zuno 0.10.3 skill trigger policy: 1,423 characters of Zuno's own text, not shown here"


def test_index_prints_both_sections_joined_as_zuno_joins_them(workspace, capsys):
    code, out, err = run_cli(capsys, "--cwd", workspace["proj"])
    assert code == 0
    assert out.endswith("</skill_index>\n") and not out.endswith("\n\n")
    policy, index = out[:-1].split("\n\n")
    # Z-P: the trigger policy first — without Zuno installed, a marked stand-in of its exact size
    assert len(policy) == 1423 and policy.startswith(POLICY_HEAD) and set(policy[120:]) == {"."}
    lines = index.split("\n")
    # P2: the ambiguous name carries its locator right after the name attribute, in locator order
    assert [line for line in lines if 'name="pdf"' in line] == [
        f'  <skill name="pdf" source="{workspace["a"]}">Read PDFs &amp; forms.</skill>',
        f'  <skill name="pdf" source="{workspace["b"]}">Other pdf.</skill>',
    ]
    assert '  <skill name="zz-docx">Word files.</skill>' in lines
    names = [line.split('"')[1] for line in lines[1:-1]]
    assert names == sorted([*BUILTINS_SORTED, "pdf", "pdf", "zz-docx"])
    # everything fits the default 8,000: no coverage sentence; the stderr notes say whose prompt
    assert err.splitlines() == [
        "skillshelf: zuno: the prompt of agent orchestrator",
        "skillshelf: zuno: built-ins: Zuno 0.10.3 (skillshelf's data; Zuno's own texts are stand-ins of the same size)",
        "skillshelf: zuno: Zuno's texts: no `zuno` found on PATH (or $SKILLSHELF_ZUNO_BIN): Zuno's own texts are "
        "shown as stand-ins of the same size",
    ]


def test_index_json_document_gives_each_section_and_its_size(workspace, capsys):
    code, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--json", "--budget", "0")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"host", "client", "text", "sections", "rendered", "truncated", "omitted", "omittedNames",
                        "truncatedNames", "searchOnly", "budget", "usedChars", "budgetRule", "selectedRule",
                        "window", "notes"}
    index = (
        '<skill_index listed="0" total="14" />\nThe metadata budget omitted 14 entries. Action `list` pages '
        "through all 14 model-discoverable skills, and action `search` queries the same set."
    )
    policy = doc["sections"][0]
    assert (policy["id"], policy["source"], policy["characters"], policy["bytes"], policy["budgeted"],
            policy["standIn"]) == ("skills.policy", "zuno skill trigger policy", 1423, 1423, 0, True)
    assert doc["sections"][1] == {"id": "skills.index", "source": "discovered skill index", "text": index,
                                  "characters": 181, "bytes": 181, "budgeted": 0, "standIn": False}
    assert doc["text"] == policy["text"] + "\n\n" + index
    assert (doc["rendered"], doc["budget"], doc["usedChars"], doc["omitted"]) == (0, 0, 0, 14)
    assert doc["omittedNames"] == sorted([*BUILTINS_SORTED, "pdf", "pdf", "zz-docx"])
    assert doc["budgetRule"] == "--budget 0 characters"
    assert doc["client"] == "Zuno 0.10.3"


def test_index_budget_override_keeps_name_only_lines(workspace, capsys):
    # frame 28 + the cheapest name-only line: codemap and zz-docx cost 19 + 7 + 1 = 27, the name
    # breaks the tie → 55 fits codemap alone; Zuno's coverage sentence follows the render
    _code, out, _ = run_cli(capsys, "--cwd", workspace["proj"], "--budget", "55", "--json")
    doc = json.loads(out)
    assert doc["sections"][1]["text"] == (
        '<skill_index>\n  <skill name="codemap" />\n</skill_index>\nCatalog coverage: 1 of 14 indexed source '
        "identities; 13 omitted entries remain available through action `list` or `search`. 1 rendered "
        "description(s) were shortened first."
    )
    assert doc["sections"][1]["budgeted"] == doc["usedChars"] == 55
    assert (doc["rendered"], doc["truncated"], doc["truncatedNames"]) == (1, 1, ["codemap"])


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
    """Z-K/C2: the index still prints, and stderr says first that Zuno would refuse to start."""
    monkeypatch.setenv("ZUNO_CONFIG_CONTENT", '{"skills": ')
    from skillshelf.app.cli import main as cli_main

    assert cli_main(["index", "--cwd", str(zuno_home / "proj")]) == 0
    out = capsys.readouterr()
    assert out.out.startswith(POLICY_HEAD) and out.out.endswith("</skill_index>\n")
    # Z-K: Zuno refuses a layer it cannot parse; said first on stderr, the index still prints
    err = out.err.splitlines()
    assert err[0] == ("skillshelf: Zuno would refuse to start: $ZUNO_CONFIG_CONTENT:1:12: expected a value, "
                      "found the end of the text")
    assert not any(line.startswith("skillshelf: warning:") for line in err)  # said once


def test_a_warm_run_prints_what_a_cold_one_and_no_cache_print_and_leaves_the_collector_alone(
        workspace, capsys, monkeypatch):
    """A one-shot command freezes what it loads from the cache (parsecache.FREEZE_LOADED) and
    gives the collector back when it returns; the output is the same cold, warm and uncached."""
    import gc
    import os
    import shutil
    import time

    from skillshelf.core import parsecache

    monkeypatch.setattr(parsecache, "RACY_NS", 0)
    time.sleep(0.01)
    cold = run_cli(capsys, "--cwd", workspace["proj"])
    loaded: list[bool] = []
    real = parsecache._read_file

    def spy(*args, **kwargs):
        loaded.append(parsecache.FREEZE_LOADED)
        return real(*args, **kwargs)

    monkeypatch.setattr(parsecache, "_read_file", spy)
    # without the kept output of the first run (printed again without building: test_cli_kept_output)
    shutil.rmtree(os.path.join(os.environ["XDG_CACHE_HOME"], "skillshelf", "output"))
    warm = run_cli(capsys, "--cwd", workspace["proj"])
    assert loaded and all(loaded)  # the kept build was read, with freezing asked for
    assert not parsecache.FREEZE_LOADED and gc.get_freeze_count() == 0
    plain = run_cli(capsys, "--cwd", workspace["proj"], "--no-cache")
    assert cold == warm == plain and cold[0] == 0
