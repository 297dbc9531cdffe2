"""The conformance runner's categories, run in-process (all must pass)."""

from __future__ import annotations

import conformance_runner as runner
from conftest import CONFORMANCE


def test_bytes_identical() -> None:
    cat = runner.run_bytes(CONFORMANCE)
    assert cat.total > 400 and cat.failures == []


def test_values_identical() -> None:
    cat = runner.run_values(CONFORMANCE)
    assert cat.total > 400 and cat.failures == []


def test_invalid_rejected() -> None:
    cat = runner.run_invalid(CONFORMANCE)
    assert cat.total >= 200 and cat.failures == []


def test_float_payloads_use_rusts_shortest_form() -> None:
    assert runner.float_payload(1e300) == "1e300"
    assert runner.float_payload(5e-324) == "5e-324"
    assert runner.float_payload(1.5e-7) == "1.5e-7"
    assert runner.float_payload(-0.0) == "-0.0"
    assert runner.float_payload(1e16) == "1e16"
    assert runner.float_payload(123.0) == "123.0"
