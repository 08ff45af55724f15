"""Gemini CLI's ``activate_skill`` tool: its declaration, its argument checks and its answer.

Declaration: ``name`` is a string whose ``enum`` is every enabled skill name in catalog order
(no enabled skill: no enum, "No skills are currently available."). Arguments are checked with
ajv against that schema before the tool runs, and the first failure is the error the model
reads: ``params must have required property 'name'``, ``params must NOT have additional
properties``, ``params/name must be string``, ``params/name must be equal to one of the allowed
values`` (the enum is case-sensitive).

Answer::

    <activated_skill name="NAME">
      <instructions>
        BODY
      </instructions>

      <available_resources>
        FOLDER STRUCTURE
      </available_resources>
    </activated_skill>

``BODY`` is the text after the frontmatter, trimmed (only its first line is indented).
``FOLDER STRUCTURE`` is ``getFolderStructure(dirname(location))``: a breadth-first tree of at
most 200 items, entries sorted with ``localeCompare``, files before folders, ``node_modules``,
``.git``, ``dist`` and ``__pycache__`` shown as ``name/...``, symlinks left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillshelf.core.hosts.gemini.collate import collation_key
from skillshelf.core.model import Source
from skillshelf.core.tool import ToolError, ToolResult

__all__ = ["ActivateSkillTool", "declaration", "folder_structure"]

TOOL_NAME = "activate_skill"
MAX_ITEMS = 200
_IGNORED = frozenset({"node_modules", ".git", "dist", "__pycache__"})
_TEE, _ELBOW, _PIPE = "\u251c\u2500\u2500\u2500", "\u2514\u2500\u2500\u2500", "\u2502   "


def declaration(names: Sequence[str]) -> dict[str, Any]:
    """The function declaration Gemini CLI sends for ``names`` (enabled, catalog order)."""
    hint = f" (Available: {', '.join(repr_name(n) for n in names)})" if names else ""
    prop: dict[str, Any] = ({"type": "string", "enum": list(names), "description": "The name of the skill to activate."}
                            if names else {"type": "string", "description": "No skills are currently available."})
    return {
        "name": TOOL_NAME,
        "description": (f"Activates a specialized agent skill by name{hint}. Returns the skill's instructions wrapped "
                        "in `<activated_skill>` tags. These provide specialized guidance for the current task. Use this "
                        "when you identify a task that matches a skill's description. ONLY use names exactly as they "
                        "appear in the `<available_skills>` section."),
        "parametersJsonSchema": {"type": "object", "properties": {"name": prop}, "required": ["name"],
                                 "additionalProperties": False, "$schema": "http://json-schema.org/draft-07/schema#"},
    }


def repr_name(name: str) -> str:
    """A name as the declaration's ``(Available: …)`` list quotes it."""
    return f"'{name}'"


@dataclass
class _Folder:
    name: str
    path: str
    files: list[str] = field(default_factory=list)
    folders: list[_Folder] = field(default_factory=list)
    ignored: bool = False
    more_files: bool = False
    more_folders: bool = False


def _read_structure(root: str, max_items: int) -> _Folder | None:
    top = _Folder(os.path.basename(root), root)
    queue: list[_Folder] = [top]
    count = 0
    seen: set[str] = set()
    while queue:
        node = queue.pop(0)
        if node.path in seen:
            continue
        seen.add(node.path)
        if count >= max_items:
            continue
        try:
            with os.scandir(node.path) as it:
                entries = sorted(it, key=lambda e: collation_key(e.name))
        except FileNotFoundError:
            if node is top:
                return None
            continue
        except OSError:
            continue
        for e in entries:
            if e.is_file(follow_symlinks=False):
                if count >= max_items:
                    node.more_files = True
                    break
                node.files.append(e.name)
                count += 1
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if count >= max_items:
                    node.more_folders = True
                    break
                sub = _Folder(e.name, os.path.join(node.path, e.name), ignored=e.name in _IGNORED)
                node.folders.append(sub)
                count += 1
                if not sub.ignored:
                    queue.append(sub)
    return top


def _format(node: _Folder, indent: str, last: bool, is_root: bool, out: list[str]) -> None:
    if not is_root or node.ignored:
        out.append(f"{indent}{_ELBOW if last else _TEE}{node.name}/{'...' if node.ignored else ''}")
    child_indent = "" if is_root else indent + ("    " if last else _PIPE)
    for i, name in enumerate(node.files):
        end = i == len(node.files) - 1 and not node.folders and not node.more_folders
        out.append(f"{child_indent}{_ELBOW if end else _TEE}{name}")
    if node.more_files:
        end = not node.folders and not node.more_folders
        out.append(f"{child_indent}{_ELBOW if end else _TEE}...")
    for i, sub in enumerate(node.folders):
        _format(sub, child_indent, i == len(node.folders) - 1 and not node.more_folders, False, out)
    if node.more_folders:
        out.append(f"{child_indent}{_ELBOW}...")


def _truncated(node: _Folder) -> bool:
    return node.more_files or node.more_folders or node.ignored or any(_truncated(s) for s in node.folders)


def folder_structure(directory: str, max_items: int = MAX_ITEMS) -> str:
    """``getFolderStructure(directory)``, byte for byte."""
    path = os.path.normpath(os.path.abspath(directory))
    top = _read_structure(path, max_items)
    if top is None:
        return f'Error: Could not read directory "{path}". Check path and permissions.'
    lines: list[str] = []
    _format(top, "", True, True, lines)
    summary = f"Showing up to {max_items} items (files + folders)."
    if _truncated(top):
        summary += (f" Folders or files indicated with ... contain more items not shown, were ignored, or the display "
                    f"limit ({max_items} items) was reached.")
    return f"{summary}\n\n{path}/\n" + "\n".join(lines)


class ActivateSkillTool:
    """``activate_skill`` over a live source list: ``skills`` returns the enabled winners in
    catalog order; ``body`` returns one skill's body as Gemini CLI holds it (raises
    ``OSError`` when the file cannot be read)."""

    def __init__(self, skills: Callable[[], Sequence[Source]], body: Callable[[Source], str]) -> None:
        self._skills = skills
        self._body = body

    def declaration(self) -> dict[str, Any]:
        """The tool declaration for the current skills."""
        return declaration([s.name for s in self._skills()])

    def call(self, request: Mapping[str, object]) -> ToolResult:
        """One call: ``request`` is the arguments object. Raises :class:`ToolError` with the
        text the model reads."""
        skills = list(self._skills())
        names = [s.name for s in skills]
        if not isinstance(request, Mapping):
            raise ToolError("invalid-arguments", "Value of params must be an object")
        if "name" not in request:
            raise ToolError("missing-field", "params must have required property 'name'")
        if any(k != "name" for k in request):
            raise ToolError("unexpected-field", "params must NOT have additional properties")
        name = request["name"]
        if not isinstance(name, str):
            raise ToolError("invalid-arguments", "params/name must be string")
        if names and name not in names:
            raise ToolError("unknown-skill", "params/name must be equal to one of the allowed values")
        skill = next((s for s in skills if s.name.lower() == name.lower()), None)
        if skill is None:
            raise ToolError("unknown-skill", f'Skill "{name}" not found. Available skills are: {", ".join(names)}')
        try:
            body = self._body(skill)
        except OSError as exc:
            raise ToolError("document-unavailable", f"Error: could not read {skill.location}: {exc.strerror or exc}") \
                from None
        tree = folder_structure(os.path.dirname(skill.location)) if os.path.isabs(skill.location) else (
            "(the built-in skill's folder is inside the Gemini CLI bundle, which is not installed here)")
        output = (f'<activated_skill name="{name}">\n  <instructions>\n    {body}\n  </instructions>\n\n'
                  f"  <available_resources>\n    {tree}\n  </available_resources>\n</activated_skill>")
        return ToolResult(output=output, metadata={"name": skill.name, "location": skill.location},
                          title=f"Activate Skill: {skill.name}")
