"""FlexBuffers for Python, on a Rust core.

>>> import flexbuf
>>> data = flexbuf.dumps({"id": 7, "tags": ["a", "b"]})
>>> flexbuf.loads(data)
{'id': 7, 'tags': ['a', 'b']}
>>> ref = flexbuf.read(data)
>>> ref["tags"][1]
'b'
>>> flexbuf.to_json(data)
'{"id":7,"tags":["a","b"]}'

Every call crosses into native code once: ``loads`` checks the bytes as it
builds the Python objects in Rust;
``dumps`` walks the objects and writes the buffer there. ``read`` returns a
lazy zero-copy :class:`Reference`; generated classes (``python -m flexbuf gen
--lang python schema.fxs -o pkg/``, or :func:`generate`) decode and encode
through a compiled schema.
"""

from __future__ import annotations

from ._errors import (
    BudgetError,
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    FlexError,
    JsonError,
    SchemaError,
    ValidationError,
)
from ._native import (
    Builder,
    CompiledSchema,
    Reference,
    ValueHandle,
    compile_schema,
    dumps,
    from_json,
    generate,
    languages,
    loads,
    read,
    to_json,
    validate,
)

__all__ = [
    "dumps",
    "loads",
    "read",
    "validate",
    "to_json",
    "from_json",
    "compile_schema",
    "generate",
    "languages",
    "Reference",
    "Builder",
    "ValueHandle",
    "CompiledSchema",
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
