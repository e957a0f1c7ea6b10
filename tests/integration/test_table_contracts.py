"""Every table and public view of the built database against its contract (pipeline/sql/<layer>/<table>.yml; the
raw tables' pandera schemas): the same columns in the same order, of the declared types, each with a meaning; and
every check the contracts declare passes (a warning may list items). One test per table, view and check, named by
it."""

from __future__ import annotations

import pytest

from pipeline.config import ROOT
from pipeline.tables import tables, views

pytestmark = pytest.mark.integration


def built_columns(db, relation: str) -> list[tuple[str, str]]:
    return [(name, kind) for name, kind, *_ in db.execute(f"describe {relation}").fetchall()]


@pytest.mark.parametrize("table", sorted(tables()))
def test_a_built_table_is_what_its_contract_says(db, table):
    contract = tables()[table]
    built = built_columns(db, table)
    assert [name for name, _ in built] == list(contract.columns), f"{table}: columns differ from {contract.contract}"
    undocumented = [c.name for c in contract.columns.values() if not c.description]
    assert undocumented == [], f"{table}: columns without a meaning"
    if contract.layer != "staging":
        assert dict(built) == {c.name: c.type for c in contract.columns.values()}, table
        return
    # a raw table keeps the text as read: each value reads as the type its pandera schema declares
    assert dict(built) == {c: "INTEGER" if c == "source_row" else "VARCHAR" for c in contract.columns}, table
    for column in contract.columns.values():
        if column.type != "VARCHAR":
            bad = db.execute(
                f"select count(*) from {table} where {column.name} is not null and nullif(trim({column.name}::varchar), '') "
                f"is not null and try_cast(trim({column.name}::varchar) as {column.type}) is null"
            ).fetchone()[0]
            assert bad == 0, f"{table}.{column.name}: {bad} values do not read as {column.type}"


@pytest.mark.parametrize("view", sorted(views()))
def test_a_built_view_is_what_its_contract_says(db, view):
    contract = views()[view]
    built = built_columns(db, view)
    for name, kind in built:
        column = contract.column(name)
        assert column is not None and column.description, f"{view}.{name} is not in {contract.table}.yml"
        assert column.type == kind, f"{view}.{name}: {kind}, {contract.table}.yml says {column.type}"
    assert set(contract.own) <= {name for name, _ in built}, f"{view}: declared columns it does not have"
    assert db.execute(f"select count(*) from {view}").fetchone()[0] > 0, view


@pytest.mark.parametrize(
    ("table", "check"), sorted((t.name, c) for t in tables().values() for c, d in t.checks.items() if d.blocking)
)
def test_every_blocking_check_passes_on_the_built_database(db, table, check):
    assert tables()[table].checks[check].problems(db, ROOT / "sources") == []


def test_the_database_holds_every_contracted_table_and_view_and_nothing_else(db):
    relations = {
        r[0]
        for r in db.execute(
            "select table_name from duckdb_tables() union all select view_name from duckdb_views() where not internal"
        ).fetchall()
    }
    assert relations == set(tables()) | set(views())
