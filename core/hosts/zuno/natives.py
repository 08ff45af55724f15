"""Host ``zuno``: Zuno's native agents (conformance Z-A; ``zuno-catalog/src/agent/builtin.rs``).

Fifteen agents, in declaration order; the last four are engine internals hidden from pickers.
Each has a permission overlay applied over the common ``"*": allow`` default (delegable agents
are deny-by-default and name what they may use); the overlay decides which tools reach the
model, and so which built-in skills an agent can see. ``review`` and ``deep`` load required
skills on every turn without any configuration.

:func:`agent_setup` combines a native's own data with ``agents.<name>`` from the configuration
(its ``requiredSkills`` replace the native's, its ``tools`` restrict, its ``permission`` rules
follow the overlay) and with the top-level ``tools`` and ``permission`` sections.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from skillshelf.core.agents import AgentSetup, PermissionRule
from skillshelf.core.config import Config

__all__ = ["DEFAULT_AGENT", "HIDDEN_AGENTS", "NATIVE_AGENTS", "REQUIRED_SKILLS", "agent_names", "agent_setup",
           "overlay"]

#: Zuno's native agents in declaration order (``BUILTIN_NAMES``).
NATIVE_AGENTS: tuple[str, ...] = (
    "orchestrator", "build", "plan", "review", "deep", "fixer", "general", "explorer", "librarian", "oracle",
    "looker", "compaction", "title", "summary", "council-synth",
)
#: Engine internals: native, but hidden from agent pickers.
HIDDEN_AGENTS = frozenset({"compaction", "title", "summary", "council-synth"})
#: The agent a session uses when none is named (``DEFAULT_AGENT``).
DEFAULT_AGENT = "orchestrator"

#: Natives that load skills on every turn (conformance Z-A).
REQUIRED_SKILLS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "review": ("codemap", "verification-planning"),
    "deep": ("deepwork", "verification-planning"),
})

_READ = ("read", "glob", "grep", "lsp")
_ALLOWS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "plan": (*_READ, "shell", "bg", "webfetch", "web_search", "question", "plan_exit", "goal_get", "plan_get",
             "plan_update", "todo_get", "todo_update", "skill"),
    "review": (*_READ, "shell", "bg", "webfetch", "web_search", "question", "council_run", "job", "review_open",
               "review_claim", "review_get", "review_finalize", "task_report", "goal_get", "plan_get", "todo_get",
               "skill"),
    "deep": (*_READ, "edit", "shell", "bg", "webfetch", "web_search", "question", "goal_get", "goal_propose",
             "goal_update", "goal_request_input", "plan_get", "plan_update", "todo_get", "todo_update", "skill",
             "execute"),
    "general": (*_READ, "edit", "shell", "bg", "webfetch", "web_search", "plan_get", "plan_update", "todo_get",
                "todo_update", "skill", "execute"),
    "fixer": (*_READ, "edit", "shell", "bg", "plan_get", "todo_get", "skill"),
    "explorer": (*_READ, "shell", "bg", "skill"),
    "librarian": (*_READ, "shell", "bg", "webfetch", "web_search", "skill"),
    "oracle": (*_READ, "shell", "bg", "skill"),
    "looker": (*_READ, "shell", "bg", "skill"),
})


def overlay(name: str) -> tuple[PermissionRule, ...]:
    """The rules deciding tool visibility for native ``name``: the common ``"*": allow`` default,
    then its overlay (empty for a name that is not native)."""
    if name not in NATIVE_AGENTS:
        return ()
    origin = f"Zuno's native overlay of {name}"
    rules = [PermissionRule("*", "allow", origin="Zuno's default permissions")]
    if name == "orchestrator":
        rules += [PermissionRule(t, "allow", origin=origin)
                  for t in ("plan_enter", "task", "plan_get", "plan_update", "todo_get", "todo_update")]
    elif name == "build":
        rules += [PermissionRule("task", "deny", origin=origin), PermissionRule("job", "deny", origin=origin)]
        rules += [PermissionRule(t, "allow", origin=origin)
                  for t in ("plan_enter", "plan_get", "plan_update", "todo_get", "todo_update")]
    elif name in HIDDEN_AGENTS:
        rules.append(PermissionRule("*", "deny", origin=origin))
    else:
        rules.append(PermissionRule("*", "deny", origin=origin))
        rules += [PermissionRule(t, "allow", origin=origin) for t in _ALLOWS[name]]
    if name not in HIDDEN_AGENTS:
        rules.append(PermissionRule("report_write", "allow", origin=origin))
    return tuple(rules)


def _rules_from(value: Any, origin: str) -> list[PermissionRule]:
    """Permission rules of one ``permission`` section: ``{"rules": {...}}`` or the map itself;
    ``"tool": "deny"`` is one rule for every pattern, ``"tool": {"pattern": "deny"}`` one per
    pattern."""
    if not isinstance(value, Mapping):
        return []
    inner = value.get("rules")
    rules_map: Mapping[Any, Any] = inner if isinstance(inner, Mapping) else value
    out: list[PermissionRule] = []
    for key, rule in rules_map.items():
        if key == "mode" and rules_map is value:
            continue
        if isinstance(rule, str):
            out.append(PermissionRule(str(key), rule, origin=origin))
        elif isinstance(rule, Mapping):
            out += [PermissionRule(str(key), str(action), str(pattern), origin=origin)
                    for pattern, action in rule.items() if isinstance(action, str)]
    return out


def _tool_switches(value: Any, origin: str) -> list[PermissionRule]:
    """The top-level ``tools`` map (``"shell": false``) as the lowest-precedence rules."""
    if not isinstance(value, Mapping):
        return []
    return [PermissionRule(str(k), "allow" if v else "deny", origin=origin)
            for k, v in value.items() if isinstance(v, bool)]


def agent_names(config: Config) -> tuple[str, ...]:
    """Agents a user can pick: the visible natives in declaration order, then configured agents
    that are not native, in configuration order."""
    natives = tuple(n for n in NATIVE_AGENTS if n not in HIDDEN_AGENTS)
    return natives + tuple(n for n in config.agents if n not in NATIVE_AGENTS)


def agent_setup(config: Config, name: str) -> AgentSetup:
    """:class:`~skillshelf.core.agents.AgentSetup` of agent ``name`` under ``config``."""
    native = name in NATIVE_AGENTS
    configured = config.agents.get(name)
    merged = config.merged
    rules = list(overlay(name))
    rules += _tool_switches(merged.get("tools"), "top-level `tools`")
    rules += _rules_from(merged.get("permission"), "top-level `permission`")
    raw_agents = merged.get("agents")
    raw = raw_agents.get(name) if isinstance(raw_agents, Mapping) else None
    notes: list[str] = []
    model: str | None = None
    if isinstance(raw, Mapping):
        rules += _rules_from(raw.get("permission"), f"`agents.{name}.permission`")
        if isinstance(raw.get("model"), str):
            model = raw["model"]
        if "profile" in raw:
            notes.append(f"`agents.{name}.profile` has no effect: Zuno has no `profile` key, the agent's "
                         f"name ({name}) is its profile")
    required = REQUIRED_SKILLS.get(name, ())
    tools: tuple[str, ...] | None = None
    if configured is not None:
        if configured.required_skills:
            required = configured.required_skills
        tools = configured.tools
    return AgentSetup(name=name, native=native, configured=configured is not None, required_skills=required,
                      tools=tools, rules=tuple(rules), model=model, notes=tuple(notes))
