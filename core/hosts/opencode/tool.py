"""opencode's ``skill`` tool: ``{"name": NAME}`` → the skill's content and a sample of its files.

What opencode 1.18.33 answers (the tool its sessions send):

- the name is looked up exactly among the listed skills (a skill without a description, which
  the catalog leaves out, loads too; for a race group, whichever copy won);
- unknown → the tool error ``Skill "NAME" not found. Available skills: a, b`` (names in UTF-16
  code-unit order, ``none`` when there are none);
- then the ``skill`` permission is asked for the name: a deny answers ``The user has specified a
  rule which prevents you from using this specific tool call. Here are some of the relevant
  rules [...]`` (the rules whose permission matches ``skill``, as JSON); when every name is
  denied the tool is not offered at all;
- the output, lines joined by ``\\n``::

      <skill_content name="NAME">
      # Skill: NAME

      CONTENT (front matter stripped, trimmed)

      Base directory for this skill: DIR
      Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
      Note: file list is sampled.

      <skill_files>
      <file>ABSOLUTE PATH</file>   (up to 10, ripgrep: hidden files in, SKILL.md and symlinks out)
      </skill_files>
      </skill_content>

  ``DIR`` is the folder of the location (``.`` for the built-in, whose sample comes from the
  working directory). The title is ``Loaded skill: NAME``.

Differences kept on purpose: ripgrep lists files in no fixed order and applies ``.gitignore``
and ``.ignore`` rules; skillshelf lists them in name order and applies none. opencode without
``rg`` fails the call (``ripgrep execution failed``); skillshelf answers as with it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.base import ToolCatalog
from skillshelf.core.hosts.client import MAX_SKILL_BYTES
from skillshelf.core.hosts.opencode.builtin import BUILTIN_LOCATION
from skillshelf.core.hosts.opencode.matter import js_trim
from skillshelf.core.hosts.opencode.verdict import body
from skillshelf.core.hosts.opencode.workspace import Workspace, evaluate, skill_disabled, wildcard
from skillshelf.core.model import Generation, Source, Status
from skillshelf.core.tool import ToolError, ToolResult

__all__ = ["FILE_SAMPLE", "SCHEMA", "OpencodeSkillTool", "sample_files"]

#: Files listed in ``<skill_files>`` at most.
FILE_SAMPLE = 10

#: The tool's input schema as opencode sends it.
SCHEMA: dict[str, object] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"name": {"type": "string", "description": "The name of the skill from available_skills"}},
    "required": ["name"],
}


def _utf16(name: str) -> bytes:
    return name.encode("utf-16-be", errors="surrogatepass")


def sample_files(folder: str, limit: int = FILE_SAMPLE) -> list[str]:
    """Up to ``limit`` files below ``folder`` as ripgrep lists them for the tool (hidden files
    included, ``SKILL.md`` excluded, symlinks not followed), absolute, in name order."""
    out: list[str] = []
    base = os.path.abspath(folder)

    def visit(d: str) -> None:
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            if len(out) >= limit:
                return
            try:
                if e.is_symlink():
                    continue
                if e.is_dir(follow_symlinks=False):
                    visit(e.path)
                elif e.is_file(follow_symlinks=False) and e.name != "SKILL.md":
                    out.append(e.path)
            except OSError:
                continue

    visit(base)
    return out[:limit]


class OpencodeSkillTool:
    """The ``skill`` tool over a live catalog; ``workspace`` gives the opencode workspace of its
    latest build (permissions, a refusal to start). :meth:`call` returns a :class:`ToolResult` or
    raises :class:`ToolError` with opencode's text."""

    def __init__(self, catalog: ToolCatalog, workspace: Callable[[], Workspace]) -> None:
        self._catalog = catalog
        self._workspace = workspace

    @staticmethod
    def _listed(gen: Generation) -> dict[str, Source]:
        out: dict[str, Source] = {}
        for s in gen.sources:
            if s.enabled and s.status is not Status.SHADOWED:
                out.setdefault(s.name, s)
        return out

    def call(self, request: Mapping[str, object]) -> ToolResult:
        """One call: ``{"name": NAME}``."""
        name: Any = request.get("name") if isinstance(request, Mapping) else None
        if not isinstance(name, str):
            got = "missing" if not isinstance(request, Mapping) or "name" not in request else json.dumps(name)
            raise ToolError("invalid-arguments", "The arguments provided to the tool are invalid: "
                                                 f"name: Expected string, got {got}")
        ws = self._workspace()
        if ws.fatal is not None:
            raise ToolError("no-skill-tool", ws.fatal)
        rules = ws.rules
        off = skill_disabled(rules)
        if off is not None:
            raise ToolError("no-skill-tool", "opencode offers no skill tool: the skill permission is denied for "
                                             f"every name ({off.describe()})")
        listed = self._listed(self._catalog.current)
        if name not in listed:
            listed = self._listed(self._catalog.refresh())
        source = listed.get(name)
        if source is None:
            names = ", ".join(sorted(listed, key=_utf16)) or "none"
            raise ToolError("unknown-skill", f'Skill "{name}" not found. Available skills: {names}')
        if evaluate(name, rules).action == "deny":
            relevant = [r.to_js() for r in rules if wildcard("skill", r.permission)]
            raise ToolError("permission-denied", "The user has specified a rule which prevents you from using this "
                            "specific tool call. Here are some of the relevant rules "
                            + json.dumps(relevant, ensure_ascii=False, separators=(",", ":")))
        builtin = source.location == BUILTIN_LOCATION
        if builtin:
            content = source.body or ""
            folder = "."
            sample_from = ws.cwd
        else:
            try:
                data = read_regular(source.canonical, MAX_SKILL_BYTES)
            except OSError as exc:
                raise ToolError("document-unavailable", f"{source.location}: {exc.strerror or exc}") from None
            parsed = body(data)
            if parsed is None:
                raise ToolError("document-unavailable", f"{source.location}: opencode no longer loads this file")
            content = parsed
            folder = os.path.dirname(source.location)
            sample_from = folder
        files = sample_files(sample_from)
        lines = [f'<skill_content name="{source.name}">', f"# Skill: {source.name}", "", js_trim(content), "",
                 f"Base directory for this skill: {folder}",
                 "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
                 "Note: file list is sampled.", "", "<skill_files>",
                 "\n".join(f"<file>{f}</file>" for f in files), "</skill_files>", "</skill_content>"]
        metadata: dict[str, object] = {"name": source.name, "dir": folder, "location": source.location}
        if source.status is Status.RACE:
            metadata["race"] = [source.location, *source.shadowed_by]
        return ToolResult(output="\n".join(lines), metadata=metadata, title=f"Loaded skill: {source.name}")
