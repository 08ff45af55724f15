"""Property tests of every parser entry point (hypothesis): any bytes or text in, never an
exception out — only the entry point's own documented error — and every ``SKILL.md`` a catalog
reaches is a source or a rejection with a diagnostic, for every registered host.

Inputs come from :mod:`hostile`: frontmatter-shaped text built from a grammar of what broke
parsers before (explicit tags on odd scalars, aliases, duplicate keys, flow and block
collections, lone surrogates, C1 controls, BOMs, CRLF, tabs) with random bytes spliced in, and
raw bytes. The example counts are the README's figures (``SKILLSHELF_PROPERTY_EXAMPLES`` raises
the per-parser count for a long run); no example database is written.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

import pytest
from hostile import frontmatter_text, skill_bytes, yaml_like
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillshelf.core import yamlload
from skillshelf.core.catalog import Catalog
from skillshelf.core.config import ConfigSyntaxError, parse_jsonc
from skillshelf.core.frontmatter import _fast_mapping, split_document
from skillshelf.core.hosts import HOSTS
from skillshelf.core.hosts.codex.parse import parse_sidecar as codex_sidecar
from skillshelf.core.hosts.gemini import jsyaml as gemini_yaml
from skillshelf.core.hosts.opencode import jsyaml as opencode_yaml
from skillshelf.core.lint import Target, lint_file
from skillshelf.core.paths import Environment
from skillshelf.core.remote import IndexDecodeError, parse_index
from skillshelf.core.sidecar import SidecarMalformed, parse_sidecar

#: Generated inputs per parser entry point, and per host for the whole-catalog property.
PARSER_EXAMPLES = int(os.environ.get("SKILLSHELF_PROPERTY_EXAMPLES", "300"))
CATALOG_EXAMPLES = max(40, PARSER_EXAMPLES // 10)

_PARSER = settings(max_examples=PARSER_EXAMPLES, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_CATALOG = settings(max_examples=CATALOG_EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_host_verdict_on_any_bytes_is_an_acceptance_or_a_rejection_with_a_diagnostic(host):
    h = HOSTS[host]

    @_PARSER
    @given(skill_bytes)
    def check(data: bytes) -> None:
        verdict = h.accept("/w/skills/s/SKILL.md", data)
        if verdict.accepted:
            assert isinstance(verdict.name, str)
        else:
            assert verdict.diagnostics and all(d.message for d in verdict.diagnostics)

    check()


@_PARSER
@given(yaml_like)
def test_the_yaml_loader_on_any_text_returns_a_value_or_a_yaml_error(text):
    for call in (yamlload.load, yamlload.load_all, yamlload.compose, yamlload.compose_all):
        try:
            call(text)
        except yamlload.YamlError as exc:
            assert exc.problem


@_PARSER
@given(frontmatter_text())
def test_zunos_fast_path_and_the_full_loader_give_one_verdict(text):
    raw = split_document(text).raw
    fast = _fast_mapping(raw)
    if fast is None:
        return
    assert yamlload.load(raw) == fast  # the full loader accepts it too, with the same mapping


@_PARSER
@given(yaml_like)
def test_the_js_yaml_fast_paths_agree_with_their_loaders(text):
    for module, errors in ((opencode_yaml, (opencode_yaml.YamlFailure,)),
                           (gemini_yaml, (gemini_yaml.JsYamlError, *_yaml_errors()))):
        outcomes = []
        for call in (module.load, module.load_slow):
            try:
                outcomes.append(("value", repr(call(text))))
            except errors:
                outcomes.append(("error", None))
        assert outcomes[0] == outcomes[1], module.__name__


def _yaml_errors() -> tuple[type[BaseException], ...]:
    import yaml

    return (yaml.YAMLError, RecursionError)


@_PARSER
@given(yaml_like)
def test_sidecars_on_any_text_are_fields_or_malformed(text):
    for native in (False, True):
        try:
            parse_sidecar(text, native=native)
        except SidecarMalformed as exc:
            assert exc.detail
    codex_sidecar(text, "/w/skills/s")


@_PARSER
@given(st.one_of(yaml_like, st.text(max_size=300)))
def test_remote_indexes_and_configs_on_any_text_are_values_or_their_errors(text):
    with contextlib.suppress(IndexDecodeError):
        parse_index(text)
    with contextlib.suppress(ConfigSyntaxError):
        parse_jsonc(text, "/w/zuno.json")


@_PARSER
@given(skill_bytes)
def test_lint_on_any_file_is_a_report(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s", "SKILL.md")
        os.makedirs(os.path.dirname(path))
        with open(path, "wb") as fh:
            fh.write(data)
        for target in Target:
            report = lint_file(path, target=target)
            assert all(d.message for d in report.diagnostics)


#: Where each host reads a project skill (relative to the project), the good skill beside it.
_HOST_ROOT = {"zuno": ".agents/skills", "zhin": "skills", "claude": ".claude/skills", "codex": ".agents/skills",
              "opencode": ".agents/skills", "gemini": ".agents/skills"}


@pytest.mark.parametrize("host", list(HOSTS))
def test_every_file_a_catalog_reaches_is_a_source_or_a_rejection(host):
    assert set(_HOST_ROOT) == set(HOSTS)  # a new host gets a root here

    @_CATALOG
    @given(st.lists(skill_bytes, min_size=1, max_size=3))
    def check(files: list[bytes]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            proj = os.path.join(tmp, "proj")
            home = os.path.join(tmp, "home")
            os.makedirs(os.path.join(proj, ".git"))
            os.makedirs(home)
            root = os.path.join(proj, _HOST_ROOT[host])
            written = []
            for i, data in enumerate([b"---\nname: good\ndescription: A good skill.\n---\nBody.\n", *files]):
                folder = os.path.join(root, "good" if i == 0 else f"s{i}")
                os.makedirs(folder)
                with open(os.path.join(folder, "SKILL.md"), "wb") as fh:
                    fh.write(data)
                written.append(os.path.join(folder, "SKILL.md"))
            env = Environment.from_mapping({"HOME": home, "GEMINI_CLI_TRUST_WORKSPACE": "true",
                                            "PATH": os.environ.get("PATH", "")})
            gen = Catalog.open(proj, env=env, host=host, pull_remote=False).current
            sources = {s.location: s for s in gen.sources}
            rejected = {r.location: r for r in gen.rejected}
            assert sources[written[0]].name == "good"
            for loc in written[1:]:
                assert loc in sources or (loc in rejected and rejected[loc].diagnostics), loc

    check()
