"""The fitting footer: whole keys only, rebuilt only when the keys it shows change."""

from __future__ import annotations

from conftest import settle
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from skillshelf.widgets.footer import FittingFooter


class FooterApp(App[None]):
    BINDINGS = [Binding("a", "one", "One"), Binding("b", "two", "Two")]

    def __init__(self) -> None:
        super().__init__()
        self.two = True

    def compose(self) -> ComposeResult:
        yield Button("first", id="first")
        yield Button("second", id="second")
        yield FittingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.two if action == "two" else True

    def action_one(self) -> None: ...

    def action_two(self) -> None: ...


def _keys(app: App[None]) -> list[FooterKey]:
    return [k for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")]


async def test_moving_the_focus_keeps_the_footer_keys_and_a_changed_binding_rebuilds_them():
    app = FooterApp()
    async with app.run_test(size=(80, 10)) as pilot:
        await settle(app, pilot)
        before = _keys(app)
        assert [k.key for k in before] == ["a", "b"]
        for target in ("#second", "#first", "#second"):  # each focus change refreshes the bindings
            app.query_one(target).focus()
            await settle(app, pilot)
        assert _keys(app) == before and all(a is b for a, b in zip(_keys(app), before, strict=True))
        app.two = False
        app.screen.refresh_bindings()
        await settle(app, pilot)
        assert [k.key for k in _keys(app)] == ["a"]
