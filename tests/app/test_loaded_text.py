"""What loading a skill costs (SPEC U3) when the body is a host's own text skillshelf does not
have: Zuno's built-ins without an installed Zuno (conformance Z-B) count as the real texts."""

from __future__ import annotations

from pathlib import Path

from skillshelf.app.loaded_text import body_cost
from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.base import BUILT_IN_BODY
from skillshelf.core.paths import Environment


def test_a_stand_in_zuno_body_costs_what_the_real_text_costs(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    env = Environment.from_mapping({"HOME": str(tmp_path / "home"), "PATH": ""})
    catalog = Catalog.open(str(tmp_path / "proj"), env=env, pull_remote=False)
    costs = {s.name: body_cost(catalog.session, s) for s in catalog.current.sources}
    assert {n: (c.exact, c.bytes) for n, c in costs.items() if n != "git-workflow"} == {
        "customize-zuno": (452, 2131), "develop-zuno": (927, 4291), "deepwork": (125, 623),
        "codemap": (158, 743), "verification-planning": (131, 664), "reflect": (144, 718),
        "worktree": (396, 1866), "github-delivery": (374, 1787), "ui-design": (273, 1482),
        "bedrock-model-capability-review": (304, 1412)}
    unknown = costs["git-workflow"]  # its 0.10.3 body is in no source skillshelf could measure
    assert (unknown.error_code, unknown.error, unknown.bytes) == (
        BUILT_IN_BODY, "its body is the host's own text: size unknown", 0)
