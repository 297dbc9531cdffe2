"""Exceptions raised by flexbuf.

Every exception is a :class:`FlexError` and also a subclass of the built-in
exception Python code would expect (``ValueError``, ``TypeError`` or
``OverflowError``), so both ``except flexbuf.FlexError`` and the usual
built-in handlers work.
"""

from __future__ import annotations

__all__ = [
    "FlexError",
    "DecodeError",
    "ValidationError",
    "BudgetError",
    "SchemaError",
    "JsonError",
    "EncodeError",
    "EncodeTypeError",
    "EncodeOverflowError",
]


class FlexError(Exception):
    """Base class of every flexbuf error.

    Attributes:
        kind: The core's error kind (``"Cycle"``, ``"Truncated"``,
            ``"BudgetExceeded"``, ``"Schema"``, ...).
        offset: Byte offset into the input where the problem is, when known.
        path: Where in the value the problem is (``$.items[3].name``), when known.
    """

    kind: str
    offset: int | None
    path: str | None

    def __init__(
        self,
        message: str,
        *,
        kind: str = "Message",
        offset: int | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.offset = offset
        self.path = path


class DecodeError(FlexError, ValueError):
    """The input bytes cannot be turned into the requested value."""


class ValidationError(DecodeError):
    """The input is not a valid FlexBuffer (rejected by the verifier)."""


class BudgetError(DecodeError):
    """Expanding the buffer would exceed the expansion budget.

    A small valid buffer can share subtrees so that it describes an
    exponentially large tree; expansion into Python objects stops instead.
    """


class SchemaError(DecodeError):
    """A typed decode found data that does not fit the schema.

    Attributes:
        reason: The language-neutral class of the problem: ``"missing"``,
            ``"null"``, ``"type"``, ``"range"``, ``"enum"`` or ``"union"``.
    """

    reason: str

    def __init__(
        self,
        message: str,
        *,
        kind: str = "Schema",
        offset: int | None = None,
        path: str | None = None,
        reason: str = "type",
    ) -> None:
        super().__init__(message, kind=kind, offset=offset, path=path)
        self.reason = reason


class JsonError(FlexError, ValueError):
    """Malformed JSON text, or a value JSON cannot represent (NaN, infinity)."""


class EncodeError(FlexError, ValueError):
    """A value cannot be encoded (nesting too deep, NUL in a key, builder misuse)."""


class EncodeTypeError(FlexError, TypeError):
    """A value of a type that cannot be encoded (``path`` names where)."""


class EncodeOverflowError(FlexError, OverflowError):
    """An integer that does not fit (64 bits, or the schema's type)."""
