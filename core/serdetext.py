"""serde's words for a JSON value in an error message (``invalid type: <unexpected>, expected …``),
as Zuno's ``serde_json`` prints them: serde's ``Unexpected`` display."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["unexpected"]


def unexpected(value: Any) -> str:
    """serde's ``Unexpected`` wording for a decoded JSON value: ``null``, ``boolean `true```,
    ``integer `5```, ``floating point `2.5```, ``string "x"`` (JSON-quoted), ``sequence``, ``map``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        return f"string {json.dumps(value, ensure_ascii=False)}"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return "map"
