"""Sidecar metadata (SPEC E2–E3; conformance §2 Z066–Z077 and "Other sidecar rules")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.core.model import Exposure, Severity
from skillshelf.core.sidecar import (
    Sidecar,
    SidecarMalformed,
    parse_sidecar,
    read_sidecars,
    sidecar_paths,
)


def make_skill(root: Path, rel: str, *, openai: str | bytes | None = None,
               zuno: str | bytes | None = None) -> Path:
    skill = root / rel
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {skill.name}\ndescription: d\n---\n\nbody\n")
    for name, text in (("openai.yaml", openai), ("zuno.yaml", zuno)):
        if text is None:
            continue
        (skill / "agents").mkdir(exist_ok=True)
        target = skill / "agents" / name
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text)
    return skill


def test_z066_shared_sidecar_can_require_explicit_invocation(tmp_path: Path) -> None:
    skill = make_skill(
        tmp_path, "home/.agents/skills/release",
        openai="interface:\n  display_name: Release Engineering\n  short_description: Promote "
               "verified artifacts\npolicy:\n  allow_implicit_invocation: false\n")
    meta = read_sidecars(str(skill))
    assert meta.display_name == "Release Engineering"
    assert meta.short_description == "Promote verified artifacts"
    assert meta.allow_implicit_invocation is False
    assert meta.exposure is None
    assert meta.resolved_exposure is Exposure.EXPLICIT
    assert meta.metadata_sources == (str(skill / "agents" / "openai.yaml"),)
    assert meta.warnings == ()
    assert meta.reason() == "sidecar agents/openai.yaml allow_implicit_invocation: false"


def test_z067_native_sidecar_overlays_shared_and_selects_search(tmp_path: Path) -> None:
    skill = make_skill(
        tmp_path, "home/.config/zuno/skill/powerapps",
        openai="interface:\n  display_name: Shared title\npolicy:\n  allow_implicit_invocation: false\n",
        zuno="interface:\n  short_description: Search the Power Apps catalog\npolicy:\n  exposure: search\n")
    meta = read_sidecars(str(skill))
    assert meta.display_name == "Shared title"
    assert meta.short_description == "Search the Power Apps catalog"
    assert meta.allow_implicit_invocation is False
    assert meta.exposure is Exposure.SEARCH
    assert meta.resolved_exposure is Exposure.SEARCH
    assert meta.metadata_sources == (str(skill / "agents" / "openai.yaml"),
                                     str(skill / "agents" / "zuno.yaml"))
    assert meta.reason() == "sidecar agents/zuno.yaml policy.exposure"


def test_z068_malformed_sidecar_warns_and_contributes_nothing(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "home/.agents/skills/usable",
                       openai="interface:\n  display_name: Never used\n"
                              "policy:\n  allow_implicit_invocation: no\n")
    path = str(skill / "agents" / "openai.yaml")
    meta = read_sidecars(str(skill))
    assert meta.display_name is None  # the whole malformed file contributes no field
    assert meta.resolved_exposure is Exposure.INDEX
    assert meta.reason() == "default"
    assert meta.metadata_sources == ()
    assert len(meta.warnings) == 1
    warning = meta.warnings[0]
    assert warning.kind == "MetadataMalformed"
    assert warning.source == path
    assert warning.message == (f"failed to load skill metadata {path}: "
                               "`allow_implicit_invocation` must be a boolean when present")
    diag = meta.diagnostics[0]
    assert (diag.severity, diag.code, diag.field, diag.line, diag.column, diag.path) == (
        Severity.WARNING, "sidecar-malformed", "policy.allow_implicit_invocation", 4, 30, path)


def test_z072_shared_reads_only_supported_fields_and_cannot_set_exposure() -> None:
    meta = parse_sidecar(
        "interface:\n  display_name: Release Helper\n  short_description: Ship Rust CLIs\n"
        "  default_prompt: ignored\npolicy:\n  allow_implicit_invocation: false\n"
        "  exposure: search\n", native=False)
    assert (meta.display_name, meta.short_description) == ("Release Helper", "Ship Rust CLIs")
    assert meta.allow_implicit_invocation is False
    assert meta.exposure is None
    assert meta.resolved_exposure is Exposure.EXPLICIT


def test_z072_shared_exposure_is_ignored_with_an_info_note(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", openai="policy:\n  exposure: explicit\n")
    meta = read_sidecars(str(skill))
    assert meta.exposure is None and meta.resolved_exposure is Exposure.INDEX
    assert meta.warnings == ()
    assert [(d.severity, d.code, d.line) for d in meta.diagnostics] == [
        (Severity.INFO, "sidecar-ignored-field", 2)]


def test_z073_native_exposure_overrides_implicit_policy() -> None:
    meta = parse_sidecar("policy:\n  allow_implicit_invocation: false\n  exposure: search\n",
                         native=True)
    assert meta.exposure is Exposure.SEARCH
    assert meta.resolved_exposure is Exposure.SEARCH


@pytest.mark.parametrize("native", [False, True])
def test_z074_yaml11_booleans_are_strings_not_coerced(native: bool) -> None:
    for word in ("no", "yes", "off", "on", "n", "y"):
        with pytest.raises(SidecarMalformed) as info:
            parse_sidecar(f"policy:\n  allow_implicit_invocation: {word}\n", native=native)
        assert info.value.detail == "`allow_implicit_invocation` must be a boolean when present"


def test_z075_native_exposure_rejects_unknown_values(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", zuno="policy:\n  exposure: hidden\n")
    path = str(skill / "agents" / "zuno.yaml")
    meta = read_sidecars(str(skill))
    assert meta.exposure is None
    assert [w.message for w in meta.warnings] == [
        f"failed to load skill metadata {path}: "
        "`exposure` must be one of `index`, `search`, or `explicit`"]


def test_z076_overlays_are_field_wise(tmp_path: Path) -> None:
    skill = make_skill(
        tmp_path, "s",
        openai="interface:\n  display_name: Shared\npolicy:\n  allow_implicit_invocation: false\n",
        zuno="interface:\n  short_description: Native summary\npolicy:\n  allow_implicit_invocation: true\n")
    meta = read_sidecars(str(skill))
    assert meta.display_name == "Shared"
    assert meta.short_description == "Native summary"
    assert meta.allow_implicit_invocation is True
    assert meta.resolved_exposure is Exposure.INDEX
    assert meta.reason() == "default"


def test_z076_native_false_names_the_native_file(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", zuno="policy:\n  allow_implicit_invocation: false\n")
    assert read_sidecars(str(skill)).reason() == (
        "sidecar agents/zuno.yaml allow_implicit_invocation: false")


def test_z077_sidecar_paths_are_relative_to_the_skill_directory() -> None:
    assert sidecar_paths("/skills/release") == ("/skills/release/agents/openai.yaml",
                                                "/skills/release/agents/zuno.yaml")


def test_missing_sidecars_are_silent(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "plain")
    assert read_sidecars(str(skill)) == Sidecar()


def test_blank_and_comment_only_files_are_no_metadata(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", openai="\n   \n", zuno="# just a note\n  # indented\n\n")
    meta = read_sidecars(str(skill))
    assert (meta.display_name, meta.exposure, meta.warnings) == (None, None, ())
    assert meta.resolved_exposure is Exposure.INDEX
    # Zuno records every file it read successfully, even an empty one.
    assert meta.metadata_sources == sidecar_paths(str(skill))


@pytest.mark.parametrize("text, detail, field, line", [
    ("- a\n- b\n", "metadata root must be a mapping", None, 1),
    ("just a string\n", "metadata root must be a mapping", None, 1),
    ("interface: [1, 2]\n", "`interface` must be a mapping when present", "interface", 1),
    ("policy: yes\n", "`policy` must be a mapping when present", "policy", 1),
    ("interface:\n  display_name: '   '\n", "`display_name` must not be empty",
     "interface.display_name", 2),
    ("interface:\n  short_description: 42\n", "`short_description` must be a string when present",
     "interface.short_description", 2),
    ("policy:\n  exposure: ''\n", "`exposure` must not be empty", "policy.exposure", 2),
])
def test_other_sidecar_rules(text: str, detail: str, field: str | None, line: int) -> None:
    with pytest.raises(SidecarMalformed) as info:
        parse_sidecar(text, native=True)
    assert (info.value.detail, info.value.field, info.value.line) == (detail, field, line)


def test_strings_are_trimmed_and_null_means_absent() -> None:
    meta = parse_sidecar("interface:\n  display_name: '  Padded  '\n  short_description: ~\n"
                         "policy:\n", native=True)
    assert meta.display_name == "Padded"
    assert meta.short_description is None
    assert meta.allow_implicit_invocation is None


def test_yaml_syntax_error_is_malformed_with_position(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", zuno="interface:\n  display_name: [unclosed\n")
    path = str(skill / "agents" / "zuno.yaml")
    meta = read_sidecars(str(skill))
    assert meta.metadata_sources == ()
    assert meta.warnings[0].kind == "MetadataMalformed"
    assert meta.warnings[0].message.startswith(f"failed to load skill metadata {path}: ")
    assert meta.diagnostics[0].line == 2  # where the unclosed `[` was opened


def test_malformed_native_keeps_the_valid_shared_fields(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", openai="interface:\n  display_name: Kept\n",
                       zuno="policy:\n  exposure: nope\n")
    meta = read_sidecars(str(skill))
    assert meta.display_name == "Kept"
    assert meta.metadata_sources == (str(skill / "agents" / "openai.yaml"),)
    assert [w.kind for w in meta.warnings] == ["MetadataMalformed"]


def test_non_utf8_sidecar_is_unreadable_invalid_data(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", openai=b"interface:\n  display_name: caf\xe9\n")
    path = str(skill / "agents" / "openai.yaml")
    meta = read_sidecars(str(skill))
    assert [(w.kind, w.message) for w in meta.warnings] == [
        ("MetadataUnreadable", f"failed to read skill metadata {path}: invalid data")]
    assert meta.diagnostics[0].line == 2


def test_a_directory_in_place_of_the_sidecar_is_unreadable(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s")
    (skill / "agents" / "zuno.yaml").mkdir(parents=True)
    path = str(skill / "agents" / "zuno.yaml")
    meta = read_sidecars(str(skill))
    assert [w.message for w in meta.warnings] == [
        f"failed to read skill metadata {path}: is a directory"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_permission_denied_is_unreadable(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", openai="interface:\n  display_name: X\n")
    target = skill / "agents" / "openai.yaml"
    target.chmod(0)
    try:
        meta = read_sidecars(str(skill))
    finally:
        target.chmod(0o644)
    assert [w.message for w in meta.warnings] == [
        f"failed to read skill metadata {target}: permission denied"]
    assert meta.display_name is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
@pytest.mark.parametrize("name", ["openai.yaml", "zuno.yaml"])
def test_a_fifo_sidecar_is_unreadable_not_a_hang(tmp_path: Path, name: str) -> None:
    skill = make_skill(tmp_path, "s")
    (skill / "agents").mkdir()
    os.mkfifo(skill / "agents" / name)
    side = read_sidecars(str(skill))
    path = str(skill / "agents" / name)
    message = f"failed to read skill metadata {path}: not a regular file (a FIFO)"
    assert [(w.kind, w.source, w.message) for w in side.warnings] == [("MetadataUnreadable", path, message)]
    assert [(d.severity, d.code) for d in side.diagnostics] == [(Severity.WARNING, "sidecar-unreadable")]
