"""The JSONC reader accepts exactly what Zuno's does (SPEC K1, K5): Zuno blanks comments and
trailing commas with its own stripper, then ``serde_json`` reads the rest. The edges where a
JSONC library would differ: ``//`` or ``/*`` inside strings, unterminated comments, trailing
commas (after comments, and the ``[,]`` Zuno keeps), a ``//`` comment ended by a lone ``\\r``."""

from __future__ import annotations

import pytest

from skillshelf.core import jsonc
from skillshelf.core.jsonc import JsoncError, loads, strip


@pytest.mark.parametrize(
    "text, stripped",
    [
        # comment markers inside strings are text, also after an escaped quote
        ('{"u": "http://x/*y*/", // c\n}', '{"u": "http://x/*y*/"      \n}'),
        ('{"h": "a\\"//b", "g": "src/*.md"}', '{"h": "a\\"//b", "g": "src/*.md"}'),
        # blanked, not removed: offsets, lines and columns stay
        ('[1, /* a\nb */ 2]', '[1,     \n     2]'),
        ('{"a": 1} /* never closed\n', '{"a": 1}                \n'),
        ('{"a": 1 // c\r}', '{"a": 1     \r}'),
        # trailing commas, also with comments between the comma and the bracket
        ('{"a": [1,], }', '{"a": [1 ]  }'),
        ('[1, // c\n]', '[1      \n]'),
        ('[1 /* a */, /* b */ ]', '[1                  ]'),
        # a comma after `[`, `{`, `:` or another comma is no trailing comma: it stays
        ("[,]", "[,]"),
        ("{,}", "{,}"),
        ('{"a":,}', '{"a":,}'),
        ("[1,,]", "[1,,]"),
        # an unterminated string ends the work: nothing after its quote is touched
        ('["a, // b]', '["a, // b]'),
    ],
)
def test_strip_blanks_what_zunos_stripper_blanks(text, stripped):
    assert strip(text) == stripped
    assert len(strip(text)) == len(text)


@pytest.mark.parametrize(
    "text, value",
    [
        ('{"u": "http://x", // c\n}', {"u": "http://x"}),
        ('{"a": 1} /* never closed', {"a": 1}),
        ('{"a": 1 // c\r}', {"a": 1}),
        ('{\r  // c\r  "a": [1, 2,],\r}', {"a": [1, 2]}),
        ('{"skills": {"paths": ["x",], /* end */ },}', {"skills": {"paths": ["x"]}}),
    ],
)
def test_zuno_reads_these(text, value):
    parsed = loads(text)
    assert parsed.value == value
    assert parsed.nonstandard is None


@pytest.mark.parametrize(
    "text, error",
    [
        ('{"a": 1 /* never closed', "1:9: unterminated /* comment"),
        ("[,]", "1:2: expected ']' or a value, found `,`"),
        ("{,}", "1:2: expected '}' or a key, found `,`"),
        ('{"a":,}', "1:6: expected a value, found `,`"),
        ("[1,,]", "1:3: multiple trailing commas at `,`"),
        ('{"a": "x\n// y"}', "1:9: a line break inside a string"),
    ],
)
def test_zuno_refuses_these(text, error):
    with pytest.raises(JsoncError) as caught:
        loads(text)
    assert str(caught.value) == error


def test_a_large_jsonc_text_is_read_without_the_slow_json5_model(monkeypatch):
    """Comments after every entry and trailing commas everywhere: still the standard library's
    parser (json-five's model would take minutes at this size)."""

    def json5_model(text):
        raise AssertionError("json-five's model was asked")

    monkeypatch.setattr(jsonc, "parse_document", json5_model)
    entries = "".join(f'    {{"path": "/s/{i}/SKILL.md", "enabled": true, }}, // entry {i}\n' for i in range(20_000))
    text = '{\n  "skills": {"config": [\n' + entries + "  ],},\n}\n"
    parsed = loads(text)
    assert parsed.nonstandard is None
    assert parsed.value["skills"]["config"][19_999] == {"path": "/s/19999/SKILL.md", "enabled": True}
    assert len(parsed.value["skills"]["config"]) == 20_000


@pytest.mark.parametrize("depth, refused", [(128, False), (129, True), (5_000, True), (100_000, True)])
def test_nesting_deeper_than_serde_json_allows_is_an_error_never_a_crash(depth, refused):
    """serde_json refuses a document nested more than 128 deep (``recursion limit exceeded``);
    a deeper config made skillshelf crash with RecursionError. The position is the first
    bracket past the limit (line, column in bytes)."""
    text = '{"skills": {"x": "é[{", "config": ' + "[" * (depth - 2) + "]" * (depth - 2) + "}}"
    if not refused:
        assert loads(text).value["skills"]["x"] == "é[{"
        return
    with pytest.raises(JsoncError) as err:
        loads(text)
    assert (err.value.message, err.value.line, err.value.column) == ("recursion limit exceeded", 1, 162)


def test_nesting_counts_no_bracket_inside_a_string_or_comment():
    text = "// " + "[" * 200 + "\n" + '{"a": "' + "{" * 200 + '", /* ' + "[" * 200 + " */ \"b\": [[1]]}"
    assert loads(text).value == {"a": "{" * 200, "b": [[1]]}
