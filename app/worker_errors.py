"""Failed workers are never silent: Textual posts ``Worker.StateChanged`` only to the node that
started the worker (it does not bubble), so every widget and screen with workers mixes in
:class:`ReportsWorkerErrors`, which logs the failure (Textual's log) and shows it as an error
notice (made visible, SPEC X1)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from skillshelf.core.textsafe import visible

__all__ = ["ReportsWorkerErrors", "failure_text", "report_failure"]


def failure_text(worker: Worker[object]) -> str:
    """``read body failed: OSError: …`` for a worker that ended in error."""
    error = worker.error
    return f"{worker.description or worker.group} failed: {type(error).__name__}: {error}"


def report_failure(node: Widget | App[Any], worker: Worker[object]) -> str:
    """Log ``worker``'s error on ``node`` and show it as an error notice; returns the message."""
    message = failure_text(worker)
    node.log.error(message, worker.error)
    node.notify(visible(message, multiline=True), severity="error", timeout=8, markup=False)
    return message


class ReportsWorkerErrors:
    """Mixin for a widget, screen or app: :func:`report_failure` for each of its workers that fails."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and isinstance(self, (Widget, App)):
            report_failure(self, event.worker)
