"""A small fake catalog for TUI tests (files written in tmp_path; no corpus text)."""

from __future__ import annotations

from pathlib import Path

from skillshelf.core.config import Config
from skillshelf.core.hosts import DEFAULT_HOST
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


class FakeCatalog:
    """``current`` / ``refresh()`` / ``index_budget`` like core.catalog.Catalog."""

    def __init__(self, tmp: Path, budget: int = 8000) -> None:
        self.tmp = tmp
        self.current = make_generation(tmp)
        self.index_budget = budget
        self.refreshes = 0
        self.host = DEFAULT_HOST
        self.config = Config()

    def refresh(self) -> Generation:
        self.refreshes += 1
        self.current = make_generation(self.tmp, self.current.number + 1)
        return self.current
