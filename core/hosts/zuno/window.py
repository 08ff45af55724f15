"""Host ``zuno``: the context window of the configured model (conformance Z-W).

Zuno computes its skill budgets from the resolved model's ``limit.context`` in its model catalog
(models.dev data, cached on disk by Zuno itself; a ``provider`` section of the configuration can
declare or override a model's limits). A model that declares no window gives 0 and the defaults
apply. skillshelf resolves the window the same way, in this order:

1. ``--context-window`` (:class:`WindowOrigin.FLAG`);
2. no ``model`` configured (top-level ``model``, or the agent's own): unknown — Zuno would pick
   a model from the providers it has credentials for, which skillshelf does not read;
3. ``provider.<id>.models.<model>.limit.context`` in the configuration (``CONFIG``);
4. Zuno's model catalog file (``MODEL_CATALOG``): ``$ZUNO_MODELS_PATH`` when set, else
   ``$XDG_CACHE_HOME/zuno/models.json`` — ``models-<sha1(source)>.json`` when
   ``$ZUNO_MODELS_URL`` names another source than ``https://models.dev``
   (``zuno-paths`` ``Layout::models_cache``). The model there with no window → 0, defaults;
5. :data:`KNOWN_WINDOWS`, skillshelf's own table of published windows (``TABLE``);
6. unknown.

Never downloads anything; a catalog file that cannot be read or parsed counts as absent (its
problem is in :attr:`ContextWindow.note`).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Mapping
from typing import Any

from skillshelf.core.config import Config
from skillshelf.core.hosts.base import ContextWindow, WindowOrigin, flag_window
from skillshelf.core.paths import Environment

__all__ = ["DEFAULT_MODELS_SOURCE", "KNOWN_WINDOWS", "models_catalog_path", "resolve_window"]

#: The model catalog source whose cache file is the unsuffixed ``models.json``.
DEFAULT_MODELS_SOURCE = "https://models.dev"

#: skillshelf's table of context windows (tokens) of widely used models, as models.dev publishes
#: them; used only when neither the configuration nor Zuno's cached catalog knows the model.
#: Keys are ``provider/model``; a model id alone also matches under any provider.
KNOWN_WINDOWS: Mapping[str, int] = {
    "anthropic/claude-opus-4-1": 200_000,
    "anthropic/claude-opus-4-0": 200_000,
    "anthropic/claude-sonnet-4-5": 200_000,
    "anthropic/claude-sonnet-4-0": 200_000,
    "anthropic/claude-sonnet-4-20250514": 200_000,
    "anthropic/claude-3-7-sonnet-20250219": 200_000,
    "anthropic/claude-3-5-sonnet-20241022": 200_000,
    "anthropic/claude-3-5-haiku-20241022": 200_000,
    "anthropic/claude-haiku-4-5": 200_000,
    "openai/gpt-4o": 128_000,
    "openai/gpt-4o-mini": 128_000,
    "openai/gpt-4.1": 1_047_576,
    "openai/gpt-4.1-mini": 1_047_576,
    "openai/gpt-4.1-nano": 1_047_576,
    "openai/o3": 200_000,
    "openai/o4-mini": 200_000,
    "openai/gpt-5": 400_000,
    "openai/gpt-5-mini": 400_000,
    "google/gemini-2.5-pro": 1_048_576,
    "google/gemini-2.5-flash": 1_048_576,
}


def models_catalog_path(env: Environment, cwd: str = "/") -> str:
    """The catalog file Zuno reads: ``$ZUNO_MODELS_PATH`` (non-empty), else its cache file under
    ``$XDG_CACHE_HOME/zuno`` named for ``$ZUNO_MODELS_URL`` (``models.json`` for the default
    source, ``models-<sha1(source)>.json`` for any other). Relative values join ``cwd``."""
    explicit = env.get("ZUNO_MODELS_PATH")
    if explicit:
        return os.path.normpath(os.path.join(cwd, explicit))
    source = env.get("ZUNO_MODELS_URL") or DEFAULT_MODELS_SOURCE
    if source == DEFAULT_MODELS_SOURCE:
        name = "models.json"
    else:
        import hashlib  # (only for another catalog source)

        name = f"models-{hashlib.sha1(source.encode('utf-8')).hexdigest()}.json"
    return os.path.join(os.path.normpath(os.path.join(cwd, env.xdg_cache_home)), "zuno", name)


_CACHE: dict[str, tuple[tuple[int, int], Any, str]] = {}
_LOCK = threading.Lock()


def _catalog(path: str) -> tuple[Any, str]:
    """The parsed catalog document at ``path`` (``None`` when absent or unreadable) and, when it
    could not be used, why. Parsed once per (size, mtime)."""
    try:
        st = os.stat(path)
    except OSError:
        return None, "no model catalog at " + path
    stamp = (st.st_size, st.st_mtime_ns)
    with _LOCK:
        hit = _CACHE.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1], hit[2]
    try:
        with open(path, encoding="utf-8") as stream:
            doc: Any = json.load(stream)
        why = ""
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        doc, why = None, f"the model catalog {path} cannot be read ({type(exc).__name__})"
    with _LOCK:
        _CACHE[path] = (stamp, doc, why)
    return doc, why


def _limit(model: Any) -> int | None:
    """``limit.context`` of a catalog model entry as a token count: ``None`` when the entry has
    no ``limit`` object, 0 for a missing, negative or non-finite value (Zuno ``token_count``)."""
    if not isinstance(model, Mapping):
        return None
    limit = model.get("limit")
    if not isinstance(limit, Mapping):
        return 0
    value = limit.get("context")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if not math.isfinite(value) or value <= 0:
        return 0
    return int(value)


def _lookup(doc: Any, provider: str, model: str) -> tuple[bool, int]:
    """Whether ``doc`` (a models.dev document) has ``provider/model``, and its window."""
    if not isinstance(doc, Mapping):
        return False, 0
    entry = doc.get(provider)
    models = entry.get("models") if isinstance(entry, Mapping) else None
    if not isinstance(models, Mapping) or model not in models:
        return False, 0
    return True, _limit(models[model]) or 0


def resolve_window(config: Config, env: Environment, cwd: str, *, flag: int | None = None,
                   model: str | None = None) -> ContextWindow:
    """The context window the Zuno budgets use (module docstring). ``flag``: ``--context-window``;
    ``model``: an agent's own ``provider/model`` (else the configuration's ``model``)."""
    if flag is not None:
        return flag_window(flag)
    qualified = model or config.model
    if not qualified:
        return ContextWindow(None, WindowOrigin.UNKNOWN,
                             note="no `model` configured: Zuno picks one from the providers it has credentials for")
    provider, sep, model_id = qualified.partition("/")
    if not sep or not provider or not model_id:
        return ContextWindow(None, WindowOrigin.UNKNOWN, qualified,
                             note="`model` must be provider/model")
    configured = config.merged.get("provider")
    entry = configured.get(provider) if isinstance(configured, Mapping) else None
    models = entry.get("models") if isinstance(entry, Mapping) else None
    if isinstance(models, Mapping) and isinstance(models.get(model_id), Mapping):
        tokens = _limit(models[model_id])
        if tokens is not None and tokens > 0:
            return ContextWindow(tokens, WindowOrigin.CONFIG, qualified, source=f"provider.{provider}.models."
                                 f"{model_id}.limit.context")
    path = models_catalog_path(env, cwd)
    doc, why = _catalog(path)
    found, tokens = _lookup(doc, provider, model_id)
    if found:
        if tokens > 0:
            return ContextWindow(tokens, WindowOrigin.MODEL_CATALOG, qualified, source=path)
        return ContextWindow(0, WindowOrigin.MODEL_CATALOG, qualified, source=path,
                             note="the defaults apply")
    known = KNOWN_WINDOWS.get(qualified)
    if known is None:
        known = next((v for k, v in KNOWN_WINDOWS.items() if k.partition("/")[2] == model_id), None)
    if known is not None:
        return ContextWindow(known, WindowOrigin.TABLE, qualified,
                             note=why or f"{qualified} is not in the model catalog {path}")
    return ContextWindow(None, WindowOrigin.UNKNOWN, qualified,
                         note=why or f"{qualified} is not in the model catalog {path} nor in skillshelf's table")
