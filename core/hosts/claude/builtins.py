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
    description (UTF-8, hex) and ``parts``: how the description is assembled from the strings
    of the client's bytecode — ``(length, "latin1" | "utf16", sha256 prefix)`` for a stored
    string of ``length`` characters, or a short literal joining them (names, `` - ``, ``\n``)."""

    name: str
    line_len: int
    line_width: int
    fixed: bool
    sha256: str = ""
    parts: tuple[tuple[int, str, str] | str, ...] = ()
    zero_width: tuple[int, ...] = ()

    def width_of_prefix(self, units: int) -> int:
        """Terminal columns of the first ``units`` UTF-16 units of the description (every
        character is one column wide except those at ``zero_width`` offsets)."""
        return units - sum(1 for z in self.zero_width if z < units)

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
    BuiltinSkill("dataviz", 1447, 1447, True,
                 "112984c471630233654b2d615d8dc6f6413b5d5893e84342c4dac8555b074d6d",
                 ((1436, "utf16", "112984c471630233"),)),
    BuiltinSkill("update-config", 707, 707, True,
                 "513dce2839a5941d762511e7dc161f6ff5f65cbb3d6d162886a1e2dbfa1c4661",
                 ((690, "latin1", "513dce2839a5941d"),)),
    BuiltinSkill("keybindings-help", 248, 248, True,
                 "1e6ae53453cea24e32876f96e91a48fb3a7f13c6ef7331bbee68b07aaeca05be",
                 ((228, "latin1", "1e6ae53453cea24e"),)),
    BuiltinSkill("code-review", 850, 850, True,
                 "6b8b9d65bdadb715734907f94de5be6aab8255d0d68de8ba7a28ce636685da8b",
                 ((166, "latin1", "9790a1af8fa66b8b"), "simplify", (54, "latin1", "33df44887e3c1cfc"), "low|medium|high|xhigh|max", (59, "latin1", "8106bba210c6a186"), (324, "latin1", "b65fa3b2b303ce22"), " - ", (196, "latin1", "8e0c926a605763eb"),)),
    BuiltinSkill("simplify", 188, 188, True,
                 "ee4d71082e38425513ccb2dd4d55f08f0f5b385cf60033931b03d8196da215d8",
                 ((176, "utf16", "ee4d71082e384255"),)),
    BuiltinSkill("fewer-permission-prompts", 191, 191, True,
                 "4493a51b007504d3431d094986890c51b012693b5956c42ed774a3de0a352a0f",
                 ((163, "latin1", "4493a51b007504d3"),)),
    BuiltinSkill("loop", 344, 344, True,
                 "cf889c354a758beb1445aaa382882629b8435ce18589696d1fbd12456506425f",
                 ((121, "latin1", "bdb824e52f143e90"), " - ", (212, "latin1", "dfaa504ac55be0db"),)),
    BuiltinSkill("claude-api", 1171, 1169, True,  # two line breaks inside (offsets 150, 802), 0 columns
                 "1d0df2b204c84487c6e7db014c8615a9c2cb394cd17868611652d89cec90e79d",
                 ((150, "utf16", "dd53e8dfe04b59b3"), "\n", (651, "utf16", "a6c06b599b6765d7"), "\n", (354, "utf16", "8bcfa6a3bc1ecea7"),), (150, 802)),
    BuiltinSkill("workflow-authoring", 252, 252, True,
                 "8cf8e49eb69e53c15428fd8427e3fe26b2f7b9aa44791b9fc069d3103ffb5740",
                 ((24, "latin1", "549d9321076bff24"), "Workflow", (198, "latin1", "fa705eb9e3b2bf40"),)),
    BuiltinSkill("run", 368, 368, True,
                 "6df266776ae53b865b919d1d597dce042f66937abf7e0bd85128dbf97849c045",
                 ((361, "latin1", "6df266776ae53b86"),)),
    BuiltinSkill("plugin-authoring", 275, 275, True,
                 "c663620d40db095171864897746cdaa6d3306f3772ca48ce00d5ce44962d801b",
                 ((255, "latin1", "c663620d40db0951"),)),
    BuiltinSkill("init", 67, 67, False,
                 "8bbd147819053c3454f48d6820e36b9854497357a2bc8e4218f2f46d1e9ceabc",
                 ((59, "latin1", "8bbd147819053c34"),)),
    BuiltinSkill("security-review", 90, 90, False,
                 "99012032bc93d8e321638d7026cb0302c7ed8ece24a7e2c99b186ad5916fafdc",
                 ((71, "latin1", "99012032bc93d8e3"),)),
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


def marker(skill: BuiltinSkill, cap: int | None = None) -> str:
    """The stand-in description shown when the built-in text is not available: visible, sized
    (``cap``: the per-entry cap that cuts it), and impossible for a real description (those
    never hold ``<``)."""
    cut = f", cut to {cap}" if cap is not None else ""
    return f"<<Claude Code built-in description: {skill.description_len} characters{cut}>>"
