"""The rules-table fixture covers every row of the table in ``notes/real-clients.md`` (each
client's agreement test runs it as ``test_rules_table``)."""

from __future__ import annotations

import rules_table
from realclients import require_shared


def test_every_row_of_the_rules_table_has_a_fixture() -> None:
    notes = require_shared() / "notes" / "real-clients.md"
    assert rules_table.table_rows(notes) == list(rules_table.ROWS)


def test_the_fixture_places_each_row_in_the_clients_own_root(tmp_path) -> None:
    cwd, home, env = rules_table.build(tmp_path, "gemini", "env")
    main = cwd / ".gemini/skills"
    assert (main / "dir-key/SKILL.md").read_text(encoding="utf-8").startswith("---\nname: fm-key\n")
    assert (main / "bom/SKILL.md").read_bytes().startswith(b"\xef\xbb\xbf---\n")
    assert (main / "file-link/SKILL.md").is_symlink()
    assert (tmp_path / "R/.agents/skills").is_symlink()
    assert env["GEMINI_CLI_HOME"] == str(tmp_path / "gemini-home")
    assert (tmp_path / "gemini-home/.gemini/skills/ur-moved-gemini/SKILL.md").is_file()
    assert home == tmp_path / "H"
