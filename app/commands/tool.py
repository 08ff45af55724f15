"""``skillshelf tool REQUEST [COMMON] [--json]``: one skill-tool call, as the agent makes it (SPEC C, L).

``REQUEST`` is the JSON object the model would send, e.g. ``'{"action":"load","name":"pdf"}'``.
The call runs against a live catalog for ``--cwd`` (so a stale locator refreshes once, SPEC I3).

Output: the tool's text exactly (no newline is added when stdout is a pipe or file, so a
``read_resource`` page can be captured byte for byte; a terminal gets a final newline when the
text lacks one — skillshelf decision). ``--json`` prints ``{"output", "metadata", "title"}`` or
``{"error": {"code", "message"}}``. Exit codes (SPEC C2): 0 answered, 1 the tool refused (the
refusal text on stdout), 2 REQUEST is not valid JSON (the request shape, with the host's own
examples, follows on stderr; ``--json``: ``{"error": {"code": "invalid-request", "message",
"examples"}}``) or ``--cwd`` is unusable.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from skillshelf.app.output import print_json


def add_parser(sub: Any, common: Any) -> None:
    """Register ``tool``."""
    p = sub.add_parser(
        "tool",
        parents=[common],
        help="run one skill-tool call (list, search, load, read_resource)",
        description="Run one call of the agent's `skill` tool and print exactly what the model would read.",
    )
    p.add_argument("request", metavar="REQUEST",
                   help='the JSON object the agent sends, e.g. \'{"action":"search","query":"pdf"}\'')
    p.add_argument("--json", action="store_true", help="print {output, metadata, title} or {error: {code, message}}")
    p.set_defaults(run=run)


def _emit_text(text: str) -> None:
    from skillshelf.app.common import terminal_text

    text = terminal_text(text)  # SPEC X1: visible escapes on a terminal, exact bytes in a pipe
    sys.stdout.write(text)
    if not text.endswith("\n") and sys.stdout.isatty():
        sys.stdout.write("\n")


def request_shape(host_name: str) -> str:
    """What a REQUEST looks like for ``host_name``'s skill tool: one JSON object, quoted for
    the shell, with the host's own examples (:attr:`HostLabels.tool_requests
    <skillshelf.core.hosts.base.HostLabels.tool_requests>`)."""
    from skillshelf.core.hosts import DEFAULT_HOST, get_host

    host = get_host(host_name)
    examples = host.labels.tool_requests
    if not examples:
        return f"  {host.describe()} gives the model no skill tool; there is no request to send"
    lines = [f"  REQUEST is one JSON object, as {host.describe()}'s model sends it, in single quotes for the shell:"]
    flag = "" if host is DEFAULT_HOST else f" --host {host.name}"
    lines += [f"    skillshelf tool{flag} '{e}'" for e in examples]
    return "\n".join(lines)


def _reject_constant(name: str) -> Any:
    """``NaN``/``Infinity`` are not JSON (RFC 8259); the agent's JSON parser rejects them."""
    raise ValueError(f"{name} is not valid JSON")


def _emit_json(doc: Any) -> None:
    print_json(doc)


def run(ns: Any) -> int:
    """Parse REQUEST, open the catalog, call the host's tool; see the module docstring for output and exits."""
    from skillshelf.app.common import open_catalog
    from skillshelf.core.tool import ToolError

    try:
        request = json.loads(ns.request, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        if ns.json:
            from skillshelf.core.hosts import get_host

            _emit_json({"error": {"code": "invalid-request", "message": f"REQUEST is not valid JSON: {exc}",
                                  "examples": list(get_host(ns.host).labels.tool_requests)}})
        else:
            print(f"skillshelf tool: REQUEST is not valid JSON: {exc}", file=sys.stderr)
            print(request_shape(ns.host), file=sys.stderr)
        return 2
    catalog = open_catalog(ns, announce=True)
    tool = catalog.host.skill_tool(catalog)
    if tool is None:
        msg = f"{catalog.host.describe()} gives the model no skill tool whose behaviour skillshelf reproduces"
        if ns.json:
            _emit_json({"error": {"code": "no-skill-tool", "message": msg}})
        else:
            print(f"skillshelf tool: {msg}", file=sys.stderr)
        return 1
    try:
        result = tool.call(request)
    except ToolError as err:
        if ns.json:
            _emit_json({"error": err.to_json()})
        else:
            _emit_text(err.message)
        return 1
    if ns.json:
        _emit_json(result.to_json())
    else:
        _emit_text(result.output)
    return 0
