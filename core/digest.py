"""The generation digest (SPEC H1; conformance §6 "digest").

Every host's generation carries one: the skill tool's cursors bind to it (SPEC L4) and views
show its first 16 hex digits. :func:`cached_digest` reuses each unchanged source's bytes
between generations (the incremental refresh keeps source objects, so identity is the key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

from skillshelf.core.model import CatalogWarning, Source

__all__ = ["DigestCache", "cached_digest", "compute_digest", "source_digest_bytes", "warning_digest_bytes"]

#: ``id(source)`` → (the source, its digest bytes); the object is kept so its id stays unique.
DigestCache = Mapping[int, tuple[Source, bytes]]


def compute_digest(sources: Iterable[Source], warnings: Iterable[CatalogWarning]) -> str:
    """Hex SHA-256 of a generation (SPEC H1, conformance §6 "digest").

    Per enabled source in catalog order, NUL-separated: name, location, description,
    display name, short description, the exposure byte (0 index, 1 search, 2 explicit), each
    metadata source, the hex SHA-256 of the whole source file; then ``0xff``. Then per warning:
    ``source NUL message 0xff``. Absent optional strings hash as empty strings.
    """
    h = hashlib.sha256()
    for s in sources:
        if s.enabled:
            h.update(source_digest_bytes(s))
    for w in warnings:
        h.update(warning_digest_bytes(w))
    return h.hexdigest()


def source_digest_bytes(s: Source) -> bytes:
    """One source's contribution to :func:`compute_digest` (ends with ``0xff``)."""
    parts = [
        s.name,
        s.location,
        s.description or "",
        s.display_name or "",
        s.short_description or "",
    ]
    out = [("\0".join(parts)).encode("utf-8", "surrogatepass"), b"\0" + bytes([s.exposure.digest_byte])]
    for m in s.metadata_sources:
        out.append(b"\0" + m.encode("utf-8", "surrogatepass"))
    out.append(b"\0" + s.content_sha256.encode("ascii") + b"\xff")
    return b"".join(out)


def warning_digest_bytes(w: CatalogWarning) -> bytes:
    """One warning's contribution to :func:`compute_digest`: ``source NUL message 0xff``."""
    return w.source.encode("utf-8", "surrogatepass") + b"\0" + w.message.encode("utf-8", "surrogatepass") + b"\xff"



def cached_digest(
    sources: Sequence[Source], warnings: Sequence[CatalogWarning], cache: DigestCache
) -> tuple[str, dict[int, tuple[Source, bytes]]]:
    """:func:`compute_digest` reusing each unchanged source object's bytes from ``cache``
    (keyed by object identity; the object is kept in the cache so its id stays unique)."""
    new: dict[int, tuple[Source, bytes]] = {}
    chunks: list[bytes] = []
    for s in sources:
        if not s.enabled:
            continue
        hit = cache.get(id(s))
        data = hit[1] if hit is not None and hit[0] is s else source_digest_bytes(s)
        new[id(s)] = (s, data)
        chunks.append(data)
    chunks.extend(warning_digest_bytes(w) for w in warnings)
    return hashlib.sha256(b"".join(chunks)).hexdigest(), new
