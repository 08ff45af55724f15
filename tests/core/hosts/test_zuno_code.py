"""Host ``zuno`` as Zuno 0.10.3's code behaves (conformance zuno-from-code.md: Z-P, Z-B, Z-K, Z-W,
Z-F, Z-A, Z-U, Z-H, Z-T), with exact values, and the three must-holds: an empty workspace shows
exactly Zuno's eleven built-ins, ``review`` has its required skills without configuration, and
every count is the same with or without Zuno's own texts.

Zuno's prose is never in these tests: an installed Zuno is simulated by a fake ``zuno`` written
here, whose texts are made-up letters shaped like the real ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from skillshelf.core.agents import agent_view
from skillshelf.core.catalog import Catalog
from skillshelf.core.config import Config
from skillshelf.core.digest import source_digest_bytes
from skillshelf.core.hosts.base import ContextWindow, WindowOrigin
from skillshelf.core.hosts.zuno import build as zuno_build
from skillshelf.core.hosts.zuno import installed
from skillshelf.core.hosts.zuno import pack as pack_module
from skillshelf.core.hosts.zuno.natives import NATIVE_AGENTS, REQUIRED_SKILLS
from skillshelf.core.hosts.zuno.pack import PACK_VERSION, PACKS, body_marker, description_marker, pack
from skillshelf.core.hosts.zuno.prompt import budget_rule, index_section, selected_rule
from skillshelf.core.hosts.zuno.roots import git_worktree
from skillshelf.core.hosts.zuno.selection import selection_facts
from skillshelf.core.hosts.zuno.window import KNOWN_WINDOWS, models_catalog_path, resolve_window
from skillshelf.core.lint import Target, lint_file
from skillshelf.core.model import Exposure, Provenance, SkillEntry, Source
from skillshelf.core.paths import Environment
from skillshelf.core.report import selected_refusal
from skillshelf.core.tokens import approx_tokens, shared_counter

REPO = Path(__file__).resolve().parents[3]
PACK_ORDER = [
    "customize-zuno", "develop-zuno", "deepwork", "codemap", "verification-planning", "reflect", "worktree",
    "git-workflow", "github-delivery", "ui-design", "bedrock-model-capability-review",
]


def env_for(tmp: Path, **extra: str) -> Environment:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    return Environment.from_mapping({"HOME": str(home), "PATH": extra.pop("PATH", "/nonexistent"), **extra})


def open_catalog(tmp: Path, env: Environment | None = None, **kw) -> Catalog:
    proj = tmp / "proj"
    proj.mkdir(parents=True, exist_ok=True)
    return Catalog.open(str(proj), env=env or env_for(tmp), pull_remote=False, **kw)


# --------------------------------------------------------------------------- Z-B: the pack


def test_zb_pack_of_zuno_0_10_3_names_order_sizes_and_locators():
    skills = pack("0.10.3")
    assert PACK_VERSION == "0.10.3" and list(PACKS) == ["0.10.3"]
    assert [s.name for s in skills] == PACK_ORDER
    assert [s.description_chars for s in skills] == [132, 139, 108, 104, 190, 112, 121, 187, 132, 135, 191]
    # the index lines of the eleven, each `  <skill name="N">D</skill>`: 1,981 characters with newlines
    lines = sum(len(f'  <skill name="{s.name}">') + s.description_chars + len("</skill>") + 1 for s in skills)
    assert lines == 1981
    assert [s.body_bytes for s in skills] == [2131, 4291, 623, 743, 664, 718, 1866, None, 1787, 1482, 1412]
    assert pack("9.9.9") == ()


def test_zb_stand_ins_have_the_exact_size_and_say_what_they_are():
    for s in pack():
        marker = description_marker(s)
        assert len(marker) == len(marker.encode()) == s.description_chars
        assert [len(w) for w in marker.split(" ")] == list(s.words)  # same spaces: same truncation points
        if s.body_bytes is not None:
            body = body_marker(s)
            assert len(body.encode()) == s.body_bytes
            assert body.startswith(f"[Zuno 0.10.3 built-in `{s.name}`: its body ({s.body_bytes:,} bytes) is Zuno's text")
    policy = installed.policy_marker()
    assert len(policy) == 1423 and policy.startswith("[Zuno 0.10.3 skill trigger policy: 1,423 characters of Zuno's")


def test_must_hold_empty_workspace_agent_build_sees_exactly_the_eleven_builtins(tmp_path):
    cat = open_catalog(tmp_path)
    sources = cat.current.sources
    assert [s.name for s in sources] == PACK_ORDER
    assert [s.location for s in sources] == [f"builtin://zuno-orchestration/0.10.3/{n}" for n in PACK_ORDER]
    assert not any("skillshelf" in s.location or s.name in ("writing-skills", "reviewing-skills",
                                                             "tuning-skill-budget") for s in sources)
    build = cat.session.agent("build")
    assert [s.name for s in agent_view([s for s in sources if s.enabled], build)] == PACK_ORDER
    assert cat.session.builtins.label == ("Zuno 0.10.3 (skillshelf's data; Zuno's own texts are stand-ins of "
                                          "the same size)")


def test_zb_agents_see_builtins_by_name_and_tools(tmp_path):
    cat = open_catalog(tmp_path)
    enabled = [s for s in cat.current.sources if s.enabled]

    def seen(agent: str) -> list[str]:
        return [s.name for s in agent_view(enabled, cat.session.agent(agent))]

    assert seen("explorer") == ["customize-zuno", "develop-zuno", "codemap", "github-delivery"]
    assert seen("plan") == ["customize-zuno", "develop-zuno", "deepwork", "codemap", "verification-planning",
                            "github-delivery", "ui-design"]
    assert seen("my-agent") == []  # a custom agent's name is its profile: no built-in lists it


def test_zb_a_user_copy_makes_the_builtin_name_ambiguous(tmp_path):
    skill = tmp_path / "proj" / ".agents" / "skills" / "codemap"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: codemap\ndescription: Mine.\n---\nbody\n", encoding="utf-8")
    cat = open_catalog(tmp_path)
    text = cat.session.catalog(cat.current).text
    assert '  <skill name="codemap" source="builtin://zuno-orchestration/0.10.3/codemap">' in text
    assert f'  <skill name="codemap" source="{skill / "SKILL.md"}">Mine.</skill>' in text


# --------------------------------------------------------------------------- Z-A: agents


def test_must_hold_review_has_its_required_skills_without_configuration(tmp_path):
    cat = open_catalog(tmp_path)
    assert len(NATIVE_AGENTS) == 15
    assert dict(REQUIRED_SKILLS) == {"review": ("codemap", "verification-planning"),
                                     "deep": ("deepwork", "verification-planning")}
    review = cat.session.agent("review")
    assert (review.native, review.configured, review.required_skills) == (
        True, False, ("codemap", "verification-planning"))
    assert cat.session.agent_names()[:11] == ("orchestrator", "build", "plan", "review", "deep", "fixer", "general",
                                              "explorer", "librarian", "oracle", "looker")


def test_za_bare_name_is_a_third_way_in_beside_dollar_and_slash():
    def src(name: str, loc: str, exposure: Exposure = Exposure.INDEX, description: str = "d") -> Source:
        return Source(name=name, location=loc, provenance=Provenance.PROJECT_ZUNO, canonical=loc,
                      description=description, exposure=exposure)

    pdf, sql, a1, a2 = src("pdf", "/p"), src("sql", "/s", Exposure.EXPLICIT), src("dup", "/a"), src("dup", "/b")
    everyone = [pdf, sql, a1, a2]
    assert selection_facts(pdf, everyone)[0].value == "3 of 3 ways select it"
    assert selection_facts(pdf, everyone)[0].detail == (
        "$pdf  preloads this skill", "/pdf  runs this skill",
        "pdf (in a prompt)  preloads this skill when the word stands alone")
    assert selection_facts(sql, everyone)[0].detail[2] == "sql (in a prompt)  no effect: explicit-only skills need $sql"
    assert selection_facts(a1, everyone)[0].value == "no prompt selects it by name"


# --------------------------------------------------------------------------- Z-P: the prompt


def _entry(name: str, description: str | None = "d", exposure: Exposure = Exposure.INDEX) -> SkillEntry:
    return SkillEntry(name=name, location=f"/{name}/SKILL.md", description=description, exposure=exposure)


def test_zp_coverage_sentences_in_zunos_words():
    a, b, s = _entry("alpha", "x" * 60), _entry("beta", "y" * 60), _entry("sea", "z", Exposure.SEARCH)
    assert index_section([a, b], 8000).text == (
        '<skill_index>\n  <skill name="alpha">' + "x" * 60 + '</skill>\n  <skill name="beta">' + "y" * 60
        + "</skill>\n</skill_index>")
    assert index_section([a, b], 120).text.endswith(
        "</skill_index>\n2 skill description(s) were shortened to fit the model-visible metadata budget; every "
        "source identity remains available.")
    assert index_section([a, b], 60).text.endswith(
        "</skill_index>\nCatalog coverage: 1 of 2 indexed source identities; 1 omitted entries remain available "
        "through action `list` or `search`. 1 rendered description(s) were shortened first.")
    assert index_section([a, b, s], 10).text == (
        '<skill_index listed="0" total="2" />\nThe metadata budget omitted 2 entries. Action `list` pages through '
        "all 3 model-discoverable skills, and action `search` queries the same set.\n1 additional search-only "
        "Skill source(s) are omitted from the initial index and remain available through action `search` or paged "
        "action `list`.")
    assert index_section([s], 8000).text == (
        '<skill_index listed="0" total="0" />\n1 search-only Skill source(s) are available through action '
        "`search` or paged action `list`.")


def test_zp_the_prompt_is_both_sections_joined_by_a_blank_line(tmp_path):
    cat = open_catalog(tmp_path)
    prompt = cat.session.catalog(cat.current, agent="build")
    policy, index = prompt.sections
    assert (policy.id, policy.source, policy.characters, policy.budgeted, policy.stand_in) == (
        "skills.policy", "zuno skill trigger policy", 1423, 0, True)
    assert (index.id, index.source, index.stand_in) == ("skills.index", "discovered skill index", True)
    assert prompt.text == policy.text + "\n\n" + index.text
    assert index.characters == len("<skill_index>\n") + 1981 + len("</skill_index>") == 2009
    assert prompt.used == index.budgeted == 2009  # all eleven fit: no coverage sentence
    assert len(prompt.text) == 1423 + 2 + 2009


def test_zp_entry_states_are_made_when_first_read_and_equal_the_eager_ones(tmp_path):
    import pickle

    from skillshelf.core.hosts.base import CatalogEntry, EntryState, HostCatalog, LazyEntries

    for i in range(3):
        d = tmp_path / "proj" / ".zuno" / "skill" / f"s{i}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i}\ndescription: skill {i}\n---\nbody\n")
    cat = open_catalog(tmp_path)
    prompt = cat.session.catalog(cat.current, agent="build", budget=1200)
    assert isinstance(prompt.entries, LazyEntries) and not prompt.entries.made  # the text never reads them
    assert prompt.text
    again = cat.session.catalog(cat.current, agent="build", budget=1200)
    states = tuple(prompt.entries)
    assert prompt.entries.made and all(isinstance(e, CatalogEntry) for e in states)
    assert len(states) == len(prompt.entries) == 14 and prompt.entries[0] == states[0]
    assert EntryState.LISTED in {e.state for e in states} and len({e.state for e in states}) > 1
    assert again.entries == states and states == again.entries and again == prompt
    assert hash(again.entries) == hash(states) and repr(prompt.entries) == repr(states)
    assert pickle.loads(pickle.dumps(prompt)) == HostCatalog(**{**prompt.__dict__, "entries": states})
    assert type(pickle.loads(pickle.dumps(prompt.entries))) is tuple
    assert prompt.listed == sum(1 for e in states if e.state in (EntryState.LISTED, EntryState.CUT,
                                                                   EntryState.NAME_ONLY))


def test_zp_no_sections_when_include_instructions_is_false(tmp_path):
    (tmp_path / "proj" / ".zuno").mkdir(parents=True)
    (tmp_path / "proj" / ".zuno" / "zuno.json").write_text('{"skills": {"includeInstructions": false}}')
    cat = open_catalog(tmp_path)
    prompt = cat.session.catalog(cat.current)
    assert (prompt.text, prompt.sections, prompt.used) == ("", (), 0)
    assert "skills.includeInstructions is false: neither section is sent (list and search still work)" in prompt.notes


# --------------------------------------------------------------------------- must-hold: same counts


def _letters(words: tuple[int, ...]) -> str:
    return " ".join("q" * n for n in words)[:-1] + "."


def _fake_pack(skills):
    """Made-up texts of the real sizes, and the pack facts that describe them."""
    counter = shared_counter()
    texts, facts = {}, []
    for s in skills:
        description = _letters(s.words)
        body_bytes = s.body_bytes or 900
        body = (s.heading + "\n" + "w " * body_bytes)[:body_bytes - 1] + "\n"
        texts[s.name] = (description, body)
        facts.append(replace(
            s, description_sha256=hashlib.sha256(description.encode()).hexdigest(),
            description_tokens=counter.count(description + "</skill>\n").tokens,
            body_sha256=hashlib.sha256(body.encode()).hexdigest(), body_bytes=body_bytes,
            body_tokens=counter.count(body).tokens))
    return texts, tuple(facts)


def _write_fake_zuno(folder: Path, texts, policy: str) -> Path:
    """A ``zuno`` whose ``debug skill --json`` lists the built-ins with ``texts``' descriptions
    and whose file holds the policy and the bodies (as Zuno's executable does)."""
    skills = [{"name": n, "location": f"builtin://zuno-orchestration/0.10.3/{n}", "description": d}
              for n, (d, _b) in texts.items()]
    doc = json.dumps({"view": {"kind": "raw_discovery"}, "skills": skills})
    held = "\n".join([policy] + [b for _d, b in texts.values()])
    script = f"#!/bin/sh\ncat <<'EOF'\n{doc}\nEOF\nexit 0\n: <<'HELD'\n{held}\nHELD\n"
    exe = folder / "zuno"
    exe.write_text(script, encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def _counts(cat: Catalog, budget: int | None, agent: str | None):
    prompt = cat.session.catalog(cat.current, budget=budget, agent=agent)
    tokens = shared_counter().count_spliced(prompt.text, prompt.token_spans)
    states = [e.state.value for e in prompt.entries]
    counts = (len(prompt.text), len(prompt.text.encode()), approx_tokens(prompt.text), prompt.used, prompt.listed,
              states, [(x.id, x.characters, x.bytes, x.budgeted) for x in prompt.sections],
              [(s.name, s.size) for s in cat.current.sources], cat.session.selected_budget(None))
    return counts, tokens


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs /bin/sh for the fake zuno")
def test_must_hold_every_count_is_the_same_with_or_without_zunos_texts(tmp_path, monkeypatch):
    texts, facts = _fake_pack(pack())
    policy = ("Made-up policy words. " * 70)[:1422] + "."
    monkeypatch.setattr(pack_module, "PACKS", MappingProxyType({"0.10.3": facts}))
    spec = installed.TextSpec(policy[:20].encode(), 1423, hashlib.sha256(policy.encode()).hexdigest())
    monkeypatch.setattr(installed, "POLICY", spec)
    monkeypatch.setattr(zuno_build, "POLICY_TOKENS", shared_counter().count(policy + "\n\n").tokens)
    user = tmp_path / "proj" / ".agents" / "skills" / "pdf"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text("---\nname: pdf\ndescription: Read PDF files and forms.\n---\nBody.\n")
    without = open_catalog(tmp_path)
    assert without.session.texts.executable is None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _write_fake_zuno(bin_dir, texts, policy)
    with_texts = open_catalog(tmp_path, env_for(tmp_path, PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"))
    read = with_texts.session.texts
    assert (read.version, read.policy, len(read.bodies), read.notes) == ("0.10.3", policy, 11, ())
    assert with_texts.session.builtins.label.startswith("Zuno 0.10.3 (texts read from ")
    with_prompt = with_texts.session.catalog(with_texts.current)
    assert with_prompt.text.startswith(policy + "\n\n") and texts["codemap"][0] in with_prompt.text
    assert not any(x.stand_in for x in with_prompt.sections) and with_prompt.token_spans == ()
    for budget in (None, 2400, 700, 0):
        for agent in (None, "build", "explorer"):
            (counts, tokens), (counts_real, tokens_real) = _counts(without, budget, agent), _counts(with_texts, budget,
                                                                                                  agent)
            assert counts == counts_real, (budget, agent)
            assert tokens_real.exact
            if budget == 700:  # built-in descriptions cut: their real counts are unknown, the count says so
                assert not tokens.exact
            else:
                assert tokens == tokens_real, (budget, agent)


def test_a_stand_in_cut_by_the_budget_makes_the_token_count_approximate(tmp_path):
    cat = open_catalog(tmp_path)
    prompt = cat.session.catalog(cat.current, budget=1500)  # descriptions cut: their real counts are unknown
    count = shared_counter().count_spliced(prompt.text, prompt.token_spans)
    assert count.exact is False
    whole = cat.session.catalog(cat.current)
    # whole texts: the policy (275 tokens with its blank line) and each description's stored count
    # index order: bedrock…, codemap, customize-zuno, deepwork, develop-zuno, git-workflow, github-delivery,
    # reflect, ui-design, verification-planning, worktree
    assert [x.tokens for x in whole.token_spans] == [275, 35, 22, 27, 23, 28, 36, 29, 19, 22, 35, 28]
    assert shared_counter().count_spliced(whole.text, whole.token_spans).exact is True


# --------------------------------------------------------------------------- Z-W: the window


def _config(tmp: Path, doc: dict) -> None:
    (tmp / "proj" / ".zuno").mkdir(parents=True, exist_ok=True)
    (tmp / "proj" / ".zuno" / "zuno.json").write_text(json.dumps(doc), encoding="utf-8")


def test_zw_window_from_the_flag_the_configuration_zunos_catalog_the_table_or_unknown(tmp_path):
    env = env_for(tmp_path)
    cwd = str(tmp_path)
    models = Path(env.xdg_cache_home) / "zuno" / "models.json"
    models.parent.mkdir(parents=True)
    models.write_text(json.dumps({"acme": {"models": {"big": {"limit": {"context": 300000}},
                                                      "nolimit": {"limit": {}}}}}))
    assert models_catalog_path(env, cwd) == str(models)
    config = Config(model="acme/big")
    assert resolve_window(config, env, cwd, flag=64000) == ContextWindow(64000, WindowOrigin.FLAG)
    assert resolve_window(config, env, cwd) == ContextWindow(300000, WindowOrigin.MODEL_CATALOG, "acme/big",
                                                             source=str(models))
    assert resolve_window(Config(model="acme/nolimit"), env, cwd) == ContextWindow(
        0, WindowOrigin.MODEL_CATALOG, "acme/nolimit", source=str(models), note="the defaults apply")
    table = resolve_window(Config(model="anthropic/claude-sonnet-4-5"), env, cwd)
    assert (table.tokens, table.origin) == (200000, WindowOrigin.TABLE)
    assert resolve_window(Config(), env, cwd).describe() == (
        "context window unknown (no `model` configured: Zuno picks one from the providers it has credentials for)")
    assert resolve_window(Config(model="acme/other"), env, cwd).describe() == (
        f"acme/other · context window unknown (acme/other is not in the model catalog {models} nor in skillshelf's "
        "table)")


def test_zw_zunos_catalog_file_follows_zuno_models_path_and_url(tmp_path):
    env = env_for(tmp_path, ZUNO_MODELS_PATH="/m/models.json")
    assert models_catalog_path(env) == "/m/models.json"
    env = env_for(tmp_path, ZUNO_MODELS_URL="https://mirror.example/api")
    name = "models-" + hashlib.sha1(b"https://mirror.example/api").hexdigest() + ".json"
    assert models_catalog_path(env) == os.path.join(env.xdg_cache_home, "zuno", name)
    env = env_for(tmp_path, ZUNO_MODELS_URL="https://models.dev")
    assert models_catalog_path(env) == os.path.join(env.xdg_cache_home, "zuno", "models.json")


def test_zw_the_session_window_and_the_budget_rule_in_words(tmp_path):
    _config(tmp_path, {"model": "acme/big", "provider": {"acme": {"models": {"big": {"limit": {"context": 150001}}}}}})
    cat = open_catalog(tmp_path)
    window = cat.session.window()
    assert window == ContextWindow(150001, WindowOrigin.CONFIG, "acme/big",
                                   source="provider.acme.models.big.limit.context")
    prompt = cat.session.catalog(cat.current)
    # 2% of the window, floored (Zuno skill_metadata_budget: window × 2 / 100 characters)
    assert prompt.budget == 3000 == 150001 * 2 // 100
    assert prompt.budget_rule == ("acme/big · 150,001 tokens from the configuration "
                                  "(provider.acme.models.big.limit.context) → index budget 2% = 3,000 characters")
    assert budget_rule(max_context_tokens=25, window=window) == (
        "maxContextTokens 25 × 4 characters per token (at most 10,000 tokens) = 100 characters")
    assert selected_rule(max_selected_context_tokens=None, window=window) == (
        "acme/big · 150,001 tokens from the configuration (provider.acme.models.big.limit.context) → selected "
        "bodies 10% (at least 2,000 tokens) × 4 = 60,000 bytes")


def test_zw_known_windows_are_positive_and_keyed_provider_slash_model():
    assert KNOWN_WINDOWS["openai/gpt-4o"] == 128000 and KNOWN_WINDOWS["google/gemini-2.5-pro"] == 1048576
    assert all(k.count("/") == 1 and v > 0 for k, v in KNOWN_WINDOWS.items())


# --------------------------------------------------------------------------- Z-K: Zuno would refuse


@pytest.mark.parametrize("doc, where, reason", [
    # serde_json's place: the last character it read — the unknown key's closing quote, the value's end
    ({"skills": {"paths": ["a"], "bogus": 1}}, (1, 35), "unknown field `bogus`, expected one of `paths`, `urls`, "
     "`includeInstructions`, `maxContextTokens`, `maxSelectedContextTokens`, `config`"),
    ({"skills": {"maxContextTokens": 0}}, (1, 33), "invalid value: integer `0`, expected a nonzero u32"),
    ({"skills": {"config": [{"path": "x", "enable": False}]}}, (1, 45),
     "unknown field `enable`, expected one of `path`, `enabled`, `exposure`, `recursive`"),
    ({"agents": {"a": {"requiredSkills": []}}}, (1, 38), "`agents.a.requiredSkills` must name at least one Skill"),
])
def test_zk_zunos_validation_refuses_with_file_line_column(tmp_path, doc, where, reason):
    _config(tmp_path, doc)
    cat = open_catalog(tmp_path)
    refusal = cat.config.refusal
    path = tmp_path / "proj" / ".zuno" / "zuno.json"
    assert (refusal.path, refusal.line, refusal.column, refusal.reason) == (str(path), *where, reason)
    assert refusal.message == f"Zuno would refuse to start: {path}:{where[0]}:{where[1]}: {reason}"
    assert [s.name for s in cat.current.sources][:11] == PACK_ORDER  # the browser keeps working


# --------------------------------------------------------------------------- Z-U, Z-H, Z-T


def test_zu_the_first_body_over_the_byte_budget_stops_the_request():
    from skillshelf.core.report import RequiredBody

    bodies = [RequiredBody("a", "/a", 20000, 5000, None), RequiredBody("é", "/e", 15000, 3000, None)]
    assert selected_refusal(bodies, 40000) is None
    assert selected_refusal(bodies, 32000) == (
        "selected Skill `é` from `/e` (15000 bytes) would raise selected Skill bodies to 35000 bytes, exceeding "
        "the 32000-byte aggregate prompt budget")


def test_zh_digest_bytes_of_one_source():
    s = Source(name="n", location="/l", provenance=Provenance.PROJECT_ZUNO, canonical="/l", description="d",
               exposure=Exposure.SEARCH, content_sha256="ab" * 32, metadata_sources=("/l/agents/zuno.yaml",))
    assert source_digest_bytes(s) == (
        b"n\x00/l\x00d\x00\x00\x00" + b"\x01" + b"/l/agents/zuno.yaml\x00" + bytes.fromhex("ab" * 32) + b"\xff")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_zt_the_worktree_is_confirmed_with_git(tmp_path):
    env = Environment.from_mapping({"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")})
    real = tmp_path / "real"
    (real / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(real)], check=True)
    assert git_worktree(str(real / "src" / "deep"), env) == str(real)
    fake = tmp_path / "fake"
    (fake / ".git").mkdir(parents=True)  # a folder git rejects: no worktree, the walks go to /
    assert git_worktree(str(fake), env) is None
    no_git = Environment.from_mapping({"HOME": str(tmp_path), "PATH": "/nonexistent"})
    assert git_worktree(str(real / "src"), no_git) is None


def test_skillshelfs_own_skills_are_lint_examples_only():
    examples = sorted((REPO / "examples" / "skills").glob("*/SKILL.md"))
    assert [p.parent.name for p in examples] == ["reviewing-skills", "tuning-skill-budget", "writing-skills"]
    for path in examples:
        report = lint_file(str(path), target=Target.SPEC)
        assert report.valid and [d.code for d in report.diagnostics if d.severity.value == "error"] == []
