"""Where a source's fields came from: the sidecar file behind a display name or short description
(SPEC E2–E3) and the remote index a pulled skill came from (SPEC R)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import Provenance, Source
from skillshelf.core.sidecar import NATIVE_SIDECAR, SidecarMalformed, parse_sidecar

__all__ = ["SidecarOrigins", "remote_origin", "sidecar_origins"]


@dataclass(frozen=True)
class SidecarOrigins:
    """The sidecar file that set a source's ``display_name`` and ``short_description`` (``None``:
    not set by a sidecar, or the source has no such field)."""

    display_name: str | None = None
    short_description: str | None = None


def sidecar_origins(source: Source) -> SidecarOrigins:
    """Which sidecar file set ``display_name`` and ``short_description`` of ``source``.

    The native ``agents/zuno.yaml`` overlays the shared ``agents/openai.yaml`` field by field, so
    the later file that sets a field wins; only fields the source has are named. Unreadable or
    malformed files contribute nothing, as in the host. Reads the files (worker thread)."""
    display = short = None
    if not source.metadata_sources or source.location.startswith("builtin://"):
        return SidecarOrigins()
    for path in source.metadata_sources:
        try:
            text = read_regular(path).decode("utf-8")
            parsed = parse_sidecar(text, native=os.path.basename(path) == NATIVE_SIDECAR)
        except (OSError, UnicodeDecodeError, SidecarMalformed):
            continue
        if parsed.display_name is not None:
            display = path
        if parsed.short_description is not None:
            short = path
    return SidecarOrigins(display if source.display_name is not None else None,
                          short if source.short_description is not None else None)


def remote_origin(origins: Mapping[str, tuple[str, str | None]], source: Source) -> tuple[str, str | None] | None:
    """``(url, version)`` a remote source was pulled from, looked up in ``origins`` (the catalog's
    ``remote_origins``) by the source's root, then by its skill folder (and their real paths);
    ``None`` when unknown or not remote."""
    if source.provenance is not Provenance.REMOTE:
        return None
    for key in (source.root, source.directory):
        if not key:
            continue
        for candidate in (key, key.rstrip("/"), os.path.realpath(key)):
            if candidate in origins:
                return origins[candidate]
    return None
