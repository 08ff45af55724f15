"""Every command on a workspace full of hostile files (SPEC C2, X1): tagged YAML values, lone
surrogates in JSON frontmatter and YAML escapes, C1 controls, a folder name that is not UTF-8,
duplicate keys, non-UTF-8 bytes, an alias bomb, broken sidecars — in every project root of every
host. No command ends with a traceback, every byte written is valid UTF-8, JSON parses and
holds no raw C1 control (text written to a pipe is the exact text the agent gets, SPEC X1).

Commands run in-process with stdout and stderr as strict UTF-8 byte streams (the CLI's entry
point makes them escape what they cannot encode); one run goes through a real process under
the C locale, where Python's streams would otherwise write undecodable bytes raw.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import write_hostile_workspace

from skillshelf.app.cli import main
from skillshelf.app.output import json_text
from skillshelf.core.hosts import HOSTS

#: Raw characters JSON output never holds: the C1 controls (escaped as ``\u009b``).
_FORBIDDEN = [chr(c) for c in range(0x80, 0xA0)]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    t = tmp_path_factory.mktemp("hostile")
    proj, home = t / "proj", t / "home"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    write_hostile_workspace(str(proj))
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
           "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    return proj, env


def run_cli(argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes, bytes]:
    """``main(argv)`` with stdout/stderr as strict UTF-8 byte streams; returns (code, out, err)."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith(("ZUNO_", "CLAUDE_", "CODEX_", "GEMINI_")) and k not in env]:
        monkeypatch.delenv(key)
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    stdout.flush()
    stderr.flush()
    return code, out.getvalue(), err.getvalue()


def check_output(data: bytes, *, json_lines: bool = False, json_doc: bool = False) -> str:
    text = data.decode("utf-8")  # raises on invalid UTF-8
    if json_doc or json_lines:
        for ch in _FORBIDDEN:
            assert ch not in text, f"raw U+{ord(ch):04X} in JSON"
    if json_doc:
        json.loads(text)
    if json_lines:
        for line in text.splitlines():
            json.loads(line)
    return text


COMMANDS = [
    (["debug", "skill"], {}),
    (["debug", "skill", "--json"], {"json_doc": True}),
    (["index"], {}),
    (["index", "--json"], {"json_doc": True}),
    (["tool", '{"action":"search","query":"a"}'], {}),
    (["tool", '{"action":"search","query":"a"}', "--json"], {"json_doc": True}),
    (["watch", "--exit-after", "1", "--debounce", "50", "--step", "10"], {}),
    (["watch", "--json", "--exit-after", "1", "--debounce", "50", "--step", "10"], {"json_lines": True}),
]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(("argv", "kind"), COMMANDS, ids=[" ".join(a[:3]) for a, _ in COMMANDS])
def test_every_command_on_hostile_files_exits_cleanly_with_valid_utf8(workspace, monkeypatch, host, argv, kind):
    proj, env = workspace
    code, out, err = run_cli([*argv, "--cwd", str(proj), "--host", host], env, monkeypatch)
    assert code in (0, 1), err.decode("utf-8", "replace")[-2000:]
    check_output(out, **kind)
    check_output(err)
    assert b"Traceback" not in err


@pytest.mark.parametrize(("argv", "kind"), [
    (["lint"], {}), (["lint", "--json"], {"json_doc": True}), (["lint", "--target", "portable"], {}),
    (["compare"], {}), (["compare", "--json"], {"json_doc": True}),
])
def test_lint_and_compare_on_hostile_files_exit_cleanly_with_valid_utf8(workspace, monkeypatch, argv, kind):
    proj, env = workspace
    args = [*argv, str(proj)] if argv[0] == "lint" else [*argv, "--cwd", str(proj)]
    code, out, err = run_cli(args, env, monkeypatch)
    assert code in (0, 1), err.decode("utf-8", "replace")[-2000:]
    text = check_output(out, **kind)
    check_output(err)
    if argv == ["lint", "--json"]:
        # a folder name that is not UTF-8 is kept, written as the JSON escape of its byte
        assert "bad\\udcffname" in text


def test_json_escapes_what_could_drive_a_terminal_and_reads_back_the_same():
    doc = {"d": "a\u009b31m\u009d0;t\x07 \u202e\ud800 \udcff é ✓"}
    text = json_text(doc, indent=None)
    assert text == '{"d": "a\\u009b31m\\u009d0;t\\u0007 \\u202e\\ud800 \\udcff é ✓"}'
    assert json.loads(text) == doc
    text.encode("utf-8")


def test_a_real_process_under_the_c_locale_writes_valid_utf8(workspace):
    proj, env = workspace
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.app.cli", "debug", "skill", "--json", "--cwd", str(proj)],
        env={**env, "PATH": os.environ.get("PATH", ""), "LC_ALL": "C", "PYTHONUTF8": "0"},
        capture_output=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
    doc = json.loads(check_output(proc.stdout))
    assert any(s["location"].endswith("/bad\udcffname/SKILL.md") for s in doc["sources"])
    assert b"Traceback" not in proc.stderr
