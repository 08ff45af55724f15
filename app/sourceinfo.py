"""Off-the-event-loop work behind the TUI's source pane and meters (no Textual here).

Everything in this module runs in worker threads and returns plain data the screen hands to its
widgets (DESIGN "The TUI": attributes down). It composes the core:

- :class:`LintCache` — lint per file for the host's target (SPEC F4–F5), cached by (locator, content
  SHA-256) so a generation that did not change a file never re-lints it;
- :func:`sidecar_origins` — which sidecar file gave the display name / short description (E3);
- :func:`list_resources` — the skill directory's files, for ``read_resource`` (SPEC L5);
- :func:`load_page` — one page of ``load`` / ``read_resource`` through the model-facing
  :class:`~skillshelf.core.tool.SkillTool` (SPEC L3–L6), with the page count;
- :func:`view_info` — the agent view (E4), both budgets (U1–U3) and requiredSkills (S2), reusing
  :func:`skillshelf.core.report.debug_agent_document`;
- :func:`body_cost` — tokens of one selected body (exact tiktoken and the agent's chars/4);
- :func:`generation_diff` — what a new generation added / changed / removed (SPEC H2, the
  header's ``changed: +2 ~1 −1``);
- host ``zhin`` (SPEC Z3–Z5): :func:`zhin_details` (catalog line, locked private tools, missing
  dependencies) and :func:`zhin_load_page` (the ``load_skill`` text); :func:`view_info` counts
  the ``always: true`` bodies against the selected-body budget there;
- :func:`problems` — the Problems view (``e``): a generation's warnings, catalog diagnostics and
  rejected files, folded and grouped (SPEC K1, D2, D4, R, H3, F6).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from typing import Any, Sequence

from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.base import Feature
from skillshelf.core.model import Diagnostic, Generation, Provenance, Rejected, Severity, Source, Status
from skillshelf.core.tokens import approx_tokens, shared_counter

__all__ = [
    "LintCache", "lint_target_for", "disk_stamp", "FROM_CONFIG", "first_error", "ResourceFile", "sidecar_origins", "list_resources", "PageResult", "load_page",
    "body_only", "body_first_line", "ViewInfo", "RequiredBody", "view_info", "BodyCost", "body_cost", "count_tokens",
    "row_tokens", "remote_origin", "RESOURCE_DEPTH", "RESOURCE_CAP",
    "GenerationDiff", "generation_diff", "ZhinDetails", "zhin_details", "zhin_load_page", "zhin_body_cost",
    "WindowCatalog", "Problem", "problems", "problem_counts", "problems_summary", "REJECTED_KIND",
    "single_error_text", "ERROR_NAMED_MAX",
]

Item = Source | Rejected

#: Deepest directory level listed under a skill directory (the directory itself is level 0).
RESOURCE_DEPTH = 3
#: Most resource files listed per skill.
RESOURCE_CAP = 200


def count_tokens(text: str) -> tuple[int, bool]:
    """``(tokens, exact)`` of ``text``: tiktoken ``cl100k_base`` when loadable offline, else the
    4-characters-per-token estimate with ``exact`` False (SPEC T1, U4)."""
    c = shared_counter().count(text)
    return int(c.tokens), bool(c.exact)


# --------------------------------------------------------------------------- lint (issue 2)


class LintCache:
    """Lint findings per file (SPEC F4–F5) for one lint ``target``, thread-safe.

    ``target``: the :class:`skillshelf.core.lint.Target` value (``"spec"``, ``"zhin"`` …) or a
    client host's own verdict (``"gemini"``, SPEC N6) — the browser lints with the host's lint
    target (:func:`lint_target_for`).
    Key: ``(locator, content_sha256)`` — lint depends on the bytes *and* on the folder (name
    mismatch, missing references), so a file moved or edited is linted again. A kept-last-valid
    source (SPEC H3) carries the hash of the *old* version the host keeps, while lint reads the
    file on disk; its key is ``(locator, "disk:<mtime_ns>:<size>")`` of the current file instead
    (one ``stat``), so the lint always describes the file on disk. Built-ins are never linted (no
    file). :meth:`lint` never raises: a failure becomes one ``lint-failed`` diagnostic.
    """

    def __init__(self, target: str = "spec") -> None:
        from skillshelf.core.hostlint import host_targets
        from skillshelf.core.lint import Target

        # a client host's own verdict (``lint --target gemini``) or one of the lint rule sets
        self.target = target if target in host_targets() else Target(target).value
        self._lock = threading.Lock()
        self._reports: dict[tuple[str, str], tuple[Diagnostic, ...]] = {}

    @staticmethod
    def key(item: Item) -> tuple[str, str] | None:
        """The cache key of ``item``, ``None`` for a built-in (never linted)."""
        if item.location.startswith("builtin://"):
            return None
        if isinstance(item, Source) and item.status is Status.KEPT_LAST_VALID:
            return (item.location, disk_stamp(item.location))
        return (item.location, item.content_sha256)

    def get(self, item: Item) -> tuple[Diagnostic, ...] | None:
        """Cached findings of ``item`` or ``None`` when not linted yet (or a built-in)."""
        key = self.key(item)
        if key is None:
            return None
        with self._lock:
            return self._reports.get(key)

    def lint(self, item: Item) -> tuple[Diagnostic, ...]:
        """Findings of ``item`` under :attr:`target` (cached); ``()`` for built-ins."""
        key = self.key(item)
        if key is None:
            return ()
        with self._lock:
            found = self._reports.get(key)
        if found is not None:
            return found
        from skillshelf.core.hostlint import host_lint_file, host_targets
        from skillshelf.core.lint import Target, lint_file
        from skillshelf.core.model import Severity

        from skillshelf.core.hostlint import host_lint_file, host_targets

        try:
            hosts = host_targets()
            if self.target in hosts:
                diags = tuple(host_lint_file(hosts[self.target], item.location).diagnostics)
            else:
                diags = tuple(lint_file(item.location, target=Target(self.target)).diagnostics)
        except Exception as exc:  # lint never breaks the browser
            diags = (Diagnostic(Severity.WARNING, "lint-failed", f"lint could not run: {type(exc).__name__}: {exc}"),)
        with self._lock:
            self._reports[key] = diags
        return diags

    def has_errors(self, item: Item) -> bool:
        """True when the cached lint of ``item`` holds an error-severity finding."""
        from skillshelf.core.model import Severity

        return any(d.severity is Severity.ERROR for d in (self.get(item) or ()))


def disk_stamp(path: str) -> str:
    """``disk:<mtime_ns>:<size>`` of the file at ``path`` now (``disk:missing`` when it cannot be
    stat-ed): the lint cache key part of a kept-last-valid source (SPEC H3)."""
    try:
        st = os.stat(path)
    except OSError:
        return "disk:missing"
    return f"disk:{st.st_mtime_ns}:{st.st_size}"


def lint_target_for(host: str) -> str:
    """The lint target the browser uses for ``host`` (SPEC F5): ``"zhin"`` for host zhin
    (Zhin's keys and rules, Z2), ``"spec"`` (the Agent Skills standard) otherwise."""
    return get_host(host).lint_target


# --------------------------------------------------------------------------- sidecars / resources


def sidecar_origins(source: Source) -> dict[str, str]:
    """Which sidecar file set ``display_name`` and ``short_description`` of ``source`` (SPEC E3).

    Returns ``{"display_name": path, "short_description": path}`` for the fields the source has;
    the native ``agents/zuno.yaml`` overlays the shared ``agents/openai.yaml`` field by field, so
    the later file that sets a field wins. Unreadable or malformed files contribute nothing (as
    in the host). Reads the files (worker thread).
    """
    out: dict[str, str] = {}
    if not source.metadata_sources or source.location.startswith("builtin://"):
        return out
    from skillshelf.core.sidecar import NATIVE_SIDECAR, SidecarMalformed, parse_sidecar

    for path in source.metadata_sources:
        native = os.path.basename(path) == NATIVE_SIDECAR
        try:
            with open(path, "rb") as fh:
                parsed = parse_sidecar(fh.read().decode("utf-8"), native=native)
        except (OSError, UnicodeDecodeError, SidecarMalformed, Exception):  # noqa: BLE001
            continue
        if parsed.display_name is not None:
            out["display_name"] = path
        if parsed.short_description is not None:
            out["short_description"] = path
    if source.display_name is None:
        out.pop("display_name", None)
    if source.short_description is None:
        out.pop("short_description", None)
    return out


@dataclass(frozen=True)
class ResourceFile:
    """One file under a skill directory: ``path`` relative to it (``/``-separated, the
    ``read_resource`` spelling) and ``size`` in bytes."""

    path: str
    size: int


def list_resources(skill_dir: str, *, depth: int = RESOURCE_DEPTH, cap: int = RESOURCE_CAP) -> tuple[list[ResourceFile], bool]:
    """Files under ``skill_dir`` (canonical directory walked), sorted, at most ``cap``; the bool
    says the list was cut. Skips the top-level ``SKILL.md`` and ``agents/`` (sidecars), dot
    entries, and anything deeper than ``depth`` directory levels. Does not follow directory
    symlinks out of the tree; unreadable directories are skipped (never raises)."""
    if not skill_dir:
        return [], False
    root = os.path.realpath(skill_dir)
    found: list[ResourceFile] = []
    cut = False
    for current, dirs, files in os.walk(root, onerror=lambda _e: None):
        rel_dir = os.path.relpath(current, root)
        level = 0 if rel_dir == "." else rel_dir.count(os.sep) + 1
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (level == 0 and d == "agents"))
        if level >= depth:
            dirs[:] = []
        for name in sorted(files):
            if name.startswith(".") or (level == 0 and name == "SKILL.md"):
                continue
            full = os.path.join(current, name)
            rel = name if level == 0 else os.path.join(rel_dir, name)
            try:
                size = os.stat(full).st_size
            except OSError:
                size = -1
            if len(found) >= cap:
                cut = True
                break
            found.append(ResourceFile(rel.replace(os.sep, "/"), size))
        if cut:
            break
    found.sort(key=lambda r: (r.path.count("/"), r.path))
    return found, cut


def remote_origin(catalog: Any, source: Source) -> tuple[str, str | None] | None:
    """``(url, version)`` a remote source was pulled from (SPEC R), looked up in
    ``catalog.remote_origins`` by the source's root, then by its skill directory (and their
    real paths); ``None`` when unknown or not remote."""
    if source.provenance is not Provenance.REMOTE:
        return None
    origins = getattr(catalog, "remote_origins", None) or {}
    for key in (source.root, source.directory):
        if not key:
            continue
        for candidate in (key, key.rstrip("/"), os.path.realpath(key)):
            if candidate in origins:
                url, version = origins[candidate]
                return str(url), (None if version is None else str(version))
    return None


# --------------------------------------------------------------------------- body pages (issue 4)


@dataclass(frozen=True)
class PageResult:
    """One page shown in the pane.

    ``output``: the exact tool output text (raw view); ``body``: the page's body/resource text
    only; ``refusal``: the tool's refusal sentence (``output``/``body`` empty then) with
    ``code``; ``page`` 1-based and ``pages`` total (``None`` when unknown); ``next_cursor`` from
    the tool metadata. ``resource`` is the relative path for a resource page, ``None`` for the
    body.
    """

    page: int
    pages: int | None
    output: str = ""
    body: str = ""
    refusal: str = ""
    code: str = ""
    next_cursor: str | None = None
    resource: str | None = None
    note: str = ""
    #: The file's line number of ``body``'s first line when known (page 1 of a body: the line
    #: after the frontmatter); ``None`` = not computed (the screen continues from the previous page).
    first_line: int | None = None

    @property
    def label(self) -> str:
        """``page 2 of 3`` (``page 2`` when the total is unknown)."""
        if self.pages is None:
            return f"page {self.page}"
        return f"page {self.page} of {self.pages}"


def body_only(output: str, name: str, source: str) -> str:
    """The body slice of a ``load`` output: what lies between the ``--- BEGIN/CONTINUE SKILL
    BODY ---`` line and the closing line (END marker or the continuation sentence)."""
    head = output.find(f"Source: `{source}`")
    head = 0 if head < 0 else head + len(source) + 10
    start = 0
    found = [(pos, m) for m in ("\n--- BEGIN SKILL BODY ---\n", "\n--- CONTINUE SKILL BODY ---\n")
             if (pos := output.find(m, head)) >= 0]
    if found:
        pos, marker = min(found)
        start = pos + len(marker)
    end = output.rfind("\n")
    if end < start:
        end = len(output)
    return output[start:end]


_RESOURCE_TAIL = "\n\nResource is not complete. Continue with action `read_resource`"


def body_first_line(path: str, body: str) -> int:
    """The line number (1-based) in the file at ``path`` where ``body`` (the first page of its
    body as the tool serves it) begins: the body follows the frontmatter, so ``# Title`` of a
    file whose frontmatter has 3 lines is line 5. 1 when the file cannot be read or the body
    is not found verbatim (e.g. line endings normalised). Reads the file (worker thread)."""
    if not body or path.startswith("builtin://"):
        return 1
    try:
        with open(path, "rb") as fh:
            text = fh.read(4 * 1024 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return 1
    probe = body[:400]
    at = text.find(probe)
    if at < 0:
        return 1
    return text.count("\n", 0, at) + 1


def _page_count(action: str, identity: str, contents: str) -> int:
    from skillshelf.core.tool import text_page

    pages, cursor = 0, None
    while True:
        page = text_page(action, identity, contents, cursor)
        pages += 1
        if page.next_cursor is None or pages > 10_000:
            return pages
        cursor = page.next_cursor


def load_page(
    tool: Any,
    entries: Sequence[Any],
    name: str,
    source: str,
    cursor: str | None,
    page: int,
    *,
    resource: str | None = None,
    pages: int | None = None,
) -> PageResult:
    """Page ``page`` (1-based) of ``name``'s body (``resource`` None) or of a resource, through
    ``tool.call`` with ``source`` always passed (so ambiguous names work) and ``cursor`` (the
    tool's ``next_cursor`` of the previous page). ``entries`` are used only to count the pages
    when the first page is incomplete (``pages`` given skips that). A :class:`ToolError`
    becomes ``refusal`` (its exact sentence) and ``code``.
    """
    from skillshelf.core.tool import ToolError, load_document

    request: dict[str, Any] = {"action": "load" if resource is None else "read_resource", "name": name, "source": source}
    if resource is not None:
        request["path"] = resource
    if cursor is not None:
        request["cursor"] = cursor
    try:
        result = tool.call(request)
    except ToolError as err:
        return PageResult(page, pages, refusal=err.message, code=err.code, resource=resource)
    except Exception as exc:  # never a traceback in the view
        return PageResult(page, pages, refusal=f"{type(exc).__name__}: {exc}", code="error", resource=resource)
    meta = result.metadata or {}
    next_cursor = meta.get("next_cursor")
    if pages is None:
        if next_cursor is None and page == 1:
            pages = 1
        else:
            try:
                if resource is None:
                    doc = load_document(entries, name, source)
                    pages = _page_count("load", doc.source, doc.content)
                else:
                    with open(meta["path"], "rb") as fh:
                        text = fh.read().decode("utf-8")
                    pages = _page_count("read_resource", f"{meta['source']}::{meta['resource']}", text)
            except Exception:  # the count is a nicety; the page itself is what matters
                pages = None
    if resource is None:
        body = body_only(result.output, str(meta.get("name", name)), str(meta.get("source", source)))
    else:
        body = result.output
        if next_cursor is not None:
            cut = body.rfind(_RESOURCE_TAIL)
            if cut >= 0:
                body = body[:cut]
    first_line = None
    if page == 1:
        first_line = 1 if resource is not None else body_first_line(str(meta.get("path") or source), body)
    return PageResult(page, pages, output=result.output, body=body, next_cursor=next_cursor, resource=resource,
                      first_line=first_line)


# --------------------------------------------------------------------------- budgets / agent view (issue 3)


@dataclass(frozen=True)
class RequiredBody:
    """A required skill body (S2) counted against the selected-body budget (U2): ``tokens`` the
    agent's chars/4 estimate, ``exact`` the tiktoken count (``None`` when not exact)."""

    name: str
    location: str
    tokens: int
    exact: int | None


@dataclass(frozen=True)
class ViewInfo:
    """What the screen shows for one (generation, agent) pair.

    ``sources``: the sources listed (all of them without an agent; with one, the E4 agent view
    of the enabled sources). ``hidden``: built-ins the agent cannot see. Index meter: ``used`` /
    ``budget`` characters, ``tokens`` (``exact`` says tiktoken) and ``approx`` (chars/4),
    ``truncated`` / ``omitted``. Selected meter: ``selected_budget`` tokens and the
    ``required`` bodies. ``problems``: sentences why the agent would not start (empty = ok).
    """

    agent: str | None
    sources: tuple[Source, ...]
    hidden: tuple[Source, ...] = ()
    used: int = 0
    budget: int | None = 0
    tokens: int | None = None
    exact: bool = False
    approx: int | None = None
    truncated: int = 0
    omitted: int = 0
    selected_budget: int = 0
    required: tuple[RequiredBody, ...] = ()
    problems: tuple[str, ...] = ()
    budget_available: bool = True

    @property
    def ok(self) -> bool:
        """True when the agent would start (no problems)."""
        return not self.problems


#: "Use the configuration's ``maxContextTokens``" (no session override; see :class:`WindowCatalog`).
FROM_CONFIG: Any = object()


class WindowCatalog:
    """``catalog`` seen with the what-if screen's session values (SPEC U1–U2): ``index_budget``
    and ``selected_budget`` are recomputed for ``context_window`` (tokens; ``None`` = the
    catalog's own) and ``max_context_tokens`` (tokens, ``None`` = unset; :data:`FROM_CONFIG` =
    the configuration's, which still wins over the window as in U1); ``maxSelectedContextTokens``
    is the configuration's; everything else is the catalog's."""

    def __init__(self, catalog: Any, context_window: int | None, max_context_tokens: Any = FROM_CONFIG) -> None:
        self._catalog = catalog
        self.context_window = context_window if context_window is not None else getattr(catalog, "context_window", None)
        self.max_context_tokens = max_context_tokens

    def __getattr__(self, name: str) -> Any:
        return getattr(self._catalog, name)

    @property
    def index_budget(self) -> int:
        from skillshelf.core.budget import index_budget_chars

        mct = self.max_context_tokens
        if mct is FROM_CONFIG:
            mct = getattr(getattr(self._catalog, "config", None), "max_context_tokens", None)
        return index_budget_chars(max_context_tokens=mct, context_window=self.context_window)

    @property
    def selected_budget(self) -> int:
        from skillshelf.core.budget import selected_budget_tokens

        mst = getattr(getattr(self._catalog, "config", None), "max_selected_context_tokens", None)
        return selected_budget_tokens(context_window=self.context_window, max_selected_context_tokens=mst)


def view_info(catalog: Any, generation: Generation, agent: str | None, *, context_window: int | None = None,
              max_context_tokens: Any = FROM_CONFIG) -> ViewInfo:
    """The listed sources, both budgets and the requiredSkills check for ``agent`` (``None`` =
    no agent: every source, the whole enabled catalog in the index, no required bodies).

    With an agent this reuses :func:`skillshelf.core.report.debug_agent_document` (SPEC G2), so
    the TUI and ``debug agent`` agree. A catalog without a usable budget (a test fake) gives
    ``budget_available`` False. ``context_window`` (tokens, the what-if session window) replaces
    the catalog's window for both budgets and ``max_context_tokens`` (tokens, ``None`` = unset,
    :data:`FROM_CONFIG` = the configuration's) the configured ``maxContextTokens``
    (:class:`WindowCatalog`). For a ``zhin`` generation
    the index meter measures the Zhin catalog section (SPEC Z3; ``truncated`` = descriptions
    cut at 96 characters) and the ``always: true`` bodies are the required ones (SPEC Z5, U2).
    Runs in a worker thread (renders, counts tokens, reads bodies).
    """
    from skillshelf.core.budget import SELECTED_DEFAULT_TOKENS
    from skillshelf.core.render import Form, render_budgeted

    if context_window is not None or max_context_tokens is not FROM_CONFIG:
        catalog = WindowCatalog(catalog, context_window, max_context_tokens)
    if Feature.ALWAYS in catalog.host.features:
        return _zhin_view_info(catalog, generation, agent)
    selected_budget = getattr(catalog, "selected_budget", SELECTED_DEFAULT_TOKENS)
    if not isinstance(selected_budget, int):
        selected_budget = SELECTED_DEFAULT_TOKENS
    if agent is None:
        try:
            budget = int(catalog.index_budget)
            result = render_budgeted(generation.entries(), Form.INDEX, budget)
        except (AttributeError, ValueError, TypeError):
            return ViewInfo(None, generation.sources, selected_budget=selected_budget, budget_available=False)
        config = getattr(catalog, "config", None)
        include = bool(getattr(config, "include_instructions", True)) if config is not None else True
        text = result.text if include else ""
        tokens, exact = count_tokens(text)
        return ViewInfo(None, generation.sources, used=len(text), budget=budget, tokens=tokens, exact=exact,
                        approx=approx_tokens(text), truncated=result.truncated, omitted=result.omitted,
                        selected_budget=selected_budget)

    from skillshelf.core.agents import agent_view
    from skillshelf.core.config import AgentConfig
    from skillshelf.core.report import debug_agent_document

    config = getattr(catalog, "config", None)
    agents = getattr(config, "agents", {}) or {}
    cfg = agents.get(agent) or AgentConfig(name=agent)
    enabled = [s for s in generation.sources if s.enabled]
    visible = agent_view(enabled, cfg)
    hidden = tuple(s for s in enabled if s not in visible)

    class _Pinned:  # debug_agent_document reads .current; pin it to the generation shown
        current = generation
        index_budget = catalog.index_budget
        selected_budget = getattr(catalog, "selected_budget", SELECTED_DEFAULT_TOKENS)

    _Pinned.config = config  # type: ignore[attr-defined]
    try:
        doc = debug_agent_document(_Pinned, agent)
    except Exception as exc:  # never a traceback in the view
        return ViewInfo(agent, tuple(visible), hidden, problems=(f"cannot check agent {agent}: {type(exc).__name__}: {exc}",),
                        selected_budget=selected_budget, budget_available=False)
    ib = doc["budgets"]["index"]
    sb = doc["budgets"]["selected"]
    required = tuple(RequiredBody(b["name"], b["location"], int(b["tokens"]), b.get("exactTokens")) for b in sb["bodies"])
    return ViewInfo(
        agent, tuple(visible), hidden,
        used=int(ib["usedChars"]), budget=int(ib["budgetChars"]), tokens=ib["tokens"], exact=bool(ib["exact"]),
        approx=int(ib["approxTokens"]), truncated=int(doc["index"]["truncated"]), omitted=int(doc["index"]["omitted"]),
        selected_budget=int(sb["budgetTokens"]), required=required, problems=tuple(doc["problems"]),
    )


def _zhin_view_info(catalog: Any, generation: Generation, agent: str | None) -> ViewInfo:
    """:func:`view_info` for host ``zhin`` (SPEC Z3, Z5): every source is listed (agent-private
    skills carry their agent in the list); the index meter measures the catalog section Zhin
    would put in the prompt for ``agent``; required bodies are the ``always: true`` skills."""
    from skillshelf.core.budget import SELECTED_DEFAULT_TOKENS
    from skillshelf.core.hosts.zhin.skills import CATALOG_DESCRIPTION_MAX, render_zhin_catalog
    from skillshelf.core.hosts.zhin.deps import always_bodies

    selected_budget = getattr(catalog, "selected_budget", SELECTED_DEFAULT_TOKENS)
    if not isinstance(selected_budget, int):
        selected_budget = SELECTED_DEFAULT_TOKENS
    texts: dict[str, str] = {}

    def read(source: Source) -> str:  # what always_bodies reads by default: the body, trimmed
        from skillshelf.core.hosts.zhin.skills import split_zhin_markdown

        with open(source.location, "rb") as fh:
            text = split_zhin_markdown(fh.read().decode("utf-8", errors="replace"))[1]
        texts[source.location] = text
        return text

    required = []
    for body in always_bodies(generation, read=read):
        text = texts.get(body.location)
        exact = None
        if text is not None:
            n, ok = count_tokens(text)
            exact = n if ok else None
        required.append(RequiredBody(body.label, body.location, int(body.tokens), exact))
    text = render_zhin_catalog(generation.sources, agent=agent)
    cut = sum(1 for line in text.split("\n")[1:] if line.startswith(" - ") and line.endswith("…")
              and len(line.split(": ", 1)[-1]) == CATALOG_DESCRIPTION_MAX)
    budget = catalog.index_budget
    tokens, exact = count_tokens(text)
    return ViewInfo(agent, generation.sources, used=len(text), budget=budget, tokens=tokens, exact=exact,
                    approx=approx_tokens(text), truncated=cut, omitted=0, selected_budget=selected_budget,
                    required=tuple(required))


def filtered_generation(generation: Generation, info: ViewInfo) -> Generation:
    """``generation`` with only the sources ``info`` lists (same number, digest, rejected)."""
    if info.agent is None:
        return generation
    return replace(generation, sources=tuple(info.sources))


@dataclass(frozen=True)
class BodyCost:
    """Tokens of one selected body (SPEC U3): ``tokens`` = agent estimate (chars/4), ``exact``
    tiktoken count or ``None``; ``error`` when the body cannot be read (the tool's sentence)."""

    location: str
    tokens: int = 0
    exact: int | None = None
    error: str = ""


def body_cost(source: Source) -> BodyCost:
    """What loading ``source``'s body would cost, read as the tool does (SPEC L6)."""
    from skillshelf.core.tool import ToolError, read_entry_body

    try:
        body = read_entry_body(source.entry)
    except ToolError as err:
        return BodyCost(source.location, error=err.message)
    except Exception as exc:  # noqa: BLE001
        return BodyCost(source.location, error=str(exc))
    tokens, exact = count_tokens(body)
    return BodyCost(source.location, approx_tokens(body), tokens if exact else None)


def row_tokens(item: Item) -> int:
    """The ``tokens`` sort key (documented in the help): the agent's chars/4 estimate of the
    catalog description — what the row costs in the index — or of the file (``size`` bytes / 4,
    rounded up) for rows without one (undescribed, rejected)."""
    if isinstance(item, Source) and item.catalog_description is not None:
        return approx_tokens(item.catalog_description)
    return -(-int(item.size or 0) // 4)



# --------------------------------------------------------------------------- live generations (issue 5)


@dataclass(frozen=True)
class GenerationDiff:
    """What changed from one generation to the next, counted by locator (SPEC H2): ``added``
    files, ``changed`` ones (content SHA-256, metadata, verdict — anything but the mtime) and
    ``removed`` ones. Sources and rejected files both count; a file that moved between the two
    counts as changed."""

    added: int = 0
    changed: int = 0
    removed: int = 0

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    @property
    def text(self) -> str:
        """``changed: +2 ~1 −1`` (U+2212 minus sign), ``""`` when nothing changed."""
        if not self:
            return ""
        return f"changed: +{self.added:,} ~{self.changed:,} \u2212{self.removed:,}"


def _same_file(a: Item, b: Item) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or a.content_sha256 != b.content_sha256:
        return False
    if a == b:
        return True
    return replace(a, mtime=0.0) == replace(b, mtime=0.0)  # a touch alone is no change


def generation_diff(old: Generation | None, new: Generation) -> GenerationDiff:
    """The :class:`GenerationDiff` from ``old`` to ``new`` (``old`` None = nothing to compare:
    an empty diff). Linear in the number of files; cheap enough for the event loop (1,000 files
    ≈ 1 ms) but callers may run it in a worker."""
    if old is None or old is new:
        return GenerationDiff()
    before: dict[str, Item] = {s.location: s for s in old.sources}
    before.update((r.location, r) for r in old.rejected)
    added = changed = 0
    seen = 0
    for item in (*new.sources, *new.rejected):
        prev = before.get(item.location)
        if prev is None:
            added += 1
            continue
        seen += 1
        if not _same_file(prev, item):
            changed += 1
    return GenerationDiff(added, changed, len(before) - seen)


# --------------------------------------------------------------------------- host zhin (issue 7)


@dataclass(frozen=True)
class ZhinDetails:
    """The Zhin-only facts about one source (SPEC Z3, Z5): ``catalog_line`` — the exact
    `` - <name>: <desc>`` line of the catalog section (Z3 cut); ``agent`` — the owning agent of an
    agent-private skill; ``tools`` — ``(qualified name, tool directory)`` of the private tools,
    locked until ``load_skill``; ``deps`` — the ``missing-deps`` warning (``None`` = all found
    or none declared)."""

    catalog_line: str
    agent: str | None = None
    tools: tuple[tuple[str, str], ...] = ()
    deps: Diagnostic | None = None


def _which(search_path: str | None) -> Any:
    import shutil

    return lambda name: shutil.which(name, path=search_path)


def zhin_details(source: Source, *, search_path: str | None = None) -> ZhinDetails:
    """:class:`ZhinDetails` of ``source`` (reads ``tools/`` and looks the dependencies up on
    ``search_path`` — the catalog environment's PATH, ``None`` = the process PATH; nothing is
    run). Worker thread."""
    from skillshelf.core.hosts.zhin.skills import catalog_description
    from skillshelf.core.hosts.zhin.deps import check_deps, private_tools, skill_agent

    line = f" - {source.name}: {catalog_description(source.description)}"
    try:
        tools = tuple(private_tools(source))
    except OSError:
        tools = ()
    return ZhinDetails(line, skill_agent(source), tools, check_deps(source.frontmatter, path=search_path))


def zhin_load_page(source: Source, *, search_path: str | None = None) -> PageResult:
    """The ``load_skill`` text Zhin returns for ``source`` (SPEC Z4–Z5: dependency warning —
    dependencies looked up on ``search_path`` — + extracted instructions) as a one-page
    :class:`PageResult`; an unreadable file becomes the refusal."""
    from skillshelf.core.hosts.zhin.load import zhin_read_instructions

    try:
        text = zhin_read_instructions(source, which=_which(search_path))
    except (OSError, ValueError) as exc:
        return PageResult(1, 1, refusal=f"cannot load {source.name}: {exc}", code="unreadable")
    return PageResult(1, 1, output=text, body=text)


def zhin_body_cost(source: Source, *, search_path: str | None = None) -> BodyCost:
    """What loading ``source`` with ``load_skill`` costs (the Z4 text, SPEC U3)."""
    from skillshelf.core.hosts.zhin.load import zhin_read_instructions

    try:
        text = zhin_read_instructions(source, which=_which(search_path))
    except (OSError, ValueError) as exc:
        return BodyCost(source.location, error=str(exc))
    tokens, exact = count_tokens(text)
    return BodyCost(source.location, approx_tokens(text), tokens if exact else None)


# --------------------------------------------------------------------------- problems (K1, D2, D4, R, H3, F6)


#: Severity of a catalog warning kind that has no diagnostic twin (default ``warning``).
_WARNING_SEVERITY = {"config-invalid": Severity.ERROR}
_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
#: Group name of the host-refused files (SPEC F6).
REJECTED_KIND = "rejected"


@dataclass(frozen=True)
class Problem:
    """One entry of the Problems view.

    ``kind``: the warning kind (``PathNotFound``, ``config-invalid``, ``IndexStatus``,
    ``kept-last-valid`` …), the diagnostic code (``uncovered-folder``, ``config-not-found`` …) or
    :data:`REJECTED_KIND` for a host-refused file; entries are grouped by it. ``message``: the
    exact host / diagnostic text (unescaped: the view makes it visible, SPEC X1). ``source``: the
    path, URL or variable it is about (``""`` when none); ``hint``: the fix (for
    ``uncovered-folder`` the ``skills.paths`` snippet to add, SPEC D2); ``where``: ``line 3 col 1``
    when the finding has a position; ``code``: a rejected file's first diagnostic code;
    ``location``: the ``SKILL.md`` it names (a rejected file, a skill's own warning, or the skill
    of a sidecar), which the view can jump to, else ``None``.
    """

    severity: Severity
    kind: str
    message: str
    source: str = ""
    hint: str | None = None
    where: str = ""
    code: str = ""
    location: str | None = None


def first_error(diagnostics: Sequence[Diagnostic]) -> Diagnostic | None:
    """The first error-severity diagnostic of ``diagnostics``, ``None`` when there is none."""
    return next((d for d in diagnostics if d.severity is Severity.ERROR), None)


def _position(d: Diagnostic) -> str:
    parts = []
    if d.line is not None:
        parts.append(f"line {d.line}")
    if d.column is not None:
        parts.append(f"col {d.column}")
    return " ".join(parts)


def _skill_file(source: str) -> str | None:
    """The ``SKILL.md`` a warning's ``source`` names: the file itself, or the skill of a sidecar
    (``<skill>/agents/zuno.yaml`` / ``openai.yaml``, SPEC E2)."""
    if source.endswith("/SKILL.md"):
        return source
    head, _, name = source.rpartition("/")
    if name in ("zuno.yaml", "openai.yaml") and head.endswith("/agents"):
        return head[: -len("/agents")] + "/SKILL.md"
    return None


def problems(generation: Generation) -> tuple[Problem, ...]:
    """Everything wrong with ``generation`` that is not a lint finding, for the Problems view:
    its catalog-level diagnostics (config layers K1, ``uncovered-folder`` hints D2 …), its
    warnings (scan D4, remote R, kept-last-valid H3, sidecars E2, watch H4 …) and one entry per
    rejected file with its first diagnostic (F6).

    Nothing is listed twice: a warning repeating a diagnostic (``config-invalid`` is both) and the
    host warning of a rejected file (shown by the rejected entry) are folded. Order: groups by
    their worst severity (errors, warnings, notes), then by first appearance; entries in
    appearance order within a group. Warnings are ``warning`` severity except ``config-invalid``
    (error); rejected files are errors.
    """
    found: list[Problem] = []
    twins: set[tuple[str, str, str]] = set()
    for d in generation.diagnostics:
        # catalog diagnostics carry their position in the message (``layer:1:2: …``)
        found.append(Problem(d.severity, d.code, d.message, d.path or "", d.hint))
        twins.add((d.code, d.path or "", d.message))
    rejected_warnings = {r.warning for r in generation.rejected if r.warning is not None}
    for w in generation.warnings:
        if (w.kind, w.source, w.message) in twins or w in rejected_warnings:
            continue
        found.append(Problem(_WARNING_SEVERITY.get(w.kind, Severity.WARNING), w.kind, w.message, w.source,
                             location=_skill_file(w.source)))
    for r in generation.rejected:
        d = first_error(r.diagnostics)
        if d is not None:
            found.append(Problem(Severity.ERROR, REJECTED_KIND, d.message, r.location, d.hint, _position(d), d.code,
                                 r.location))
        else:
            message = r.warning.message if r.warning is not None else "refused by the host"
            code = r.warning.kind if r.warning is not None else ""
            found.append(Problem(Severity.ERROR, REJECTED_KIND, message, r.location, code=code, location=r.location))
    order: dict[str, tuple[int, int]] = {}
    for i, p in enumerate(found):
        rank = _SEVERITY_RANK[p.severity]
        if p.kind in order:
            order[p.kind] = (min(order[p.kind][0], rank), order[p.kind][1])
        else:
            order[p.kind] = (rank, i)
    return tuple(sorted(found, key=lambda p: order[p.kind]))  # stable: appearance order within a group


def problem_counts(found: Sequence[Problem]) -> tuple[int, int, int]:
    """``(errors, warnings, notes)`` among ``found`` (notes = ``info`` severity)."""
    errors = sum(1 for p in found if p.severity is Severity.ERROR)
    warnings = sum(1 for p in found if p.severity is Severity.WARNING)
    return errors, warnings, len(found) - errors - warnings


def problems_summary(found: Sequence[Problem]) -> str:
    """``1 error · 2 warnings · 1 note`` (zero counts left out); ``""`` when ``found`` is empty."""
    parts = []
    for n, word in zip(problem_counts(found), ("error", "warning", "note")):
        if n:
            parts.append(f"{n:,} {word}{'' if n == 1 else 's'}")
    return " · ".join(parts)


#: Most characters of the one error's text named in the main screen's problems line.
ERROR_NAMED_MAX = 100
#: Most characters of the path in it (longer ones keep their end: ``…/broken/SKILL.md``).
SOURCE_NAMED_MAX = 40


def single_error_text(found: Sequence[Problem], limit: int = ERROR_NAMED_MAX) -> str:
    """The problems line when ``found`` holds exactly one error: the error named —
    ``config-invalid: $ZUNO_CONFIG_CONTENT:1:2: Expecting …`` or ``rejected: …/broken/SKILL.md
    line 3 col 14: [yaml-error] mapping values …`` (kind, the path — its last
    :data:`SOURCE_NAMED_MAX` characters — when the message does not start with it, position,
    code, message; cut to ``limit`` characters with ``…``) — then the
    other counts (`` · 1 warning · 1 note``). Plain text, made visible (SPEC X1). Falls back to
    :func:`problems_summary` when there is not exactly one error."""
    errors = [p for p in found if p.severity is Severity.ERROR]
    if len(errors) != 1:
        return problems_summary(found)
    from skillshelf.core.textsafe import visible

    p = errors[0]
    head = "rejected" if p.kind == REJECTED_KIND else p.kind
    where = p.source
    if where and not p.message.startswith(where):
        if len(where) > SOURCE_NAMED_MAX:  # the end of a path tells files apart
            where = "…" + where[-(SOURCE_NAMED_MAX - 1):]
        where += (f" {p.where}" if p.where else "") + ": "
    else:
        where = ""
    code = f"[{p.code}] " if p.code else ""
    text = visible(" ".join(f"{head}: {where}{code}{p.message}".split()))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    rest = problems_summary([q for q in found if q is not p])
    return text + (f" · {rest}" if rest else "")


def empty_catalog_text(generation: Generation) -> str:
    """What the source pane says when ``generation`` lists no file at all: the roots searched
    (``path/pattern``, SPEC D1 / Z1, with ``missing`` for folders that do not exist) and the
    layout the host expects — for zhin ``<plugin>/skills/<name>/SKILL.md`` (agent-private:
    ``<plugin>/agents/<agent>/skills/<name>/SKILL.md``), else ``<root>/<name>/SKILL.md``.
    Raw text (the pane makes it visible)."""
    host = getattr(generation, "host", "zuno") or "zuno"
    lines = [f"No skills found for host {host}.", "", "Searched:"]
    roots = [r for r in generation.roots if r.provenance is not Provenance.BUILTIN] if generation.roots else []
    for root in roots:
        pattern = root.to_json()["pattern"]
        state = "" if root.exists else "  (missing)"
        lines.append(f"  {root.path.rstrip('/')}/{pattern}{state}")
    if not roots:
        lines.append("  (no roots)")
    lines.append("")
    if host == "zhin":
        lines += ["Expected layout (Zhin plugin):", "  <plugin>/skills/<name>/SKILL.md",
                  "  <plugin>/agents/<agent>/skills/<name>/SKILL.md  (agent-private)"]
    else:
        lines += ["Expected layout:", "  <root>/<name>/SKILL.md  (a folder per skill, SKILL.md inside)"]
    return "\n".join(lines)
