"""Agent views (SPEC E4; Z234, Z235, Z237 — the portable parts)."""

from __future__ import annotations

from skillshelf.core.agents import agent_view, is_builtin, visible_to
from skillshelf.core.config import AgentConfig
from skillshelf.core.model import Provenance, SkillEntry, Source


def builtin(name: str, profiles: tuple[str, ...] | None, tools: tuple[str, ...] = ()) -> Source:
    loc = f"builtin://skillshelf/0.1.0/{name}"
    return Source(name=name, location=loc, provenance=Provenance.BUILTIN, canonical=loc,
                  builtin_profiles=profiles, builtin_tools=tools)


def external(name: str) -> Source:
    loc = f"/project/.zuno/skill/{name}/SKILL.md"
    return Source(name=name, location=loc, provenance=Provenance.PROJECT_ZUNO, canonical=loc)


DEEPWORK = builtin("deepwork", ("orchestrator",), ("plan_get", "plan_update", "todo_get", "todo_set"))


def test_z235_profile_must_be_allowed() -> None:
    assert visible_to(DEEPWORK, AgentConfig("o", profile="orchestrator")) is True
    assert visible_to(DEEPWORK, AgentConfig("e", profile="explorer")) is False


def test_z235_every_required_tool_must_be_in_an_explicit_tool_list() -> None:
    incomplete = AgentConfig("o", profile="orchestrator", tools=("plan_get", "plan_update", "todo_get"))
    assert visible_to(DEEPWORK, incomplete) is False
    exact = AgentConfig("o", profile="orchestrator",
                        tools=("plan_get", "plan_update", "todo_get", "todo_set"))
    assert visible_to(DEEPWORK, exact) is True
    assert visible_to(DEEPWORK, AgentConfig("o", profile="orchestrator", tools=())) is False


def test_z234_no_tool_list_means_no_tool_restriction() -> None:
    assert visible_to(DEEPWORK, AgentConfig("o", profile="orchestrator", tools=None)) is True


def test_z237_external_sources_are_never_filtered() -> None:
    custom = external("custom")
    for agent in (AgentConfig("x", profile="explorer", tools=()),
                  AgentConfig("y", profile="anything", tools=("read",))):
        assert visible_to(custom, agent) is True
        # Even when built-in style metadata is passed explicitly.
        assert visible_to(custom, agent, ("orchestrator",), ("plan_get",)) is True


def test_builtin_without_declared_profiles_is_open_to_every_profile() -> None:
    open_skill = builtin("writing", None, ("read",))
    assert visible_to(open_skill, AgentConfig("a", profile="explorer", tools=("read", "x"))) is True
    assert visible_to(open_skill, AgentConfig("a", profile="explorer", tools=("x",))) is False


def test_unset_agent_profile_skips_the_profile_check() -> None:
    assert visible_to(DEEPWORK, AgentConfig("noprofile")) is True


def test_no_agent_sees_everything() -> None:
    assert visible_to(DEEPWORK, None) is True


def test_entries_take_explicit_builtin_metadata() -> None:
    entry = SkillEntry(name="deepwork", location=DEEPWORK.location, body="b")
    agent = AgentConfig("e", profile="explorer")
    assert visible_to(entry, agent) is True  # an entry carries no metadata of its own
    assert visible_to(entry, agent, ("orchestrator",), ()) is False


def test_agent_view_keeps_catalog_order_and_only_removes() -> None:
    ui = builtin("ui-design", ("build",), ("read",))
    custom = external("custom")
    sources = (DEEPWORK, ui, custom)
    build = AgentConfig("build", profile="build", tools=("read", "skill"))
    assert agent_view(sources, build) == (ui, custom)
    assert agent_view(sources, None) == sources


def test_is_builtin() -> None:
    assert is_builtin("builtin://skillshelf/0.1.0/x") is True
    assert is_builtin("/home/u/.agents/skills/x/SKILL.md") is False
