"""core/configwrite: planning, splicing, atomic writing and undo of ``skills.config`` entries
(SPEC K5, with K1 precedence and K3/K4 matching re-checked through :func:`load_config`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.core import configwrite
from skillshelf.core.config import load_config
from skillshelf.core.configwrite import (
    Choice,
    ConfigWriteError,
    PlannedEntry,
    append_rules,
    apply_plan,
    default_target,
    global_target,
    plan_resolution,
    undo,
)
from skillshelf.core.model import Exposure, Provenance, Source

# ------------------------------------------------------------------------------------ fixtures


def _skill(root, name: str = "pdf") -> str:
    d = root / name
    d.mkdir(parents=True)
    f = d / "SKILL.md"
    f.write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n")
    return str(f)


def _source(path: str, *, enabled: bool = True, exposure: Exposure = Exposure.INDEX,
            name: str = "pdf") -> Source:
    return Source(name=name, location=path, provenance=Provenance.PROJECT_AGENTS,
                  canonical=os.path.realpath(path), enabled=enabled, exposure=exposure)


@pytest.fixture()
def two(tmp_path):
    """Two ``pdf`` sources (project and home) and a project directory with ``.git``."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    a = _skill(proj / ".agents" / "skills")
    b = _skill(tmp_path / "home" / ".agents" / "skills")
    return tmp_path, proj, a, b


def _load(tmp_path, proj):
    return load_config(cwd=str(proj), worktree=str(proj), home=str(tmp_path / "home"),
                       xdg_config_home=str(tmp_path / "xdg"), env={})


def _write(path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return str(path)


# ------------------------------------------------------------------------------------ splicing


def test_k5_jsonc_comments_and_trailing_commas_every_other_byte_unchanged(two):
    _tmp_path, proj, a, b = two
    before = (
        "// project settings\n"
        "{\n"
        '  "theme": "dark", /* keep me */\n'
        '  "skills": {\n'
        '    "paths": ["~/extra",],\n'
        '    "config": [\n'
        '      {"path": "~/old", "enabled": false}, // old rule\n'
        "    ],\n"
        "  },\n"
        "}\n"
    )
    target = _write(proj / ".zuno" / "zuno.jsonc", before)
    plan = plan_resolution([_source(a), _source(b)], "pdf",
                           {a: Choice.KEEP, b: Choice.DISABLE}, target=target)
    assert plan.entries == (PlannedEntry(b, enabled=False),)
    assert plan.before == before and not plan.created
    assert plan.after == (
        "// project settings\n"
        "{\n"
        '  "theme": "dark", /* keep me */\n'
        '  "skills": {\n'
        '    "paths": ["~/extra",],\n'
        '    "config": [\n'
        '      {"path": "~/old", "enabled": false}, // old rule\n'
        f'      {{"path": "{b}", "enabled": false}},\n'
        "    ],\n"
        "  },\n"
        "}\n"
    )


def test_k5_json_file_with_comments_no_trailing_comma(two):
    _tmp_path, proj, a, b = two
    before = (
        "{\n"
        "    // rules\n"
        '    "skills": {\n'
        '        "config": [\n'
        '            {"path": "/x/SKILL.md"} // only one\n'
        "        ]\n"
        "    }\n"
        "}"
    )
    target = _write(proj / ".zuno" / "zuno.json", before)
    plan = plan_resolution([_source(a), _source(b)], "pdf",
                           {a: Choice.KEEP, b: Choice.SEARCH}, target=target)
    assert plan.after == (
        "{\n"
        "    // rules\n"
        '    "skills": {\n'
        '        "config": [\n'
        '            {"path": "/x/SKILL.md"}, // only one\n'
        f'            {{"path": "{b}", "exposure": "search"}}\n'
        "        ]\n"
        "    }\n"
        "}"
    )


def test_k5_strict_json_only_the_entries_are_added(two):
    _tmp_path, proj, a, b = two
    before = '{\n  "model": "m",\n  "skills": {\n    "config": [\n      {"path": "/y"}\n    ]\n  },\n  "z": [1, 2]\n}\n'
    target = _write(proj / ".zuno" / "zuno.json", before)
    plan = plan_resolution([_source(a), _source(b)], "pdf",
                           {a: Choice.KEEP, b: Choice.DISABLE}, target=target)
    added = f'      {{"path": "{b}", "enabled": false}}\n'
    assert plan.after == before.replace('{"path": "/y"}\n', '{"path": "/y"},\n' + added)
    # removing exactly the inserted characters gives the original back
    assert plan.after.replace(",\n" + added, "\n", 1) == before


def test_k5_file_absent_created_with_only_our_keys(two):
    tmp_path, proj, a, b = two
    target = default_target(str(proj), str(proj))
    assert target == str(proj / ".zuno" / "zuno.json")
    plan = plan_resolution([_source(a), _source(b)], "pdf",
                           {a: Choice.KEEP, b: Choice.DISABLE}, target=target)
    assert plan.created and plan.before is None
    assert plan.after == (
        '{\n  "skills": {\n    "config": [\n'
        f'      {{"path": "{b}", "enabled": false}}\n'
        "    ]\n  }\n}\n"
    )
    result = apply_plan(plan)
    assert result.created and result.backup is None and result.written
    assert (proj / ".zuno" / "zuno.json").read_text() == plan.after
    cfg = _load(tmp_path, proj)
    assert cfg.decide(os.path.realpath(b)).enabled is False
    assert cfg.decide(os.path.realpath(a)).enabled is True


def test_k5_skills_present_without_config(two):
    _tmp_path, proj, a, b = two
    before = '{\n  "skills": {\n    "paths": ["~/x"]\n  },\n  "other": true\n}\n'
    target = _write(proj / ".zuno" / "zuno.json", before)
    plan = plan_resolution([_source(a), _source(b)], "pdf",
                           {a: Choice.KEEP, b: Choice.EXPLICIT}, target=target)
    assert plan.after == (
        '{\n  "skills": {\n    "paths": ["~/x"],\n    "config": [\n'
        f'      {{"path": "{b}", "exposure": "explicit"}}\n'
        '    ]\n  },\n  "other": true\n}\n'
    )


def test_k5_no_skills_key_inline_file_and_tabs_crlf_bom():
    items = [{"path": "/p/SKILL.md", "enabled": False}]
    assert append_rules('{"a": 1}', items) == '{"a": 1, "skills": {"config": [{"path": "/p/SKILL.md", "enabled": false}]}}'
    assert append_rules('\ufeff{\r\n\t"a": 1\r\n}\r\n', items) == (
        '\ufeff{\r\n\t"a": 1,\r\n\t"skills": {\r\n\t\t"config": [\r\n'
        '\t\t\t{"path": "/p/SKILL.md", "enabled": false}\r\n\t\t]\r\n\t}\r\n}\r\n'
    )
    assert append_rules("{\n  // nothing yet\n}\n", items) == (
        '{\n  // nothing yet\n  "skills": {\n    "config": [\n'
        '      {"path": "/p/SKILL.md", "enabled": false}\n    ]\n  }\n}\n'
    )


def test_k5_json5_files_zuno_refuses_are_not_written():
    # config.py reads JSON5 leniently (config-nonstandard), but Zuno refuses the file: entries
    # written there would never apply, so skillshelf says so instead of writing
    before = "{skills: {config: ['~/a',],},}"
    with pytest.raises(ConfigWriteError) as err:
        append_rules(before, [{"path": "/p"}], label="/c/zuno.json")
    assert str(err.value) == ("/c/zuno.json:1:2: the unquoted key `skills` is not JSON with comments; "
                              "skillshelf will not rewrite it (fix it, or choose another target file)")


@pytest.mark.parametrize("text, why", [
    ('{"skills": ', "expected a value, found the end of the text"),
    ("[1, 2]", "top level is not an object"),
    ('{"skills": []}', "`skills` is not an object"),
    ('{"skills": {"config": {"path": "/x"}}}', "`skills.config` is not an array"),
])
def test_k5_unpreservable_files_are_refused(text, why):
    with pytest.raises(ConfigWriteError) as err:
        append_rules(text, [{"path": "/p"}], label="/c/zuno.json")
    assert why in str(err.value)
    assert "choose another target file" in str(err.value)


# ------------------------------------------------------------------------------------ rules


def test_k4_other_entries_kept_the_replaced_one_removed_ours_last(two):
    tmp_path, proj, a, b = two
    # an earlier entry says b is search-only; ours replaces it (K4: it could never win again),
    # so it goes; the entry for another path stays where it is
    before = f'{{"skills": {{"config": [{{"path": "{b}", "exposure": "search"}}, {{"path": "/q"}}]}}}}'
    target = _write(proj / ".zuno" / "zuno.json", before)
    cfg = _load(tmp_path, proj)
    plan = plan_resolution([_source(a), _source(b, exposure=Exposure.SEARCH)], "pdf",
                           {a: Choice.KEEP, b: Choice.DISABLE}, target=target, config=cfg)
    apply_plan(plan)
    after = _load(tmp_path, proj)
    assert [r.raw_path for r in after.rules] == ["/q", b]
    d = after.decide(os.path.realpath(b))
    assert (d.enabled, d.rule.index) == (False, 1)


def test_k4_kept_source_under_earlier_recursive_disable_gets_enabling_entry(two):
    tmp_path, proj, a, b = two
    skills_dir = str(proj / ".agents" / "skills")
    before = f'{{\n  "skills": {{\n    "config": [\n      {{"path": "{skills_dir}", "recursive": true, "enabled": false}}\n    ]\n  }}\n}}\n'
    target = _write(proj / ".zuno" / "zuno.json", before)
    cfg = _load(tmp_path, proj)
    assert cfg.decide(os.path.realpath(a)).enabled is False
    plan = plan_resolution([_source(a, enabled=False), _source(b)], "pdf",
                           {a: Choice.KEEP, b: Choice.DISABLE}, target=target, config=cfg)
    assert [e.to_json() for e in plan.entries] == [
        {"path": os.path.realpath(a), "enabled": True},
        {"path": os.path.realpath(b), "enabled": False},
    ]
    apply_plan(plan)
    after = _load(tmp_path, proj)
    assert after.decide(os.path.realpath(a)).enabled is True
    assert after.decide(os.path.realpath(b)).enabled is False


def test_k5_sources_already_in_chosen_state_get_no_entry(two):
    _tmp_path, proj, a, b = two
    target = str(proj / ".zuno" / "zuno.json")
    plan = plan_resolution([_source(a), _source(b, exposure=Exposure.SEARCH)], "pdf",
                           {a: Choice.KEEP, b: Choice.SEARCH}, target=target)
    assert plan.entries == () and not plan.changes
    assert plan.note.startswith("nothing to write")
    result = apply_plan(plan)
    assert result.written is False
    assert not os.path.exists(target)


def test_k5_entries_target_the_canonical_skill_md(tmp_path):
    real = _skill(tmp_path / "real")
    link_dir = tmp_path / "alias"
    link_dir.symlink_to(tmp_path / "real")
    spelled = str(link_dir / "pdf" / "SKILL.md")
    other = _skill(tmp_path / "other")
    plan = plan_resolution([_source(spelled), _source(other)], "pdf",
                           {other: Choice.KEEP, spelled: Choice.DISABLE},
                           target=str(tmp_path / "c" / "zuno.json"))
    assert plan.entries[0].path == real
    assert plan.entries[0].locator == spelled


def test_k5_unknown_locator_and_builtin_are_refused(two):
    _tmp_path, proj, a, b = two
    target = str(proj / ".zuno" / "zuno.json")
    with pytest.raises(ConfigWriteError, match="is not a source of skill `pdf`"):
        plan_resolution([_source(a), _source(b)], "pdf", {"/nope/SKILL.md": Choice.KEEP}, target=target)
    builtin = Source(name="pdf", location="builtin://pdf/SKILL.md", provenance=Provenance.BUILTIN,
                     canonical="builtin://pdf/SKILL.md")
    with pytest.raises(ConfigWriteError, match="built-in"):
        plan_resolution([builtin, _source(a)], "pdf",
                        {a: Choice.KEEP, "builtin://pdf/SKILL.md": Choice.DISABLE}, target=target)


# ------------------------------------------------------------------------------------ layers (K1)


def test_k1_higher_layer_owning_skills_config_refuses(two, tmp_path):
    _, proj, a, b = two
    higher = _write(proj / ".zuno" / "zuno.json", '{"skills": {"config": [{"path": "/q"}]}}')
    lower = _write(proj / "zuno.json", '{"model": "x"}')
    cfg = _load(tmp_path, proj)
    with pytest.raises(ConfigWriteError) as err:
        plan_resolution([_source(a), _source(b)], "pdf", {a: Choice.KEEP, b: Choice.DISABLE},
                        target=lower, config=cfg)
    assert f"skills.config in {higher} takes precedence" in str(err.value)
    assert f"target {higher}" in str(err.value)


def test_k1_inherited_entries_are_copied_before_ours(two, tmp_path):
    _, proj, a, b = two
    _write(tmp_path / "xdg" / "zuno" / "zuno.json",
           '{"skills": {"config": [{"path": "~/gone", "enabled": false}]}}')
    target = default_target(str(proj), str(proj))
    cfg = _load(tmp_path, proj)
    plan = plan_resolution([_source(a), _source(b)], "pdf", {a: Choice.KEEP, b: Choice.DISABLE},
                           target=target, config=cfg)
    assert plan.inherited == ({"path": "~/gone", "enabled": False},)
    assert "copied first" in plan.note
    assert plan.after == (
        '{\n  "skills": {\n    "config": [\n'
        '      {"path": "~/gone", "enabled": false},\n'
        f'      {{"path": "{b}", "enabled": false}}\n'
        "    ]\n  }\n}\n"
    )
    apply_plan(plan)
    after = _load(tmp_path, proj)
    assert [r.raw_path for r in after.rules] == ["~/gone", b]


def test_targets_prefer_existing_jsonc(tmp_path):
    assert default_target(str(tmp_path / "cwd"), None) == str(tmp_path / "cwd" / ".zuno" / "zuno.json")
    _write(tmp_path / "wt" / ".zuno" / "zuno.jsonc", "{}")
    assert default_target(str(tmp_path / "wt" / "sub"), str(tmp_path / "wt")) == str(
        tmp_path / "wt" / ".zuno" / "zuno.jsonc")
    assert global_target(str(tmp_path / "xdg")) == str(tmp_path / "xdg" / "zuno" / "zuno.json")
    _write(tmp_path / "xdg" / "zuno" / "zuno.jsonc", "{}")
    assert global_target(str(tmp_path / "xdg")) == str(tmp_path / "xdg" / "zuno" / "zuno.jsonc")


# ------------------------------------------------------------------------------------ writing


def _plan(two, before: str | None):
    _tmp_path, proj, a, b = two
    path = proj / ".zuno" / "zuno.jsonc"
    if before is not None:
        _write(path, before)
    return plan_resolution([_source(a), _source(b)], "pdf", {a: Choice.KEEP, b: Choice.DISABLE},
                           target=str(path)), path


BEFORE = '{\n  // mine\n  "skills": {"config": []},\n}\n'


def test_k5_backup_holds_previous_bytes_and_undo_restores_them(two):
    plan, path = _plan(two, BEFORE)
    os.chmod(path, 0o640)
    result = apply_plan(plan)
    assert result.backup == str(path) + ".bak"
    assert Path(result.backup).read_bytes() == BEFORE.encode()
    assert path.read_text() == plan.after
    assert os.stat(path).st_mode & 0o777 == 0o640
    undo(result)
    assert path.read_bytes() == BEFORE.encode()
    assert not os.path.exists(str(path) + ".bak")  # the .bak this write made goes too


def test_k5_undo_puts_back_an_older_bak_byte_for_byte(two):
    plan, path = _plan(two, BEFORE)
    older = b"an older backup the user kept\n"
    with open(str(path) + ".bak", "wb") as fh:
        fh.write(older)
    result = apply_plan(plan)
    assert Path(result.backup).read_bytes() == BEFORE.encode()
    undo(result)
    assert path.read_bytes() == BEFORE.encode()
    assert Path(str(path) + ".bak").read_bytes() == older


def test_k5_undo_deletes_a_created_file_and_its_new_directory(two):
    plan, path = _plan(two, None)
    result = apply_plan(plan)
    assert path.is_file()
    undo(result)
    assert not path.exists()
    assert not path.parent.exists()


def test_k5_crash_between_temp_write_and_rename_leaves_original(two, monkeypatch):
    plan, path = _plan(two, BEFORE)
    real_replace = os.replace

    def crash(src, dst):
        if os.fspath(dst) == str(path):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(configwrite.os, "replace", crash)
    with pytest.raises(ConfigWriteError, match="the file is unchanged"):
        apply_plan(plan)
    assert path.read_bytes() == BEFORE.encode()
    assert sorted(os.listdir(path.parent)) == ["zuno.jsonc", "zuno.jsonc.bak"]


def test_k5_file_changed_on_disk_after_planning_is_refused(two):
    plan, path = _plan(two, BEFORE)
    path.write_text(BEFORE + "\n")
    with pytest.raises(ConfigWriteError, match="changed on disk since the plan was made"):
        apply_plan(plan)
    assert path.read_text() == BEFORE + "\n"
    _tmp_path, proj, a, b = two
    absent = proj / "sub" / "zuno.json"
    created_plan = plan_resolution([_source(a), _source(b)], "pdf",
                                   {a: Choice.KEEP, b: Choice.DISABLE}, target=str(absent))
    _write(absent, "{}")
    with pytest.raises(ConfigWriteError, match="was created on disk"):
        apply_plan(created_plan)


def test_k5_undo_refuses_after_a_later_edit(two):
    plan, path = _plan(two, BEFORE)
    result = apply_plan(plan)
    path.write_text("{}")
    with pytest.raises(ConfigWriteError, match="changed since skillshelf wrote it"):
        undo(result)
    assert path.read_text() == "{}"


def test_k5_symlinked_config_is_written_through(two, tmp_path):
    real = _write(tmp_path / "dotfiles" / "zuno.json", BEFORE)
    _, proj, a, b = two
    link = proj / ".zuno" / "zuno.json"
    link.parent.mkdir()
    link.symlink_to(real)
    plan = plan_resolution([_source(a), _source(b)], "pdf", {a: Choice.KEEP, b: Choice.DISABLE},
                           target=str(link))
    apply_plan(plan)
    assert link.is_symlink()
    assert Path(real).read_text() == plan.after


# ------------------------------------------------------------------------------------ changing back


def test_k4_a_config_loaded_before_the_file_changed_never_removes_the_wrong_entry(two):
    tmp_path, proj, a, b = two
    target = _write(proj / ".zuno" / "zuno.json", f'{{"skills": {{"config": [{{"path": "{b}", "enabled": false}}]}}}}\n')
    stale = _load(tmp_path, proj)
    # another writer puts an entry in front of ours after the configuration was read
    _write(proj / ".zuno" / "zuno.json",
           f'{{"skills": {{"config": [{{"path": "/other/SKILL.md", "enabled": false}}, {{"path": "{b}", "enabled": false}}]}}}}\n')
    plan = plan_resolution([_source(a), _source(b, enabled=False)], "pdf", {b: Choice.KEEP}, target=target,
                           config=stale, cwd=str(proj), home=str(tmp_path / "home"))
    assert plan.entries == () and plan.removed == (f'{{"path": "{b}", "enabled": false}}',)
    assert plan.after == '{"skills": {"config": [{"path": "/other/SKILL.md", "enabled": false}]}}\n'


def test_k5_changing_back_restores_the_earlier_bytes_or_removes_the_created_file(two):
    tmp_path, proj, a, b = two
    home = str(tmp_path / "home")
    target = str(proj / ".zuno" / "zuno.json")
    plan = plan_resolution([_source(a), _source(b)], "pdf", {b: Choice.DISABLE}, target=target,
                           config=_load(tmp_path, proj), cwd=str(proj), home=home)
    assert [e.render() for e in plan.entries] == ['{"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}']
    result = apply_plan(plan)
    back = plan_resolution([_source(a), _source(b, enabled=False)], "pdf", {b: Choice.KEEP}, target=target,
                           config=_load(tmp_path, proj), cwd=str(proj), home=home, earlier=[None])
    assert (back.deletes, back.restores, back.changes) == (True, True, True)
    apply_plan(back)
    assert not os.path.exists(target)
    assert result.previous is None
    # without the journal's word, the emptied file stays (skillshelf does not delete what it did not make)
    apply_plan(plan_resolution([_source(a), _source(b)], "pdf", {b: Choice.DISABLE}, target=target,
                               config=_load(tmp_path, proj), cwd=str(proj), home=home))
    kept = plan_resolution([_source(a), _source(b, enabled=False)], "pdf", {b: Choice.KEEP}, target=target,
                           config=_load(tmp_path, proj), cwd=str(proj), home=home)
    assert kept.after == '{\n  "skills": {\n    "config": []\n  }\n}\n'


@pytest.mark.parametrize("text", [
    '{\n  "skills": {\n    "config": [\n      {"path": "/q"}\n    ]\n  }\n}\n',
    '{"skills": {"config": [{"path": "/q"},]}}',
    '{\n  // c\n  "skills": {"config": [\n    {"path": "/q"}, // keep\n  ]},\n}\n',
    '{"skills": {"config": []}}',
])
def test_k5_removing_what_was_appended_gives_the_text_back(text):
    appended = append_rules(text, [{"path": "/new/SKILL.md", "enabled": False}])
    count = appended.count('"path"')
    again, removed = configwrite._edit_rules(appended, [count - 1], (), label="c")
    assert removed == ('{"path": "/new/SKILL.md", "enabled": false}',)
    assert again == text


def test_zk_zuno_config_sits_below_the_project_so_its_entries_are_carried_over(two):
    # conformance Z-K: $ZUNO_CONFIG is read before the project layers, so a new project file
    # takes over skills.config (arrays replace): the inherited entries are copied first
    tmp_path, proj, a, b = two
    env_file = _write(tmp_path / "team.json", '{"skills": {"config": [{"path": "/srv/x/SKILL.md", "enabled": false}]}}')
    cfg = load_config(cwd=str(proj), worktree=str(proj), home=str(tmp_path / "home"),
                      xdg_config_home=str(tmp_path / "xdg"), env={"ZUNO_CONFIG": env_file})
    target = str(proj / ".zuno" / "zuno.json")
    plan = plan_resolution([_source(a), _source(b)], "pdf", {b: Choice.DISABLE}, target=target, config=cfg,
                           cwd=str(proj), home=str(tmp_path / "home"))
    assert plan.inherited == ({"path": "/srv/x/SKILL.md", "enabled": False},)
    assert plan.note.startswith(f"{target} has no skills.config yet, and a list there replaces (is not merged "
                                "with) the inherited one: the 1 entry "
                                f"inherited from {env_file} are copied first")
    assert configwrite._guess_rank(str(tmp_path / "home" / ".zuno" / "zuno.json"), None, str(tmp_path / "home")) \
        > configwrite._guess_rank(target, None, str(tmp_path / "home"))
    # .zuno folders: the outermost wins
    assert configwrite._guess_rank(str(proj / ".zuno" / "zuno.json"), None) \
        > configwrite._guess_rank(str(proj / "sub" / ".zuno" / "zuno.json"), None)


def test_a_target_below_the_layer_holding_skills_config_is_refused_in_plain_words(two):
    """The refusal says why without naming a SPEC rule: the higher layer's list replaces the
    target's, so entries there would do nothing."""
    tmp_path, proj, a, b = two
    above = _write(proj / ".zuno" / "zuno.json", '{"skills": {"config": []}}')
    cfg = load_config(cwd=str(proj), worktree=str(proj), home=str(tmp_path / "home"),
                      xdg_config_home=str(tmp_path / "xdg"), env={})
    target = str(tmp_path / "xdg" / "zuno" / "zuno.json")
    with pytest.raises(ConfigWriteError) as err:
        plan_resolution([_source(a), _source(b)], "pdf", {b: Choice.DISABLE}, target=target, config=cfg,
                        cwd=str(proj), home=str(tmp_path / "home"))
    assert str(err.value) == (f"skills.config in {above} takes precedence over {target} and its list replaces (is "
                              f"not merged with) the one in {target}, so entries added to {target} would have no "
                              f"effect; write there instead (target {above})")
