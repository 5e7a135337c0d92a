"""The error every loader raises for input it cannot take: one clear, user-facing message."""


class IngestError(ValueError):
    """An input file was rejected as a whole; ``message`` says why, and where when it can."""

    def __init__(self, message: str, *, details: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def __str__(self) -> str:
        if not self.details:
            return self.message
        shown = "; ".join(self.details[:5])
        more = f" (+{len(self.details) - 5} more)" if len(self.details) > 5 else ""
        return f"{self.message}: {shown}{more}"
