"""Configuration layers, merge, keys and ``skills.config`` rules (SPEC K1–K4; Z070, Z156)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillshelf.core.config import (
    AgentConfig,
    Config,
    ConfigSyntaxError,
    RuleDecision,
    RuleEntry,
    config_files,
    deep_merge,
    load_config,
    parse_jsonc,
)
from skillshelf.core.model import Exposure, Severity


class Env:
    """A fixture tree: T/home, T/xdg (XDG_CONFIG_HOME), worktree T/repo, cwd T/repo/sub."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.xdg = root / "xdg"
        self.repo = root / "repo"
        self.cwd = self.repo / "sub"
        for d in (self.home, self.xdg, self.cwd):
            d.mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, data: object | str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    def load(self, env: dict[str, str] | None = None, extra: tuple[str, ...] = (),
             worktree: Path | str | None = "repo") -> Config:
        wt = self.repo if worktree == "repo" else worktree
        return load_config(cwd=str(self.cwd), worktree=str(wt) if wt else None,
                           home=str(self.home), xdg_config_home=str(self.xdg),
                           env=env or {}, extra_files=extra)


@pytest.fixture
def t(tmp_path: Path) -> Env:
    return Env(tmp_path)


def skill(root: Path, rel: str) -> str:
    """Create ``root/rel/SKILL.md`` and return its canonical path."""
    path = root / rel / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nname: x\ndescription: d\n---\n")
    return os.path.realpath(path)


def rules_config(t: Env, entries: list[dict]) -> Config:
    t.write("repo/.zuno/zuno.json", {"skills": {"config": entries}})
    cfg = t.load()
    assert cfg.diagnostics == ()
    return cfg


# ---------------------------------------------------------------------------- K1 layers


def test_k1_layer_order_lowest_first(t: Env) -> None:
    """Z-K: the order Zuno's own test fixes: global, $ZUNO_CONFIG, bare files outermost first,
    .zuno folders nearest first, $HOME/.zuno, $ZUNO_CONFIG_DIR, inline content, managed; .json
    before .jsonc in every folder; skillshelf's --config last."""
    managed = t.root / "managed"
    paths = [
        (t.write("xdg/zuno/zuno.json", {}), "global"),
        (t.write("xdg/zuno/zuno.jsonc", {}), "global"),
    ]
    single = t.write("elsewhere/one.json", {})
    paths += [
        (single, "env-file"),
        (t.write("repo/zuno.json", {}), "project"),
        (t.write("repo/sub/zuno.jsonc", {}), "project"),
        (t.write("repo/sub/.zuno/zuno.json", {}), "project-zuno"),
        (t.write("repo/sub/.zuno/zuno.jsonc", {}), "project-zuno"),
        (t.write("repo/.zuno/zuno.json", {}), "project-zuno"),
        (t.write("home/.zuno/zuno.jsonc", {}), "home-zuno"),
    ]
    cdir = t.write("cdir/zuno.jsonc", {})
    cli = t.write("cli.json", {})
    mjson = t.write("managed/zuno.json", {})
    env = {"ZUNO_CONFIG": str(single), "ZUNO_CONFIG_DIR": str(cdir.parent),
           "ZUNO_CONFIG_CONTENT": "{}", "ZUNO_TEST_MANAGED_CONFIG_DIR": str(managed)}
    got = config_files(cwd=str(t.cwd), worktree=str(t.repo), xdg_config_home=str(t.xdg),
                       env=env, extra=[str(cli)], home=str(t.home), platform="linux")
    assert got == [(str(p), k) for p, k in paths] + [
        (str(cdir), "env-dir"), ("$ZUNO_CONFIG_CONTENT", "env-content"), (str(mjson), "managed"),
        (str(cli), "cli")]


def test_k1_managed_folder_per_system_and_macos_preferences(t: Env) -> None:
    """Z-K 8–9: /etc/zuno, /Library/Application Support/zuno, %ProgramData%\\zuno; the macOS
    managed-preferences layer is listed on macOS only."""
    from skillshelf.core.config import _managed_dir

    assert _managed_dir({}, "linux") == "/etc/zuno"
    assert _managed_dir({}, "darwin") == "/Library/Application Support/zuno"
    assert _managed_dir({"ProgramData": "D:\\PD"}, "win32") == os.path.join("D:\\PD", "zuno")
    assert _managed_dir({"ZUNO_TEST_MANAGED_CONFIG_DIR": "/m"}, "linux") == "/m"
    mac = config_files(cwd=str(t.cwd), worktree=str(t.repo), xdg_config_home=str(t.xdg), env={},
                       home=str(t.home), platform="darwin")
    assert mac[-1] == ("mobileconfig:ai.zuno.managed", "managed-preferences")
    linux = config_files(cwd=str(t.cwd), worktree=str(t.repo), xdg_config_home=str(t.xdg), env={},
                         home=str(t.home), platform="linux")
    assert linux == []


def test_k1_home_zuno_is_read_once_when_it_is_on_the_walk(t: Env) -> None:
    """$HOME/.zuno already found as a project .zuno keeps its project place (Zuno's `unique`)."""
    (t.home / "proj").mkdir()
    t.write("home/.zuno/zuno.json", {})
    got = config_files(cwd=str(t.home / "proj"), worktree=None, xdg_config_home=str(t.xdg), env={},
                       home=str(t.home), platform="linux")
    assert got == [(str(t.home / ".zuno" / "zuno.json"), "project-zuno")]


def test_k1_walk_is_bounded_by_the_worktree(t: Env) -> None:
    t.write("zuno.json", {"skills": {"paths": ["outside"]}})  # above the worktree
    t.write("repo/zuno.json", {"skills": {"paths": ["inside"]}})
    assert t.load().paths == ("inside",)


def test_k1_without_a_worktree_the_walk_reaches_the_filesystem_root(t: Env) -> None:
    t.write("zuno.json", {"skills": {"urls": ["u"]}})
    t.write("repo/zuno.json", {"skills": {"paths": ["inside"]}})
    cfg = t.load(worktree=None)
    assert (cfg.paths, cfg.urls) == (("inside",), ("u",))


def test_k1_jsonc_beats_json_in_the_same_directory(t: Env) -> None:
    t.write("xdg/zuno/zuno.json", {"skills": {"paths": ["json"], "urls": ["kept"]}})
    t.write("xdg/zuno/zuno.jsonc", '{"skills": {"paths": ["jsonc"]}}')
    cfg = t.load()
    assert (cfg.paths, cfg.urls) == (("jsonc",), ("kept",))


def test_k1_objects_merge_and_arrays_replace(t: Env) -> None:
    t.write("xdg/zuno/zuno.json", {"skills": {"paths": ["a", "b"], "urls": ["u1"],
                                             "maxContextTokens": 100},
                                  "agents": {"build": {"tools": ["read"], "profile": "build"}}})
    t.write("repo/sub/.zuno/zuno.json", {"skills": {"paths": ["c"]},
                                         "agents": {"build": {"tools": ["bash"]}}})
    cfg = t.load()
    assert cfg.paths == ("c",)  # replaced, not concatenated
    assert cfg.urls == ("u1",)
    assert cfg.max_context_tokens == 100
    assert cfg.agents["build"] == AgentConfig("build", (), ("bash",))


def test_k1_nearer_project_layers_win(t: Env) -> None:
    """Z-K: bare files nearest last (nearer wins); `.zuno` folders nearest *first*, so the
    outermost `.zuno` wins; `.zuno` layers come after every bare file."""
    t.write("repo/zuno.json", {"skills": {"paths": ["root"]}})
    t.write("repo/sub/zuno.json", {"skills": {"paths": ["sub"]}})
    assert t.load().paths == ("sub",)
    t.write("repo/.zuno/zuno.json", {"skills": {"paths": ["root-dotzuno"]}})
    assert t.load().paths == ("root-dotzuno",)  # .zuno layers come after bare files
    t.write("repo/sub/.zuno/zuno.json", {"skills": {"paths": ["sub-dotzuno"]}})
    assert t.load().paths == ("root-dotzuno",)  # the outermost .zuno is read last


def test_k1_zuno_config_file_layer_is_below_every_project_layer(t: Env) -> None:
    t.write("repo/sub/.zuno/zuno.json", {"skills": {"paths": ["project"], "urls": ["p"]}})
    t.write("repo/sub/mine.json", {"skills": {"paths": ["env"], "urls": ["e"]}})
    cfg = t.load({"ZUNO_CONFIG": "mine.json"})  # relative → joined to cwd
    assert (cfg.paths, cfg.urls) == (("project",), ("p",))
    assert [layer.kind for layer in cfg.layers] == ["env-file", "project-zuno"]


def test_k1_zuno_config_missing_file_warns(t: Env) -> None:
    cfg = t.load({"ZUNO_CONFIG": str(t.root / "nope.json")})
    assert [(d.severity, d.code, d.path) for d in cfg.diagnostics] == [
        (Severity.WARNING, "config-not-found", str(t.root / "nope.json"))]


def test_k1_zuno_config_dir_layer(t: Env) -> None:
    t.write("repo/sub/zuno.json", {"skills": {"paths": ["project"]}})
    t.write("cdir/zuno.json", {"skills": {"paths": ["dir-json"], "urls": ["d"]}})
    t.write("cdir/zuno.jsonc", '{"skills": {"paths": ["dir-jsonc"]}}')
    cfg = t.load({"ZUNO_CONFIG_DIR": str(t.root / "cdir")})
    assert (cfg.paths, cfg.urls) == (("dir-jsonc",), ("d",))


def test_k1_zuno_config_dir_equal_to_global_is_read_again_after_the_project(t: Env) -> None:
    """Z-K: Zuno's directory list keeps the global folder first, but since it equals
    $ZUNO_CONFIG_DIR it is read again in the directory pass, above the bare project files."""
    t.write("xdg/zuno/zuno.json", {"skills": {"paths": ["g"]}})
    t.write("repo/zuno.json", {"skills": {"paths": ["p"]}})
    cfg = t.load({"ZUNO_CONFIG_DIR": str(t.xdg / "zuno")})
    assert cfg.paths == ("g",)
    assert [layer.kind for layer in cfg.layers] == ["global", "project", "env-dir"]


def test_k1_zuno_config_content_layer_beats_files(t: Env) -> None:
    t.write("cdir/zuno.json", {"skills": {"paths": ["dir"], "urls": ["d"]}})
    content = '{\n  // inline\n  "skills": {"paths": ["inline",],},\n}'
    cfg = t.load({"ZUNO_CONFIG_DIR": str(t.root / "cdir"), "ZUNO_CONFIG_CONTENT": content})
    assert (cfg.paths, cfg.urls) == (("inline",), ("d",))
    assert cfg.layers[-1].path == "$ZUNO_CONFIG_CONTENT"
    assert cfg.layers[-1].kind == "env-content"


def test_k1_cli_config_is_highest(t: Env) -> None:
    cli = t.write("cli.jsonc", '{"skills": {"paths": ["cli"]}}')
    cfg = t.load({"ZUNO_CONFIG_CONTENT": '{"skills": {"paths": ["inline"]}}'}, extra=(str(cli),))
    assert cfg.paths == ("cli",)


def test_k1_missing_cli_config_is_an_error(t: Env) -> None:
    cfg = t.load(extra=(str(t.root / "absent.json"),))
    assert [(d.severity, d.code) for d in cfg.diagnostics] == [(Severity.ERROR, "config-invalid")]
    assert cfg.diagnostics[0].message == f"{t.root / 'absent.json'}: config file not found"


def test_k1_empty_env_values_are_unset(t: Env) -> None:
    got = config_files(cwd=str(t.cwd), worktree=str(t.repo), xdg_config_home=str(t.xdg),
                       env={"ZUNO_CONFIG": "", "ZUNO_CONFIG_DIR": "", "ZUNO_CONFIG_CONTENT": ""})
    assert got == []


def test_d2_disable_project_config_drops_project_layers(t: Env) -> None:
    t.write("xdg/zuno/zuno.json", {"skills": {"paths": ["global"]}})
    t.write("repo/zuno.json", {"skills": {"paths": ["bare"]}})
    t.write("repo/.zuno/zuno.json", {"skills": {"paths": ["dotzuno"]}})
    assert t.load({"ZUNO_DISABLE_PROJECT_CONFIG": "1"}).paths == ("global",)
    assert t.load({"ZUNO_DISABLE_PROJECT_CONFIG": "0"}).paths == ("dotzuno",)


# ---------------------------------------------------------------------------- syntax


def test_jsonc_comments_and_trailing_commas() -> None:
    text = ('{\n  // line comment\n  "skills": {\n    /* block\n       comment */\n'
            '    "paths": ["a", "b",],\n    "url": "http://x//y/*z*/",\n  },\n}\n')
    assert parse_jsonc(text, "f.jsonc") == {"skills": {"paths": ["a", "b"],
                                                       "url": "http://x//y/*z*/"}}


def test_plain_json_files_also_accept_jsonc(t: Env) -> None:
    t.write("repo/zuno.json", '{"skills": {"paths": ["a",]}} // trailing\n')
    cfg = t.load()
    assert cfg.paths == ("a",)
    assert cfg.diagnostics == ()


def test_parse_jsonc_reports_line_and_column() -> None:
    with pytest.raises(ConfigSyntaxError) as info:
        parse_jsonc('{\n  // c\n  "a": 1\n  "b": 2\n}', "/p/zuno.jsonc")
    err = info.value
    assert (err.path, err.line, err.column) == ("/p/zuno.jsonc", 4, 3)
    assert str(err) == "/p/zuno.jsonc:4:3: expected ',' or '}', found `\"b\"`"


def test_broken_layer_is_config_invalid_and_others_still_apply(t: Env) -> None:
    t.write("xdg/zuno/zuno.json", {"skills": {"urls": ["g"]}})
    bad = t.write("repo/.zuno/zuno.jsonc", '{\n  "skills": {\n    "paths": ["x"\n  }\n}\n')
    t.write("repo/sub/.zuno/zuno.json", {"skills": {"paths": ["ok"]}})
    cfg = t.load()
    assert (cfg.paths, cfg.urls) == (("ok",), ("g",))
    [diag] = cfg.diagnostics
    assert (diag.severity, diag.code, diag.path, diag.line, diag.column) == (
        Severity.ERROR, "config-invalid", str(bad), 4, 3)
    assert diag.message == f"{bad}:4:3: expected ']' or ',', found `}}`"
    broken = next(layer for layer in cfg.layers if layer.path == str(bad))
    assert broken.data is None and broken.error == diag


def test_top_level_must_be_an_object(t: Env) -> None:
    bad = t.write("repo/zuno.json", '["skills"]')
    cfg = t.load()
    assert [(d.code, d.message) for d in cfg.diagnostics] == [
        ("config-invalid", f"{bad}:1:1: the top level must be an object, got array")]


def test_json5_only_syntax_applies_with_a_nonstandard_warning(t: Env) -> None:
    f = t.write("repo/zuno.json", "{skills: {paths: ['five']}}")
    cfg = t.load()
    assert cfg.paths == ("five",)
    assert [(d.severity, d.code, d.line, d.column) for d in cfg.diagnostics] == [
        (Severity.WARNING, "config-nonstandard", 1, 2)]
    assert cfg.diagnostics[0].path == str(f)


def test_nan_is_not_json(t: Env) -> None:
    t.write("repo/zuno.json", '{"skills": {"maxContextTokens": NaN}}')
    cfg = t.load()
    codes = [d.code for d in cfg.diagnostics]
    assert codes[0] == "config-nonstandard"  # Zuno refuses NaN
    assert codes[1] == "config-invalid"  # and NaN is not a token count
    assert cfg.max_context_tokens is None


def test_bom_is_tolerated_with_a_warning(t: Env) -> None:
    t.write("repo/zuno.json", '\ufeff{"skills": {"paths": ["b"]}}')
    cfg = t.load()
    assert cfg.paths == ("b",)
    assert [d.code for d in cfg.diagnostics] == ["config-nonstandard"]


def test_non_utf8_layer_is_config_invalid(t: Env) -> None:
    path = t.root / "repo" / "zuno.json"
    path.write_bytes(b'{"skills":\n {"paths": ["caf\xe9"]}}')
    cfg = t.load()
    [diag] = cfg.diagnostics
    assert (diag.code, diag.line, diag.column) == ("config-invalid", 2, 17)


def test_deep_merge_semantics() -> None:
    base = {"a": {"x": 1, "l": [1, 2]}, "s": "keep", "o": {"k": 1}}
    over = {"a": {"y": 2, "l": [3]}, "o": 5, "n": {"z": None}}
    assert deep_merge(base, over) == {"a": {"x": 1, "l": [3], "y": 2}, "s": "keep", "o": 5,
                                      "n": {"z": None}}
    assert base == {"a": {"x": 1, "l": [1, 2]}, "s": "keep", "o": {"k": 1}}  # not mutated


# ---------------------------------------------------------------------------- K2 keys


def test_k2_defaults(t: Env) -> None:
    cfg = t.load()
    assert cfg == Config(layers=(), merged=cfg.merged)
    assert (cfg.paths, cfg.urls, cfg.rules, cfg.include_instructions, cfg.max_context_tokens,
            cfg.max_selected_context_tokens, dict(cfg.agents)) == ((), (), (), True, None, None, {})


def test_k2_keys_are_read(t: Env) -> None:
    t.write("repo/.zuno/zuno.json", {
        "$schema": "ignored", "model": "ignored",
        "skills": {"includeInstructions": False, "maxContextTokens": 2000,
                   "maxSelectedContextTokens": 0},
        "agents": {"plan": {"requiredSkills": ["pdf"], "profile": "plan", "tools": []},
                   "bare": {}}})
    cfg = t.load()
    layer = str(t.repo / ".zuno" / "zuno.json")
    # Z-A: there is no `profile` key (Zuno sweeps it into `options`): said, never used
    assert [(d.severity, d.code, d.field) for d in cfg.diagnostics] == [
        (Severity.WARNING, "config-ignored", "agents.plan.profile")]
    assert cfg.include_instructions is False
    assert (cfg.max_context_tokens, cfg.max_selected_context_tokens) == (2000, 0)
    assert cfg.agents["plan"] == AgentConfig("plan", ("pdf",), ())
    assert cfg.agents["bare"] == AgentConfig("bare", (), None)
    assert cfg.model == "ignored"
    # Z-K: Zuno refuses a zero token count and an empty tool list
    assert [(r.path, r.field, r.reason) for r in cfg.refusals] == [
        (layer, "skills.maxSelectedContextTokens", "invalid value: integer `0`, expected a nonzero u32"),
        (layer, "agents.plan.tools", "`agents.plan.tools` must name at least one tool"),
    ]


def test_k2_wrong_types_become_diagnostics_with_file_field_line(t: Env) -> None:
    bad = t.write("repo/zuno.jsonc", (
        '{\n'
        '  "skills": {\n'
        '    "paths": ["ok", 7, null],\n'
        '    "urls": "https://one",\n'
        '    "includeInstructions": "yes",\n'
        '    "maxContextTokens": -5,\n'
        '    "maxSelectedContextTokens": true,\n'
        '  },\n'
        '  "agents": {"a": {"tools": [1], "profile": 3, "requiredSkills": "x"}, "b": 4},\n'
        '}\n'))
    cfg = t.load()
    assert cfg.paths == ("ok",)
    assert cfg.urls == ()
    assert cfg.include_instructions is True
    assert (cfg.max_context_tokens, cfg.max_selected_context_tokens) == (None, None)
    assert cfg.agents["a"] == AgentConfig("a", (), ())
    assert "b" not in cfg.agents
    got = [(d.severity, d.code, d.field, d.line, d.column, d.path) for d in cfg.diagnostics]
    e, c, p = Severity.ERROR, "config-invalid", str(bad)
    assert got == [
        (e, c, "skills.paths[1]", 3, 21, p),
        (e, c, "skills.paths[2]", 3, 24, p),
        (e, c, "skills.urls", 4, 13, p),
        (e, c, "skills.includeInstructions", 5, 28, p),
        (e, c, "skills.maxContextTokens", 6, 25, p),
        (e, c, "skills.maxSelectedContextTokens", 7, 33, p),
        (e, c, "agents.a.requiredSkills", 9, 66, p),
        (e, c, "agents.a.tools[0]", 9, 30, p),
        (Severity.WARNING, "config-ignored", "agents.a.profile", 9, 45, p),
        (e, c, "agents.b", 9, 77, p),
    ]
    assert cfg.diagnostics[0].message == (
        f"{bad}:3:21: `skills.paths[1]` must be a string, got number")


def test_k2_type_error_names_the_layer_that_set_the_value(t: Env) -> None:
    t.write("xdg/zuno/zuno.json", {"skills": {"paths": ["fine"]}})
    cfg = t.load({"ZUNO_CONFIG_CONTENT": '{"skills": {"paths": 3}}'})
    assert [(d.field, d.path, d.line, d.column) for d in cfg.diagnostics] == [
        ("skills.paths", "$ZUNO_CONFIG_CONTENT", 1, 22)]
    assert cfg.paths == ()


def test_k2_skills_not_an_object(t: Env) -> None:
    t.write("repo/zuno.json", '{"skills": ["a"]}')
    cfg = t.load()
    assert [(d.field, d.line, d.column) for d in cfg.diagnostics] == [("skills", 1, 12)]


# ---------------------------------------------------------------------------- K3/K4 rules


def test_k3_invalid_entries_are_reported_and_keep_indices(t: Env) -> None:
    target = skill(t.root, "skills/one")
    bad = t.write("repo/.zuno/zuno.json", json.dumps({"skills": {"config": [
        "not-an-object",
        {"enabled": False},
        {"path": str(Path(target).parent), "exposure": "hidden"},
        {"path": str(Path(target).parent), "enabled": "no", "recursive": 1},
        {"path": str(Path(target).parent), "exposure": "search"},
    ]}}, indent=1))
    cfg = t.load()
    assert [r.index for r in cfg.rules] == [4]
    assert cfg.rules[0].describe() == f"skills.config entry 5 in {bad}"
    assert [d.field for d in cfg.diagnostics] == [
        "skills.config[0]", "skills.config[1].path", "skills.config[2].exposure",
        "skills.config[3].enabled", "skills.config[3].recursive"]
    assert all(d.code == "config-invalid" and d.path == str(bad) for d in cfg.diagnostics)


def test_k3_directory_target_non_recursive_matches_only_its_own_skill(t: Env) -> None:
    own = skill(t.root, "lib/pdf")
    nested = skill(t.root, "lib/pdf/sub/inner")
    cfg = rules_config(t, [{"path": str(t.root / "lib/pdf"), "enabled": False}])
    assert cfg.decide(own).enabled is False
    assert cfg.decide(nested) == RuleDecision()  # no rule matched


def test_k3_recursive_is_a_component_wise_prefix(t: Env) -> None:
    inside = skill(t.root, "a/b/x")
    at = skill(t.root, "a/b")
    sibling = skill(t.root, "a/bc/y")
    cfg = rules_config(t, [{"path": str(t.root / "a/b"), "recursive": True,
                            "exposure": "explicit"}])
    assert cfg.decide(inside).exposure is Exposure.EXPLICIT
    assert cfg.decide(at).exposure is Exposure.EXPLICIT
    assert cfg.decide(sibling).rule is None


@pytest.mark.parametrize("spelling", ["SKILL.md", "skill.md", "Skill.MD"])
def test_k3_skill_md_file_target_any_case(t: Env, spelling: str) -> None:
    target = skill(t.root, "s/one")
    other = skill(t.root, "s/one/deeper")
    cfg = rules_config(t, [{"path": str(t.root / "s/one" / spelling), "exposure": "search"}])
    assert cfg.rules[0].targets_file is True
    if os.path.exists(t.root / "s/one" / spelling):  # SKILL.md, or a case-insensitive FS
        assert cfg.decide(target).exposure is Exposure.SEARCH
    else:
        # The case only makes it a *file* target; the match itself is exact, as in Zuno, so a
        # lower-case spelling on a case-sensitive file system matches nothing (and in
        # particular is not read as a directory holding skills).
        assert cfg.decide(target) == RuleDecision()
    assert cfg.decide(other) == RuleDecision()


def test_k3_an_existing_file_with_another_name_is_a_file_target(t: Env) -> None:
    target = skill(t.root, "s/one")
    link = t.root / "s" / "alias.md"
    link.symlink_to(target)
    cfg = rules_config(t, [{"path": str(link), "enabled": False}])
    assert cfg.rules[0].targets_file is True
    assert cfg.rules[0].path == target
    assert cfg.decide(target).enabled is False


def test_k3_relative_and_tilde_paths(t: Env) -> None:
    rel = skill(t.cwd, "local/one")
    home = skill(t.home, "skills/h")
    cfg = rules_config(t, [{"path": "local/one", "exposure": "search"},
                           {"path": "~/skills/h", "exposure": "explicit"}])
    assert cfg.decide(rel).exposure is Exposure.SEARCH
    assert cfg.decide(home).exposure is Exposure.EXPLICIT
    assert cfg.rules[0].raw_path == "local/one"


def test_k3_rule_through_a_symlink_alias_matches_the_canonical_path(t: Env) -> None:
    real = skill(t.root, "real/pkg")
    (t.root / "alias").symlink_to(t.root / "real")
    cfg = rules_config(t, [{"path": str(t.root / "alias/pkg"), "exposure": "search"},
                           {"path": str(t.root / "alias"), "recursive": True, "enabled": True,
                            "exposure": "search"}])
    assert cfg.rules[0].path == os.path.realpath(t.root / "real/pkg")
    assert cfg.decide(real).rule == cfg.rules[1]
    only_first = rules_config(t, [{"path": str(t.root / "alias/pkg"), "enabled": False}])
    assert only_first.decide(real).enabled is False


def test_k4_last_matching_entry_wins_as_a_whole(t: Env) -> None:
    target = skill(t.root, "w/pkg")
    cfg = rules_config(t, [
        {"path": str(t.root / "w/pkg"), "enabled": False, "exposure": "explicit"},
        {"path": str(t.root / "w"), "recursive": True},  # omitted enabled → true, no exposure
        {"path": str(t.root / "elsewhere"), "enabled": False},  # does not match
    ])
    decision = cfg.decide(target)
    assert (decision.enabled, decision.exposure, decision.rule) == (True, None, cfg.rules[1])
    assert decision.rule.describe() == (
        f"skills.config entry 2 in {t.root / 'repo/.zuno/zuno.json'}")


def test_k4_disabling_entry_after_an_exposure_entry_drops_the_exposure(t: Env) -> None:
    target = skill(t.root, "w/pkg")
    cfg = rules_config(t, [{"path": str(t.root / "w/pkg"), "exposure": "search"},
                           {"path": str(t.root / "w/pkg/SKILL.md"), "enabled": False}])
    assert cfg.decide(target) == RuleDecision(False, None, cfg.rules[1])


def test_k4_rules_array_replaces_across_layers_and_names_its_origin(t: Env) -> None:
    target = skill(t.root, "w/pkg")
    t.write("xdg/zuno/zuno.json", {"skills": {"config": [
        {"path": str(t.root / "w/pkg"), "enabled": False}]}})
    cfg = t.load()
    assert cfg.decide(target).enabled is False
    assert cfg.rules[0].origin == str(t.xdg / "zuno/zuno.json")
    over = t.write("repo/zuno.json", {"skills": {"config": [
        {"path": str(t.root / "w/pkg"), "exposure": "search"}]}})
    cfg = t.load()
    assert len(cfg.rules) == 1 and cfg.rules[0].origin == str(over)
    assert (cfg.decide(target).enabled, cfg.decide(target).exposure) == (True, Exposure.SEARCH)


def test_z070_a_rule_for_a_missing_path_disables_nothing(t: Env) -> None:
    usable = skill(t.home, ".agents/skills/usable")
    cfg = rules_config(t, [{"path": str(t.root / "future/skill"), "enabled": False}])
    assert cfg.diagnostics == ()
    assert cfg.decide(usable) == RuleDecision()
    assert cfg.rules[0].path == str(t.root / "future/skill")


def test_z156_future_file_target_is_lexical_and_watches_its_parent(t: Env) -> None:
    (t.root / "external").mkdir()
    cfg = rules_config(t, [{"path": str(t.root / "external/future/./SKILL.md"),
                            "enabled": True, "exposure": "search"}])
    rule = cfg.rules[0]
    assert rule.targets_file is True
    assert rule.path == str(t.root / "external/future/SKILL.md")
    assert rule.watch_target == str(t.root / "external/future")
    # The skill appears later at exactly that path: the lexical target still matches.
    appeared = skill(t.root, "external/future")
    assert appeared == rule.path  # tmp_path has no symlinked ancestors here
    assert cfg.decide(appeared).exposure is Exposure.SEARCH
    assert cfg.decide(skill(t.root, "external/other")).rule is None


def test_rule_matching_is_pure_and_normalises_the_argument() -> None:
    rule = RuleEntry(index=0, path="/a/b", raw_path="/a/b", recursive=True, origin="x")
    assert rule.matches("/a/b/c/../d/SKILL.md") is True
    assert rule.matches("/a/bc/SKILL.md") is False
    flat = RuleEntry(index=0, path="/a/b", raw_path="/a/b", origin="x")
    assert flat.matches("/a/b/SKILL.md") is True
    assert flat.matches("/a/b/c/SKILL.md") is False
    root = RuleEntry(index=0, path="/", raw_path="/", recursive=True, origin="x")
    assert root.matches("/x/SKILL.md") is True


def test_config_warnings_mirror_error_diagnostics(t: Env) -> None:
    bad = t.write("repo/zuno.json", "{")
    cfg = t.load()
    [warning] = cfg.warnings()
    assert (warning.kind, warning.source) == ("config-invalid", str(bad))
    assert warning.message == cfg.diagnostics[0].message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_k1_a_fifo_config_layer_is_config_invalid_not_a_hang(t: Env) -> None:
    """A layer that is a FIFO (here $ZUNO_CONFIG) used to block forever in open()."""
    os.mkfifo(t.root / "pipe.json")
    cfg = t.load({"ZUNO_CONFIG": str(t.root / "pipe.json")})
    assert [(d.severity, d.code, d.message) for d in cfg.diagnostics] == [
        (Severity.ERROR, "config-invalid",
         f"{t.root / 'pipe.json'}: cannot read config file: not a regular file (a FIFO)")]


def test_a_config_path_that_is_not_a_regular_file_is_reported_not_skipped_silently(tmp_path):
    """A directory, FIFO or dangling symlink named zuno.json[c] gives a diagnostic naming it."""
    import os as _os

    from skillshelf.core.config import load_config

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    (proj / ".zuno" / "zuno.json").mkdir(parents=True)
    _os.mkfifo(proj / "zuno.json")
    _os.symlink(tmp_path / "nowhere", proj / "zuno.jsonc")
    cfg = load_config(cwd=str(proj), worktree=str(proj), home=str(tmp_path), xdg_config_home=str(tmp_path / "x"), env={})
    got = sorted((d.code, d.path) for d in cfg.diagnostics)
    assert got == sorted([
        ("config-invalid", str(proj / "zuno.json")),
        ("config-not-found", str(proj / "zuno.jsonc")),
        ("config-invalid", str(proj / ".zuno" / "zuno.json")),
    ])
    msgs = {d.path: d.message for d in cfg.diagnostics}
    assert "not a regular file (a FIFO)" in msgs[str(proj / "zuno.json")]
    assert "dangling symlink" in msgs[str(proj / "zuno.jsonc")]


def test_rule_matching_normalises_paths_exactly_as_normpath() -> None:
    import itertools

    from skillshelf.core.config import _normpath

    parts = ["", ".", "..", "a", ".a", "..b", "b.", "...", "x y"]
    for k in range(1, 5):
        for combo in itertools.product(parts, repeat=k):
            for lead in ("/", "//", "///", ""):
                for tail in ("", "/"):
                    path = lead + "/".join(combo) + tail
                    assert _normpath(path) == os.path.normpath(path), path
