"""``skillshelf enable|disable|expose`` and ``skillshelf undo`` (SPEC K3–K5, C), portable paths,
file modes, refusals, and writes from concurrent and killed processes. Every test isolates HOME
and XDG_* in ``tmp_path`` (SPEC C1), so the undo journal lives there too."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillshelf.app.cli import main


def _skill(root: Path, name: str, desc: str) -> str:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nBody.\n")
    return str(d / "SKILL.md")


@pytest.fixture()
def ws(tmp_path, monkeypatch):
    """A home (``~/.agents/skills``: pdf, tidy) and a project ``proj`` (worktree; ``.agents/skills``:
    pdf, notes, and ``sub/``). Returns a dict of paths."""
    home = tmp_path / "home"
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "sub").mkdir()
    paths = {
        "tmp": tmp_path, "home": home, "proj": proj,
        "project_pdf": _skill(proj / ".agents" / "skills", "pdf", "Project PDF tools."),
        "notes": _skill(proj / ".agents" / "skills", "notes", "Take notes."),
        "home_pdf": _skill(home / ".agents" / "skills", "pdf", "Home PDF tools."),
        "tidy": _skill(home / ".agents" / "skills", "tidy", "Tidy up."),
    }
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_", "SKILLSHELF_STATE")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(proj)
    return paths


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def states(capsys, proj: Path) -> dict[str, tuple[bool, str]]:
    """Every source as ``relative-or-~ locator → (enabled, exposure)`` (machine-independent)."""
    code, out, _ = run(capsys, "debug", "skill", "--json", "--cwd", str(proj))
    assert code == 0
    home = os.environ["HOME"]
    out_map = {}
    for s in json.loads(out)["sources"]:
        loc = s["location"]
        if loc.startswith("builtin://"):
            continue
        if loc.startswith(str(proj) + "/"):
            loc = "./" + loc[len(str(proj)) + 1:]
        elif loc.startswith(home + "/"):
            loc = "~/" + loc[len(home) + 1:]
        out_map[loc] = (s["enabled"], s["exposure"])
    return out_map


# ------------------------------------------------------------------------- must hold: change back


@pytest.mark.parametrize("before", [
    None,  # no config file yet: changing back removes the file skillshelf created
    "// team settings\n{\n  \"model\": \"big\", /* pinned */\n  \"skills\": {\n    \"config\": [\n"
    "      {\"path\": \"~/elsewhere\", \"exposure\": \"search\"},\n    ],\n  },\n}\n",
])
def test_conflict_resolved_then_changed_back_from_the_cli_is_byte_for_byte(ws, capsys, before):
    proj = ws["proj"]
    config = proj / ".zuno" / ("zuno.json" if before is None else "zuno.jsonc")
    if before is not None:
        config.parent.mkdir()
        config.write_bytes(before.encode())
    code, _, err = run(capsys, "resolve", "pdf", "--keep", ".agents/skills/pdf")
    assert (code, err) == (0, "")
    assert states(capsys, proj)["~/.agents/skills/pdf/SKILL.md"] == (False, "index")
    # changed back: the home copy enabled again, by its folder spelled with ~
    code, out, err = run(capsys, "enable", "~/.agents/skills/pdf")
    assert (code, err) == (0, "")
    if before is None:
        assert not config.exists()
        assert out.startswith(f"{config} (removed: skillshelf created it and it holds nothing else now):\n"
                              '  - {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}\n')
    else:
        assert config.read_bytes() == before.encode()
    assert states(capsys, proj)["~/.agents/skills/pdf/SKILL.md"] == (True, "index")


def test_conflict_resolved_then_undone_from_the_cli_is_byte_for_byte_across_sessions(ws, capsys):
    proj = ws["proj"]
    config = proj / ".zuno" / "zuno.json"
    config.parent.mkdir()
    before = b'{\r\n\t"skills": {"paths": ["~/x"]}\r\n}'
    config.write_bytes(before)
    os.chmod(config, 0o640)
    assert run(capsys, "resolve", "pdf", "--keep", ws["home_pdf"])[0] == 0
    assert run(capsys, "expose", "notes", "--exposure", "explicit")[0] == 0
    assert config.read_bytes() != before
    journal = ws["home"] / ".local" / "state" / "skillshelf"  # (copies of config files: the user's alone)
    kept = [journal, journal / "blobs", journal / "journal.json", *(journal / "blobs").iterdir()]
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in kept if p.is_dir()} == {"0o700"}
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in kept if p.is_file()} == {"0o600"}
    code, out, _ = run(capsys, "undo", "--list")
    assert code == 0
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["#2", "#1"]
    assert lines[0].endswith(f"  current  {config}  explicit notes: {ws['notes']}")
    assert lines[1].endswith(f"  changed  {config}  resolve pdf: disable {ws['project_pdf']}, "
                             "keep ~/.agents/skills/pdf/SKILL.md")
    # each undo is its own process run: the journal is on disk
    assert run(capsys, "undo")[0] == 0
    code, out, _ = run(capsys, "undo")
    assert code == 0 and out.startswith("undone #1 (resolve pdf:")
    assert config.read_bytes() == before
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    code, _, err = run(capsys, "undo")
    assert (code, err) == (1, "skillshelf undo: nothing to undo: the journal has no write left to undo\n")


def test_undo_refuses_a_file_changed_since(ws, capsys):
    proj = ws["proj"]
    assert run(capsys, "disable", "notes")[0] == 0
    config = proj / ".zuno" / "zuno.json"
    config.write_text(config.read_text() + "\n")
    code, _, err = run(capsys, "undo")
    assert code == 1
    assert err.startswith(f"skillshelf undo: {config} changed since skillshelf wrote it; not undone")
    code, out, _ = run(capsys, "undo", "--list", "--json")
    assert [w["state"] for w in json.loads(out)["writes"]] == ["changed"]


def test_undo_with_a_journal_it_cannot_write_changes_nothing_and_says_why(ws, capsys, monkeypatch):
    """A journal folder that refuses writes (read-only mount, immutable folder): the undo is
    refused before the file is touched, exit 1, no traceback; it works once the folder does."""
    from skillshelf.app import undo as undo_module

    proj = ws["proj"]
    assert run(capsys, "disable", "notes")[0] == 0
    config = proj / ".zuno" / "zuno.json"
    written = config.read_bytes()
    real_write = undo_module.write_atomically
    journal_file = str(ws["home"] / ".local" / "state" / "skillshelf" / "journal.json")

    def refuse(path, data, **kw):
        if str(path) == journal_file:
            raise PermissionError(1, "Operation not permitted", path)
        return real_write(path, data, **kw)

    monkeypatch.setattr(undo_module, "write_atomically", refuse)
    code, out, err = run(capsys, "undo")
    assert (code, out) == (1, "")
    assert err == (f"skillshelf undo: cannot update the undo journal in {os.path.dirname(journal_file)}: "
                   "Operation not permitted; nothing undone\n")
    assert config.read_bytes() == written
    code, out, err = run(capsys, "undo", "--json")
    assert code == 1 and json.loads(out)["error"]["exit"] == 1
    monkeypatch.setattr(undo_module, "write_atomically", real_write)
    code, out, _ = run(capsys, "undo")
    assert code == 0 and out.startswith("undone #1 (disable notes:")
    assert not config.exists()


def test_a_damaged_journal_is_said_kept_aside_and_started_anew(ws, capsys):
    """A journal skillshelf cannot read was an empty list (``no writes recorded``) and was then
    overwritten: it is said, and kept as ``journal.json.damaged`` when the next write starts anew."""
    journal = ws["home"] / ".local" / "state" / "skillshelf" / "journal.json"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b'{"entries": [garbage')
    code, out, err = run(capsys, "undo", "--list")
    assert (code, out) == (1, "")
    assert err == (f"skillshelf undo: the undo journal {journal} cannot be read (not a journal skillshelf wrote); "
                   "it is started anew (and kept as journal.json.damaged) at the next write\n")
    code, out, err = run(capsys, "undo")
    assert (code, out, err) == (1, "", f"skillshelf undo: nothing to undo: the undo journal {journal} cannot be "
                                       "read (not a journal skillshelf wrote)\n")
    assert run(capsys, "disable", "notes")[0] == 0
    assert (journal.parent / "journal.json.damaged").read_bytes() == b'{"entries": [garbage'
    code, out, _ = run(capsys, "undo", "--list")
    assert code == 0 and out.startswith("#1 ")


# ------------------------------------------------------------------------- must hold: portable


def test_project_write_gives_the_same_catalog_after_moving_project_and_home(ws, capsys, monkeypatch):
    proj, home, tmp = ws["proj"], ws["home"], ws["tmp"]
    assert run(capsys, "resolve", "pdf", "--keep", ws["project_pdf"])[0] == 0
    assert run(capsys, "expose", "notes", "--exposure", "search")[0] == 0
    assert run(capsys, "disable", "tidy")[0] == 0
    text = (proj / ".zuno" / "zuno.json").read_text()
    assert str(tmp) not in text  # nothing machine-specific was written
    assert json.loads(text)["skills"]["config"] == [
        {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": False},
        {"path": ".agents/skills/notes/SKILL.md", "exposure": "search"},
        {"path": "~/.agents/skills/tidy/SKILL.md", "enabled": False},
    ]
    here = states(capsys, proj)
    assert here == {
        "./.agents/skills/pdf/SKILL.md": (True, "index"),
        "./.agents/skills/notes/SKILL.md": (True, "search"),
        "~/.agents/skills/pdf/SKILL.md": (False, "index"),
        "~/.agents/skills/tidy/SKILL.md": (False, "index"),
    }
    # another machine: other HOME, other project folder
    other = tmp / "elsewhere"
    shutil.copytree(proj, other / "work" / "checkout")
    shutil.copytree(home, other / "users" / "me")
    monkeypatch.setenv("HOME", str(other / "users" / "me"))
    monkeypatch.chdir(other / "work" / "checkout")
    shutil.rmtree(proj)
    shutil.rmtree(home)
    assert states(capsys, other / "work" / "checkout") == here


def test_from_a_subfolder_no_relative_path_is_written_and_the_preview_says_why(ws, capsys):
    proj = ws["proj"]
    code, out, _ = run(capsys, "disable", ws["notes"], "--cwd", str(proj / "sub"), "--dry-run")
    assert code == 0
    assert out.splitlines()[1:] == [
        f'  + {{"path": "{ws["notes"]}", "enabled": false}}',
        f"      absolute: no relative spelling resolves to this file from here; not relative because "
        f"skillshelf runs in {proj / 'sub'}, not in {proj} where the config applies (Zuno joins "
        "relative paths to the folder it starts in)",
        "dry run: nothing written",
    ]


def test_global_file_never_gets_a_project_relative_path(ws, capsys):
    proj, tmp = ws["proj"], ws["tmp"]
    code, out, _ = run(capsys, "disable", "notes", "--global", "--dry-run")
    assert code == 0
    assert f'  + {{"path": "{ws["notes"]}", "enabled": false}}' in out.splitlines()
    assert (f"      absolute: {tmp}/home/.config/zuno/zuno.json applies to every project, so a "
            "project-relative path could match another project's file") in out.splitlines()
    assert not (proj / ".zuno").exists()


# ------------------------------------------------------------------------- spellings


@pytest.mark.parametrize("spelling", ["tidy", "~/.agents/skills/tidy", "~/.agents/skills/tidy/",
                                      "../home/.agents/skills/tidy/SKILL.md"])
def test_verbs_accept_any_spelling_of_one_source(ws, capsys, spelling):
    code, _, err = run(capsys, "disable", spelling)
    assert (code, err) == (0, "")
    assert states(capsys, ws["proj"])["~/.agents/skills/tidy/SKILL.md"] == (False, "index")


def test_a_name_of_several_sources_lists_them_exit_2(ws, capsys):
    code, out, err = run(capsys, "disable", "pdf")
    assert (code, out) == (2, "")
    assert err == ("skillshelf disable: pdf designates 2 sources; give one of them (a path or folder):\n"
                   f"  pdf  {ws['project_pdf']}\n  pdf  ~/.agents/skills/pdf/SKILL.md\n")
    code, _, err = run(capsys, "enable", "~/.agents/skills")
    assert code == 2 and err.startswith("skillshelf enable: ~/.agents/skills designates 2 sources")
    code, _, err = run(capsys, "enable", "nothing-here")
    assert (code, err) == (2, "skillshelf enable: nothing-here designates no skill source (give a skill "
                              "name, a SKILL.md path or its folder)\n")


def test_expose_then_back_to_the_skills_own_exposure(ws, capsys):
    config = ws["proj"] / ".zuno" / "zuno.json"
    assert run(capsys, "expose", "notes", "--exposure", "explicit")[0] == 0
    assert states(capsys, ws["proj"])["./.agents/skills/notes/SKILL.md"] == (True, "explicit")
    code, _out, _ = run(capsys, "expose", "notes", "--exposure", "index")
    assert code == 0
    assert not config.exists()  # back to nothing: the file skillshelf made is gone again
    assert states(capsys, ws["proj"])["./.agents/skills/notes/SKILL.md"] == (True, "index")


# ------------------------------------------------------------------------- modes and refusals


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_a_new_config_file_gets_the_normal_mode(ws, capsys, umask, mode):
    old = os.umask(umask)
    try:
        assert run(capsys, "disable", "tidy")[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((ws["proj"] / ".zuno" / "zuno.json").stat().st_mode) == mode


def test_an_existing_config_keeps_its_mode(ws, capsys):
    config = ws["proj"] / ".zuno" / "zuno.json"
    config.parent.mkdir()
    config.write_text("{}\n")
    os.chmod(config, 0o600)
    assert run(capsys, "disable", "tidy")[0] == 0
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert config.read_text() == '{"skills": {"config": [{"path": "~/.agents/skills/tidy/SKILL.md", "enabled": false}]}}\n'


def test_a_dangling_symlinked_config_is_refused_and_nothing_is_created(ws, capsys):
    proj, tmp = ws["proj"], ws["tmp"]
    (proj / ".zuno").mkdir()
    target = tmp / "outside" / "deep" / "zuno.json"
    (proj / ".zuno" / "zuno.json").symlink_to(target)
    code, out, err = run(capsys, "disable", "tidy")
    assert (code, out) == (1, "")
    assert err.endswith(f"skillshelf disable: the config file is a symlink to {target}, which does not "
                        "exist; skillshelf will not create it (fix the link, or choose another target "
                        "file with --file or --global)\n")
    assert not (tmp / "outside").exists()


def test_a_read_only_config_is_refused_naming_the_real_path(ws, capsys):
    proj, tmp = ws["proj"], ws["tmp"]
    real = tmp / "shared" / "zuno.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    os.chmod(real, 0o444)
    (proj / ".zuno").mkdir()
    (proj / ".zuno" / "zuno.json").symlink_to(real)
    code, _, err = run(capsys, "disable", "tidy")
    assert code == 1
    assert err.endswith(f"skillshelf disable: {real} is read-only (mode 0444); skillshelf will not replace "
                        "it (make it writable, or choose another target file with --file or --global)\n")
    assert real.read_text() == "{}\n" and (proj / ".zuno" / "zuno.json").is_symlink()


# ------------------------------------------------------------------------- concurrency and kills


def _env(ws) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZUNO_", "XDG_"))}
    env["HOME"] = str(ws["home"])
    return env


def test_concurrent_writers_each_apply_on_top_of_the_other(ws, capsys):
    names = [f"c{i}" for i in range(8)]
    for n in names:
        _skill(ws["home"] / ".agents" / "skills", n, f"Skill {n}.")
    procs = [subprocess.Popen([sys.executable, "-m", "skillshelf.app.cli", "disable", n], cwd=ws["proj"],
                              env=_env(ws), stdout=subprocess.PIPE, stderr=subprocess.PIPE) for n in names]
    results = [(p.wait(60), p.stderr.read().decode()) for p in procs if p.stderr]
    assert [code for code, _ in results] == [0] * len(names), results
    config = json.loads((ws["proj"] / ".zuno" / "zuno.json").read_text())
    written = sorted(e["path"] for e in config["skills"]["config"])
    assert written == sorted(f"~/.agents/skills/{n}/SKILL.md" for n in names)


def test_sigkill_during_writes_leaves_no_temporary_file_and_a_valid_config(ws, capsys):
    config = ws["proj"] / ".zuno" / "zuno.json"
    config.parent.mkdir()
    # a large file makes each write take long enough to be killed in the middle
    entries = ",\n".join(f'    {{"path": "/srv/s{i}/SKILL.md", "exposure": "search"}}' for i in range(20000))
    config.write_text('{"skills": {"config": [\n' + entries + "\n]}}\n")
    killed = 0
    for round_ in range(6):
        verb = "disable" if round_ % 2 == 0 else "enable"
        p = subprocess.Popen([sys.executable, "-m", "skillshelf.app.cli", verb, "tidy"], cwd=ws["proj"],
                             env=_env(ws), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.4 + 0.15 * round_)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed += 1
        p.wait(60)
        leftovers = [n for n in os.listdir(config.parent) if n.endswith(".tmp")]
        assert leftovers == []
        json.loads(config.read_text())  # never half-written
    assert killed > 0
