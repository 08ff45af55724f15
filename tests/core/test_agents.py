"""Agents (conformance Z-A; SPEC E4, S2 as corrected): the agent's name is its profile, an
explicit tool list and permission rules hide built-ins, Zuno's requiredSkills texts, and the
bare-name / ``$name`` mentions of a prompt."""

from __future__ import annotations

from skillshelf.core.agents import (
    AgentSetup,
    PermissionRule,
    agent_view,
    bare_mention,
    dollar_mention,
    preloaded_by_prompt,
    resolve_required_skills,
    tool_hidden,
    visible_to,
)
from skillshelf.core.model import Exposure, Provenance, Source


def builtin(name: str, profiles: tuple[str, ...] | None, tools: tuple[str, ...] = ()) -> Source:
    loc = f"builtin://zuno-orchestration/0.10.3/{name}"
    return Source(name=name, location=loc, provenance=Provenance.BUILTIN, canonical=loc,
                  builtin_profiles=profiles, builtin_tools=tools, description="d")


def external(name: str, exposure: Exposure = Exposure.INDEX, folder: str | None = None) -> Source:
    loc = f"/project/.zuno/skill/{folder or name}/SKILL.md"
    return Source(name=name, location=loc, provenance=Provenance.PROJECT_ZUNO, canonical=loc,
                  exposure=exposure, description="d")


DEEPWORK = builtin("deepwork", ("orchestrator", "build", "plan", "deep"),
                   ("goal_get", "plan_get", "plan_update", "todo_get", "todo_update"))


def test_z235_the_agents_name_must_be_an_allowed_profile() -> None:
    assert visible_to(DEEPWORK, AgentSetup("orchestrator")) is True
    assert visible_to(DEEPWORK, AgentSetup("explorer")) is False
    assert visible_to(DEEPWORK, AgentSetup("my-own-agent")) is False  # a custom agent is no profile


def test_z235_every_required_tool_must_be_in_an_explicit_tool_list() -> None:
    incomplete = AgentSetup("build", tools=("goal_get", "plan_get", "plan_update", "todo_get"))
    assert visible_to(DEEPWORK, incomplete) is False
    exact = AgentSetup("build", tools=("goal_get", "plan_get", "plan_update", "todo_get", "todo_update"))
    assert visible_to(DEEPWORK, exact) is True
    assert visible_to(DEEPWORK, AgentSetup("build", tools=())) is False
    assert visible_to(DEEPWORK, AgentSetup("build", tools=None)) is True  # Z234: no list, no restriction


def test_a_permission_rule_that_denies_a_tool_hides_the_builtins_that_need_it() -> None:
    rules = (PermissionRule("*", "allow"), PermissionRule("plan_update", "deny"))
    assert visible_to(DEEPWORK, AgentSetup("build", rules=rules)) is False
    later_allow = (*rules, PermissionRule("plan_update", "allow"))
    assert visible_to(DEEPWORK, AgentSetup("build", rules=later_allow)) is True  # the last rule decides
    by_pattern = (PermissionRule("*", "allow"), PermissionRule("plan_update", "deny", "src/**"))
    assert visible_to(DEEPWORK, AgentSetup("build", rules=by_pattern)) is True  # denied for some paths only
    assert tool_hidden("shell", (PermissionRule("*", "deny"), PermissionRule("sh*", "allow"))) is False
    assert tool_hidden("shell", (PermissionRule("*", "deny"),)) is True
    assert tool_hidden("shell", ()) is False


def test_z237_external_sources_are_never_filtered() -> None:
    custom = external("custom")
    for agent in (AgentSetup("explorer", tools=()), AgentSetup("anything", rules=(PermissionRule("*", "deny"),))):
        assert visible_to(custom, agent) is True


def test_no_agent_sees_everything_and_views_keep_catalog_order() -> None:
    ui = builtin("ui-design", ("build",), ("read",))
    custom = external("custom")
    sources = (DEEPWORK, ui, custom)
    assert visible_to(DEEPWORK, None) is True
    assert agent_view(sources, None) == sources
    assert agent_view(sources, AgentSetup("build", tools=("read", "skill"))) == (ui, custom)


def test_required_skills_use_zunos_texts() -> None:
    pdf_a, pdf_b = external("pdf", folder="a"), external("pdf", folder="b")
    shown = external("shown", Exposure.EXPLICIT)
    outcome = resolve_required_skills("review", ("shown", "missing", "pdf"), (pdf_a, pdf_b, shown))
    assert outcome.resolved == (("shown", shown),)  # explicit-only skills can be required
    assert outcome.failures == (
        ("missing", "agents.review.requiredSkills references unavailable Skill `missing` after Agent visibility "
                    "filtering"),
        ("pdf", "agents.review.requiredSkills references ambiguous Skill `pdf`; matching sources: "
                "`/project/.zuno/skill/a/SKILL.md`, `/project/.zuno/skill/b/SKILL.md`"),
    )
    assert outcome.refusal == outcome.failures[0][1]


def test_a_bare_name_is_bounded_by_characters_outside_the_identifier_set() -> None:
    assert bare_mention("please use pdf now", "pdf") == 11
    assert bare_mention("(pdf)", "pdf") == 1
    assert bare_mention("pdf", "pdf") == 0
    assert bare_mention("use pdf-tools", "pdf") is None
    assert bare_mention("a/pdf and pdf.", "pdf") is None  # `/` before, `.` after: both identifier characters
    assert bare_mention("my_pdf or pdf!", "pdf") == 10
    assert dollar_mention("run $pdf please", "pdf") == 4
    assert dollar_mention("run pdf please", "pdf") is None


def test_a_prompt_preloads_unambiguous_mentions_in_order_and_explicit_ones_only_by_dollar() -> None:
    pdf, docx = external("pdf"), external("docx")
    secret = external("secret", Exposure.EXPLICIT)
    twin_a, twin_b = external("twin", folder="a"), external("twin", folder="b")
    visible = (pdf, docx, secret, twin_a, twin_b)
    assert preloaded_by_prompt("docx then pdf, twin and secret", visible) == (docx, pdf)
    assert preloaded_by_prompt("use $secret and $pdf", visible) == (secret, pdf)
