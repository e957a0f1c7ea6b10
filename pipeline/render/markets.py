"""The China-mainland market, as the pages tell it apart: its picks carry the suffix "(China mainland)"
(`price_picks`), its offers and providers the market `cn-mainland` (`price_offers.market`). The Chinese edition
shows that market's rows first, each market in the order its query gave."""

from __future__ import annotations

from . import i18n

CHINA_PICK = "(China mainland)"  # the suffix of the China-mainland market's picks (prices/queries.sql: picks)
CHINA_MARKET = "cn-mainland"  # price_offers.market of the mainland-China providers (priced in CNY)


def china_first(rows: list, is_china) -> list:
    """In the Chinese edition, the China-mainland market's rows first, then the global ones, each in the order
    given; in English the order given."""
    if i18n.current() != "zh":
        return rows
    return sorted(rows, key=lambda r: not is_china(r))  # stable: each market keeps its order


def is_china_pick(p) -> bool:
    return isinstance(p.pick, str) and p.pick.endswith(CHINA_PICK)


def is_china_offer(o) -> bool:
    return getattr(o, "market", None) == CHINA_MARKET


def is_china_provider(p) -> bool:
    """A provider row whose markets (a list joined by ', ') are the China-mainland market's."""
    return CHINA_MARKET in str(getattr(p, "markets", "")).split(", ")
