"""Catalogs over fixed generations for TUI tests (files written in tmp_path; no corpus text).

:class:`FixedCatalog` implements :class:`~skillshelf.app.catalog_protocol.AppCatalog` with a real
host session (the host's catalog text, budgets, facts and loaded pages are the real ones); only
the generation is made by hand, so a test can show what no file on disk could produce (escape
sequences in a description, a remote origin).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from skillshelf.core.config import Config
from skillshelf.core.hosts import DEFAULT_HOST
from skillshelf.core.hosts.base import Host, HostContext, HostSession
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Exposure,
    Generation,
    Provenance,
    Rejected,
    Severity,
    Source,
)
from skillshelf.core.paths import Environment

X1_DESCRIPTION = "Review code [bold red]x[/] then \x1b[31mred\x1b[0m done"


def _write(root: Path, name: str, text: str) -> str:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    f = d / "SKILL.md"
    f.write_text(text, encoding="utf-8")
    return str(f)


def make_generation(tmp: Path, number: int = 1) -> Generation:
    """Catalog order: docx, pdf (project), code-review, pdf (global), xlsx (search-only);
    one rejected file ``broken-one`` with a YAML error at line 3 col 14."""
    proj = tmp / "w" / ".zuno" / "skill"
    glob = tmp / "home" / ".agents" / "skills"
    docx = _write(proj, "docx", "---\nname: docx\ndescription: Word files\n---\n# Docx body\n")
    pdf1 = _write(proj, "pdf", "---\nname: pdf\ndescription: Project PDF helper\n---\nproject pdf body\n")
    review = _write(proj, "code-review", "---\nname: code-review\n---\nbody with \x1b[2J escape\n")
    pdf2 = _write(glob, "pdf", "---\nname: pdf\ndescription: Global PDF helper\n---\nglobal pdf body\n")
    xlsx = _write(glob, "xlsx", "---\nname: xlsx\ndescription: Spreadsheets\n---\nsheet body\n")
    broken = _write(glob, "broken-one", "---\nname: broken-one\ndescription: a: b: c\n---\n")

    def src(name, loc, prov, root, **kw):
        return Source(name=name, location=loc, provenance=prov, canonical=loc, root=str(root), **kw)

    sources = (
        src("docx", docx, Provenance.PROJECT_ZUNO, proj, description="Word files", size=52),
        src("pdf", pdf1, Provenance.PROJECT_ZUNO, proj, description="Project PDF helper",
            frontmatter={"name": "pdf", "description": "Project PDF helper"}),
        src("code-review", review, Provenance.PROJECT_ZUNO, proj, description=X1_DESCRIPTION),
        src("pdf", pdf2, Provenance.GLOBAL_AGENTS, glob, description="Global PDF helper"),
        src("xlsx", xlsx, Provenance.GLOBAL_AGENTS, glob, description="Spreadsheets",
            exposure=Exposure.SEARCH, exposure_reason="sidecar agents/zuno.yaml"),
    )
    diag = Diagnostic(Severity.ERROR, "yaml-error", "mapping values are not allowed here",
                      field="description", line=3, column=14)
    rejected = (
        Rejected(location=broken, provenance=Provenance.GLOBAL_AGENTS, canonical=broken,
                 name="broken-one", root=str(glob),
                 warning=CatalogWarning("Frontmatter", broken, "invalid YAML frontmatter"),
                 diagnostics=(diag,)),
    )
    return Generation(number=number, digest="0" * 64, host="zuno", cwd=str(tmp / "w"), roots=(),
                      sources=sources, rejected=rejected, warnings=())


class FixedCatalog:
    """An :class:`~skillshelf.app.catalog_protocol.AppCatalog` over ``generation``.

    ``host`` opens a real session over ``cwd`` (default: the generation's) with ``config`` (its
    budgets follow it) and ``context_window``; ``refresh`` publishes ``successor(current)``
    (default: the same generation, numbered one higher) and counts :attr:`refreshes`.
    """

    def __init__(self, generation: Generation, *, host: Host = DEFAULT_HOST, cwd: str | None = None,
                 config: Config | None = None, context_window: int | None = None, home: str | None = None,
                 successor: Callable[[Generation], Generation] | None = None) -> None:
        cwd = cwd or generation.cwd
        context = HostContext(cwd, Environment.from_mapping({"HOME": home or cwd}), context_window=context_window,
                              pull_remote=False)
        self.host = host
        self.session: HostSession = host.open(context)
        if config is not None:
            self.session.config = config  # type: ignore[misc]  # the session's own attribute, set for the test
        self.current = generation
        self.remote_origins: Mapping[str, tuple[str, str | None]] = {}
        self.refreshes = 0
        self.pulls = 0
        self._successor = successor or (lambda g: Generation(g.number + 1, g.digest, g.host, g.cwd, g.roots, g.sources,
                                                             g.rejected, g.warnings, g.diagnostics))
        self._listeners: list[Callable[[Generation], None]] = []

    @property
    def context(self) -> HostContext:
        return self.session.context

    @property
    def config(self) -> Config:
        return self.session.config

    def subscribe(self, callback: Callable[[Generation], None]) -> None:
        self._listeners.append(callback)

    def refresh(self, *, pull_remote: bool = False) -> Generation:
        self.refreshes += 1
        self.pulls += int(pull_remote)
        self.current = self._successor(self.current)
        for callback in list(self._listeners):
            callback(self.current)
        return self.current


class FakeCatalog(FixedCatalog):
    """:func:`make_generation` under Zuno; ``refresh`` re-makes it one number higher."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(make_generation(tmp), cwd=str(tmp / "w"), home=str(tmp / "home"),
                         successor=lambda g: make_generation(tmp, g.number + 1))


def project_workspace(tmp_path: Path, monkeypatch, names: tuple[str, ...] = ("alpha",)) -> None:
    """``tmp_path/proj`` (a worktree) with ``.zuno/skill/<name>/SKILL.md`` for each of ``names``;
    ``HOME`` is ``tmp_path/home`` and no XDG or Zuno variable is set (what ``skillshelf`` run there
    reads comes from ``tmp_path`` only)."""
    home = tmp_path / "home"
    home.mkdir()
    for k in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "ZUNO_CONFIG", "ZUNO_CONFIG_DIR"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    for name in names:
        skill = tmp_path / "proj" / ".zuno" / "skill" / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill\n---\nBody.\n",
                                        encoding="utf-8")
