"""Hand a generated tree's remote cache to the catalog as if a ``skills.urls`` pull had just
returned it (no network): benchmarks only.

:func:`install` replaces the pull the Zuno host runs (``skillshelf.core.hosts.zuno.build.pull``)
with one returning ``remote_dirs``, and returns the environment entry that configures one
``skills.urls`` entry so the host asks for a pull at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillshelf.core.hosts.zuno import build
from skillshelf.core.remote import RemotePull

#: A configured index URL that is never contacted.
URL = "https://bench.invalid/skills/"


def install(remote_dirs: Sequence[str]) -> dict[str, str]:
    """Patch the pull; returns ``{"ZUNO_CONFIG_CONTENT": …}`` to add to the catalog's environment."""
    pulled = RemotePull(roots=tuple(remote_dirs))

    def pull(urls: Sequence[str], cache_dir: str, **_: object) -> RemotePull:
        return pulled

    build.pull = pull  # type: ignore[assignment]
    return {"ZUNO_CONFIG_CONTENT": '{"skills": {"urls": ["' + URL + '"]}}'}
