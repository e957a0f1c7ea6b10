"""The public contract file: every view of views.sql is described, and a key given twice is refused."""

from __future__ import annotations

import pytest

from pipeline.contract import CONTRACT_FILE, VIEWS, DuplicateKeyError, column_doc, load_contract
from pipeline.steps import view_statements


def test_every_view_in_views_sql_is_in_the_contract_and_no_other():
    assert set(view_statements()) == set(VIEWS)


def test_a_column_given_twice_is_refused_with_its_lines():
    text = CONTRACT_FILE.read_text(encoding="utf-8")
    twice = text.replace("\ncolumns:\n", "\ncolumns:\n  gpu_id: first meaning\n  gpu_id: second meaning\n", 1)
    with pytest.raises(DuplicateKeyError, match=r"key 'gpu_id' given twice"):
        load_contract(twice)


def test_a_view_may_give_a_column_its_own_meaning():
    contract = load_contract(
        "views:\n  v:\n    grain: g\n    holds: h\n    columns:\n      scope: own\ncolumns:\n  scope: shared\n"
    )
    assert contract["views"]["v"]["columns"]["scope"] == "own"
    assert column_doc("price_offers", "scope").startswith("full (the provider's whole list)")
    assert column_doc("no_such_view", "no_such_column") is None
