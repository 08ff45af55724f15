"""Failed workers are never silent: Textual posts ``Worker.StateChanged`` only to the node that
started the worker (it does not bubble), so every widget and screen with workers mixes in
:class:`ReportsWorkerErrors`, which logs the failure (Textual's log) and shows it as an error
notice (made visible, SPEC X1) — in words: an internal error is named as one, never shown as a
bare exception. A worker that was cancelled (its result no longer wanted: the host was switched,
a newer request replaced it) is only logged."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from skillshelf.core.textsafe import visible

__all__ = ["INTERNAL_ERRORS", "ReportsWorkerErrors", "error_detail", "failure_text", "report_failure"]

#: Exceptions that mean a bug in skillshelf, not a problem with the user's files or system:
#: their bare text (often empty) would tell the user nothing.
INTERNAL_ERRORS: tuple[type[BaseException], ...] = (
    AssertionError, AttributeError, TypeError, NameError, LookupError, RecursionError, ArithmeticError,
    NotImplementedError,
)


def error_detail(error: BaseException | None) -> str:
    """What went wrong, in words: an operating system error by its reason and file, a bug as
    "an internal error" with what to do (never the bare exception), any other error by its
    message."""
    if isinstance(error, OSError):
        detail = error.strerror or str(error) or type(error).__name__
        return f"{detail}: {error.filename}" if error.filename else detail
    if error is None or isinstance(error, INTERNAL_ERRORS) or not str(error).strip():
        name = type(error).__name__ if error is not None else "unknown"
        return (f"an internal error in skillshelf ({name}), written to the log; "
                "try again, and please report it if it keeps happening")
    return str(error)


def failure_text(worker: Worker[object]) -> str:
    """``read body failed: <what went wrong>`` (:func:`error_detail`) for a worker that ended in error."""
    return f"{worker.description or worker.group} failed: {error_detail(worker.error)}"


def report_failure(node: Widget | App[Any], worker: Worker[object]) -> str:
    """Log ``worker``'s error on ``node`` and show it as an error notice (only logged when the
    worker was cancelled: nobody waits for it any more); returns the message."""
    message = failure_text(worker)
    node.log.error(message, worker.error)
    if not worker.is_cancelled:
        node.notify(visible(message, multiline=True), severity="error", timeout=8, markup=False)
    return message


class ReportsWorkerErrors:
    """Mixin for a widget, screen or app: :func:`report_failure` for each of its workers that fails."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and isinstance(self, (Widget, App)):
            report_failure(self, event.worker)
