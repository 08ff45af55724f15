"""Claude Code's ``Skill`` tool: ``{"skill": name, "args"?: text}`` → the skill's body.

What the client answers (observed with a mock model calling the tool):

- the ``tool_result`` content ``Launching skill: <name as requested, without a leading />``,
  followed in the same user message by a text block
  ``Base directory for this skill: <skill folder>\\n\\n<body>`` — the file after its frontmatter
  block (the whole file when there is none), ``$ARGUMENTS`` replaced by ``args`` (empty when
  absent) and ``${CLAUDE_SKILL_DIR}`` by the folder;
- the name may be the key, the shown frontmatter name, or either with a leading ``/``;
- ``<tool_use_error>Unknown skill: X. Did you mean Y?</tool_use_error>`` (Y: the first command
  name or alias within 2 edits, when there is one) and, for a ``disable-model-invocation``
  skill, ``<tool_use_error>Skill X cannot be used with Skill tool due to
  disable-model-invocation. …</tool_use_error>``.

:class:`ClaudeSkillTool` returns :class:`~skillshelf.core.tool.ToolResult` with ``output`` = the
``tool_result`` text, a blank line, then the text block; ``metadata`` holds each block apart
(``toolResult``, ``text``) and the ``skill`` key and ``location``. Refusals raise
:class:`~skillshelf.core.tool.ToolError` whose ``message`` is the client's ``tool_result``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.claude.builtins import BUILTIN_COMMANDS
from skillshelf.core.hosts.claude.parse import FILE_LIMIT, flag, split_frontmatter
from skillshelf.core.model import Generation, Source, Status
from skillshelf.core.tool import LiveCatalog, ToolError, ToolResult

__all__ = ["SCHEMA", "ClaudeSkillTool", "edit_distance"]

#: The tool's input schema, exactly as the client sends it.
SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "skill": {"description": "The name of a skill from the available-skills list. Do not guess names.",
                  "type": "string"},
        "args": {"description": "Optional arguments for the skill", "type": "string"},
    },
    "required": ["skill"],
    "additionalProperties": False,
}


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance between ``a`` and ``b``, ``limit + 1`` when over ``limit``."""
    if a == b:
        return 0
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        prev2, prev = prev, cur
    return min(prev[len(b)], limit + 1)


def _suggest(name: str, candidates: Sequence[str]) -> str | None:
    best, best_d = None, 3
    for c in candidates:
        if abs(len(c) - len(name)) > 2:
            continue
        d = edit_distance(name, c, 2)
        if d < best_d:
            best, best_d = c, d
    return best


def _error(code: str, text: str) -> ToolError:
    return ToolError(code, f"<tool_use_error>{text}</tool_use_error>")


class ClaudeSkillTool:
    """The ``Skill`` tool over a live catalog (``.current``, ``.refresh()``)."""

    def __init__(self, catalog: LiveCatalog) -> None:
        self._catalog = catalog

    def call(self, request: Mapping[str, object]) -> ToolResult:
        """One call (module docstring). Raises :class:`ToolError`."""
        if not isinstance(request, Mapping):
            raise _error("invalid-arguments", "InputValidationError: the input must be an object")
        extra = [k for k in request if k not in ("skill", "args")]
        if extra:
            raise _error("invalid-arguments", f"InputValidationError: unexpected parameter `{extra[0]}`")
        skill = request.get("skill")
        if not isinstance(skill, str):
            raise _error("invalid-arguments", "InputValidationError: the required parameter `skill` is missing"
                         if skill is None else "InputValidationError: `skill` must be a string")
        args = request.get("args")
        if args is not None and not isinstance(args, str):
            raise _error("invalid-arguments", "InputValidationError: `args` must be a string")
        name = skill.removeprefix("/")
        gen = self._catalog.current
        found = _find(gen, name)
        if found is None:
            gen = self._catalog.refresh()
            found = _find(gen, name)
        if found is None:
            raise _unknown(gen, name)
        if found.status is Status.HIDDEN:
            if bool(flag(found.frontmatter.get("disable-model-invocation"))):
                raise _error("disable-model-invocation",
                             f"Skill {name} cannot be used with Skill tool due to disable-model-invocation. Ask the "
                             f"user to run /{found.name} themselves — it cannot be invoked via the Skill tool. Do not "
                             "replicate this skill's workflow by other means — it is reserved for explicit user "
                             "invocation.")
            raise _unknown(gen, name)
        if found.location.startswith("builtin://"):
            raise ToolError("builtin-prompt", f"Launching skill: {name} — Claude Code builds the prompt of its "
                            "built-in skills itself; skillshelf cannot reproduce it")
        try:
            data = read_regular(found.canonical, FILE_LIMIT)
        except OSError as exc:
            raise ToolError("document-unavailable", f"cannot read {found.location}: {exc.strerror or exc}") from None
        fm = split_frontmatter(data.decode("utf-8", "replace"))
        folder = os.path.dirname(found.location)
        body = fm.body.replace("$ARGUMENTS", args or "").replace("${CLAUDE_SKILL_DIR}", folder)
        result = f"Launching skill: {name}"
        text = f"Base directory for this skill: {folder}\n\n{body}"
        return ToolResult(output=f"{result}\n\n{text}", title=result,
                          metadata={"toolResult": result, "text": text, "skill": found.name,
                                    "location": found.location})


def _candidates(gen: Generation) -> list[Source]:
    """Loaded skills the tool can name: listed or hidden, never shadowed nor conditional."""
    return [s for s in gen.sources if s.enabled and (s.status is Status.OK or (
        s.status is Status.HIDDEN and not (s.status_reason or "").startswith("conditional")))]


def _find(gen: Generation, name: str) -> Source | None:
    cands = _candidates(gen)
    for s in cands:
        if s.name == name:
            return s
    for s in cands:
        if (s.display_name or s.name) == name:
            return s
    return None


def _unknown(gen: Generation, name: str) -> ToolError:
    names = [s.name for s in _candidates(gen) if s.status is Status.OK]
    for n, aliases in BUILTIN_COMMANDS:
        names.append(n)
        names.extend(aliases)
    hint = _suggest(name, names)
    return _error("unknown-skill", f"Unknown skill: {name}. Did you mean {hint}?" if hint else f"Unknown skill: {name}")
