"""The error every loader raises for input it cannot take: one clear, user-facing message, and
the same reason as a key and values so that each UI language can word it (``Reason``)."""

from __future__ import annotations

from rag_app.models import IngestReport, Reason


class IngestError(ValueError):
    """An input file was rejected as a whole; ``message`` says why, and where when it can.

    ``key`` and ``values`` are the reason without the file's name (the report names the file):
    ``why`` carries them, with the details joined as ``str`` shows them, for a UI to word in
    its language. The English ``message`` stays what the CLI and the API print.
    """

    def __init__(
        self,
        message: str,
        *,
        details: tuple[str, ...] = (),
        key: str = "",
        values: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        shown = {name: str(value) for name, value in (values or {}).items()}
        if details:
            shown["details"] = self._details_text()
        self.why = Reason(key, tuple(shown.items())) if key else None

    def _details_text(self) -> str:
        shown = "; ".join(self.details[:5])
        more = f" (+{len(self.details) - 5} more)" if len(self.details) > 5 else ""
        return shown + more

    def report(self, name: str, doc_id: str = "") -> IngestReport:
        """The ``rejected`` report of the file ``name`` this error refused."""
        return IngestReport(name, "rejected", doc_id=doc_id, message=str(self), why=self.why)

    def __str__(self) -> str:
        if not self.details:
            return self.message
        return f"{self.message}: {self._details_text()}"
