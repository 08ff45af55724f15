"""SPEC X1: control characters and escape sequences become visible."""

from skillshelf.core.textsafe import visible, visible_line


def test_x1_escape_sequence_is_visible():
    assert visible("\x1b[31mred\x1b[0m") == "␛[31mred␛[0m"


def test_x1_c0_del_c1_and_bidi():
    assert visible("a\x00b\x07c\x7fd") == "a␀b␇c␡d"
    assert visible("\x9b2J \x9d0;t\x07") == "\\x9b2J \\x9d0;t␇"
    assert visible("abc\u202edcba") == "abc\\u202edcba"
    assert visible("x\udcff") == "x\\udcff"


def test_x1_newlines_single_line_vs_multiline():
    assert visible("a\nb\tc\rd") == "a␊b␉c␍d"
    assert visible("a\nb\tc\rd", multiline=True) == "a\nb\tc␍d"


def test_plain_text_and_markup_untouched():
    text = "[bold red]x[/] ünïcödé 日本"
    assert visible(text) is text


def test_visible_line_any_value():
    assert visible_line(None) == ""
    assert visible_line(3) == "3"
    assert visible_line(['\x1b']) == "['\\x1b']"  # repr already escapes
