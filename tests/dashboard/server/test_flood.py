"""A live class's bounds per address (dashboard/server/flood.py): new sessions and answers per minute, the window
sliding, IPv6 counted by /64, what was refused told per class, memory bounded; and the bounds' settings."""

from __future__ import annotations

import pytest

from dashboard.server import config, flood
from dashboard.server.flood import LOOPBACK, Flood, address_key


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_address_gets_its_bound_per_minute_and_the_class_is_told_what_was_refused():
    clock = Clock()
    gate = Flood(joins=3, answers=5, clock=clock)
    assert [gate.join("ABCDEF", None) for _ in range(5)] == [True, True, True, False, False]
    assert gate.join("ABCDEF", "192.0.2.7")  # another address is not disturbed
    assert [gate.answer("ABCDEF", "192.0.2.7") for _ in range(6)] == [True] * 5 + [False]
    refused = gate.refused("ABCDEF")
    assert (refused.sessions, refused.answers, refused.addresses) == (2, 1, 2)
    assert refused.sentence() == "2 new sessions and 1 answer from 2 addresses refused in the last minute"
    assert not gate.refused("GHJKMN")
    clock.now += 30
    assert not gate.join("ABCDEF", None)  # the window slides: the first joins are 30 s old
    clock.now += 30.5
    assert gate.join("ABCDEF", None)  # a minute after the first joins: admitted again
    assert gate.refused("ABCDEF").sentence() == "1 new session from one address refused in the last minute"


def test_an_ipv6_machine_counts_by_its_64_network():
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1" and address_key(None) == LOOPBACK
    gate = Flood(joins=2, answers=1, clock=Clock())
    assert [gate.join("ABCDEF", f"2001:db8:1:2::{i}") for i in range(3)] == [True, True, False]


def test_memory_stays_bounded_in_the_addresses(monkeypatch):
    monkeypatch.setattr(flood, "MAX_ADDRESSES", 50)
    clock = Clock()
    gate = Flood(joins=1, answers=1, clock=clock)
    for i in range(500):
        gate.join("ABCDEF", f"198.51.100.{i % 250}" if i < 250 else f"203.0.113.{i % 250}")
    assert len(gate._seen["join"]) <= 50
    clock.now += 61
    gate.join("ABCDEF", "192.0.2.1")
    assert len(gate._seen["join"]) == 1  # idle addresses are forgotten


@pytest.mark.parametrize("name, default", [("RANKSCOPE_CLASS_JOINS", 120), ("RANKSCOPE_CLASS_ANSWERS", 360),
                                           ("RANKSCOPE_CLASS_CHANGES", 20)])
def test_the_bounds_are_settings_with_defaults_and_one_line_refusals(name, default):
    assert config.class_bound(name, {}) == default
    assert config.class_bound(name, {name: " 7 "}) == 7
    for bad in ("0", "-3", "1.5", "many", "9" * 12):
        with pytest.raises(config.SettingError, match=f"^{name}: expected a whole number from 1 to"):
            config.class_bound(name, {name: bad})
