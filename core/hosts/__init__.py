"""The host registry (SPEC N1): every host by name, in the order ``h`` cycles them.

Import hosts from here, never by module: ``get_host("claude")``, ``HOSTS``, ``DEFAULT_HOST``.
The protocol and shared types live in :mod:`skillshelf.core.hosts.base`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from skillshelf.core.hosts.base import Host

if TYPE_CHECKING:
    DEFAULT_HOST: Host

__all__ = ["DEFAULT_HOST", "DEFAULT_HOST_NAME", "HOSTS", "UnknownHostError", "get_host", "host_names", "next_host",
           "output_proof_holds"]

#: Every host: name → (module, registered instance), in registry order. A host's module is
#: imported the first time the host is asked for (start-up reads only what it uses).
_REGISTRY: dict[str, tuple[str, str]] = {
    "zuno": ("skillshelf.core.hosts.zuno", "ZUNO"),
    "zhin": ("skillshelf.core.hosts.zhin", "ZHIN"),
    "claude": ("skillshelf.core.hosts.claude", "CLAUDE"),
    "codex": ("skillshelf.core.hosts.codex", "CODEX"),
    "opencode": ("skillshelf.core.hosts.opencode", "OPENCODE"),
    "gemini": ("skillshelf.core.hosts.gemini", "GEMINI"),
}

#: Hosts whose first build records what it depended on (``ParseCache.output_proof``) → the module
#: whose ``holds(proof, environment)`` proves such a record again without building (the folders
#: whose listings it proved, or ``None``).
_OUTPUT_PROOFS: dict[str, str] = {
    "zuno": "skillshelf.core.hosts.zuno.proof",
}

#: The name of the host used when none is named.
DEFAULT_HOST_NAME = "zuno"


class _Hosts(Mapping[str, Host]):
    """The read-only registry mapping; a host's module is imported on first access."""

    def __init__(self) -> None:
        self._loaded: dict[str, Host] = {}

    def __getitem__(self, name: str) -> Host:
        host = self._loaded.get(name)
        if host is None:
            module, attr = _REGISTRY[name]  # KeyError for an unknown name, as a mapping does
            host = self._loaded[name] = getattr(importlib.import_module(module), attr)
        return host

    def __iter__(self) -> Iterator[str]:
        return iter(_REGISTRY)

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __contains__(self, name: object) -> bool:
        return name in _REGISTRY

    def __repr__(self) -> str:
        return f"HOSTS({', '.join(_REGISTRY)})"


#: Every registered host by name, in registry order (CLI choices, ``h`` cycle, help).
HOSTS: Mapping[str, Host] = _Hosts()


def __getattr__(name: str) -> Host:
    """``DEFAULT_HOST``: the host used when none is named (imported when first asked for)."""
    if name == "DEFAULT_HOST":
        return HOSTS[DEFAULT_HOST_NAME]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownHostError(KeyError):
    """No host is registered under this name; ``str(exc)`` lists the registered ones."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown host {self.name!r}; choose one of: {', '.join(HOSTS)}"


def get_host(name: str) -> Host:
    """The registered host called ``name``. Raises :class:`UnknownHostError`."""
    try:
        return HOSTS[name]
    except KeyError:
        raise UnknownHostError(name) from None


def host_names() -> tuple[str, ...]:
    """Registered host names in registry order."""
    return tuple(HOSTS)


def next_host(host: Host) -> Host:
    """The host after ``host`` in registry order (wrapping), for the TUI's ``h``."""
    names = host_names()
    i = names.index(host.name) if host.name in names else -1
    return HOSTS[names[(i + 1) % len(names)]]


def output_proof_holds(name: str, proof: object, env: Mapping[str, str]) -> frozenset[str] | None:
    """When host ``name``'s recorded ``proof`` (``ParseCache.output_proof`` of a first build)
    still holds in the process environment ``env`` — a first build now would produce exactly the
    generation that build produced (:mod:`skillshelf.core.keptoutput`) —: the folders whose
    listings it proved unchanged on the way. ``None`` for a host that records no proof, and for
    anything that cannot be proved. Never raises."""
    module = _OUTPUT_PROOFS.get(name)
    if module is None:
        return None
    found = importlib.import_module(module).holds(proof, dict(env))
    return found if isinstance(found, frozenset) else None
