"""Claude Code 2.1.332's built-in skills and commands: names and sizes only.

Their descriptions are Claude's prose and are not part of skillshelf. What is stored here are
facts measured on the real client (fresh HOME, every model tried): each built-in skill's name,
the length of its catalog line ``- name: description`` in UTF-16 units and in terminal columns,
whether it is *fixed* (bundled: keeps its description when the listing is over budget) and the
SHA-256 of its description (to recognise the exact text when an installed Claude provides it,
see :mod:`.installed`). The budget arithmetic uses these sizes, so every user and project line
is exact even when the built-in text is not available.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BUILTIN_COMMANDS", "BUILTIN_SKILLS", "BuiltinSkill", "marker"]


@dataclass(frozen=True)
class BuiltinSkill:
    """One built-in skill: ``line_len`` (UTF-16 units) and ``line_width`` (terminal columns) of
    its full catalog line, ``fixed`` (keeps its description over budget), ``sha256`` of the
    description (UTF-8)."""

    name: str
    line_len: int
    line_width: int
    fixed: bool
    sha256: str = ""

    @property
    def description_len(self) -> int:
        """Its description's length in UTF-16 units."""
        return self.line_len - len(self.name) - 4

    @property
    def description_width(self) -> int:
        """Its description's width in terminal columns."""
        return self.line_width - len(self.name) - 4


#: In catalog order (after every user, project and command entry).
BUILTIN_SKILLS: tuple[BuiltinSkill, ...] = (
    BuiltinSkill("dataviz", 1447, 1447, True),
    BuiltinSkill("update-config", 707, 707, True),
    BuiltinSkill("keybindings-help", 248, 248, True),
    BuiltinSkill("code-review", 850, 850, True),
    BuiltinSkill("simplify", 188, 188, True),
    BuiltinSkill("fewer-permission-prompts", 191, 191, True),
    BuiltinSkill("loop", 344, 344, True),
    BuiltinSkill("claude-api", 1171, 1169, True),  # two line breaks inside, 0 columns each
    BuiltinSkill("workflow-authoring", 252, 252, True),
    BuiltinSkill("run", 368, 368, True),
    BuiltinSkill("plugin-authoring", 275, 275, True),
    BuiltinSkill("init", 67, 67, False),
    BuiltinSkill("security-review", 90, 90, False),
)

#: Every built-in command and skill name the client registers, with its aliases, in its
#: order; a frontmatter name equal to one of these names is not shown in the listing (the
#: aliases only matter for the Skill tool's "did you mean").
BUILTIN_COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("deep-research", ()), ("dataviz", ()), ("update-config", ()), ("verify", ()), ("debug", ()),
    ("code-review", ("review",)), ("simplify", ()), ("batch", ()), ("fewer-permission-prompts", ()),
    ("doctor", ("checkup",)), ("loop", ("proactive",)), ("claude-api", ()), ("workflow-authoring", ()),
    ("run", ()), ("run-skill-generator", ()), ("plugin-authoring", ()), ("agents", ()), ("auto-mode-setup", ()),
    ("autocompact", ()), ("clear", ("reset", "new")), ("color", ()), ("compact", ()), ("config", ("settings",)),
    ("output-style", ()), ("context", ()), ("effort", ()), ("fast", ()), ("focus", ()), ("heapdump", ()),
    ("init", ()), ("mcp", ()), ("model", ()), ("__remote-workflow", ()), ("workflow-launch-exec", ()),
    ("reload-plugins", ()), ("reload-skills", ()), ("rename", ("name",)), ("security-review", ()),
    ("usage", ("cost", "stats")), ("insights", ()), ("recap", ()), ("goal", ()), ("list-agents", ("peers",)),
    ("team-onboarding", ()),
    # interactive commands: not in the initialize answer, but a frontmatter name equal to one
    # of them is not shown in the listing either (measured on 2.1.332)
    ("add-dir", ()), ("background", ()), ("branch", ()), ("btw", ()), ("bug", ()), ("cd", ()), ("copy", ()),
    ("diff", ()), ("exit", ()), ("export", ()), ("feedback", ()), ("fork", ()), ("help", ()), ("hooks", ()),
    ("ide", ()), ("keybindings", ()), ("login", ()), ("logout", ()), ("memory", ()), ("mobile", ()),
    ("passes", ()), ("permissions", ()), ("plan", ()), ("plugin", ()), ("powerup", ()),
    ("pro-trial-expired", ()), ("radio", ()), ("release-notes", ()), ("resume", ()), ("rewind", ()),
    ("scroll-speed", ()), ("setup-bedrock", ()), ("setup-vertex", ()), ("skills", ()), ("status", ()),
    ("stickers", ()), ("subtask", ()), ("tasks", ()), ("terminal-setup", ()), ("theme", ()), ("tui", ()),
    ("workflows", ()),
)


def marker(skill: BuiltinSkill) -> str:
    """The stand-in description shown when the built-in text is not available: visible, sized,
    and impossible for a real description (those never hold ``<``)."""
    return f"<<Claude Code built-in description: {skill.description_len} characters>>"
