"""What one address may cost a live class: new student sessions and answers per minute, counted per server process.

A student's page is open to whoever has the class's code, without an account, so one machine could open
hundreds of sessions and answer from each: every new session costs the server a page run and a row of
answers, and the teacher's count would count them all. :class:`Flood` keeps, for each address, the times of
its latest admissions in a sliding window of :data:`WINDOW` seconds, and refuses past the bound: at most
``joins`` new student sessions and ``answers`` answers per address per minute (settings of
:mod:`dashboard.server.config`). What it refused is counted per class, for the teacher's screen
(:meth:`Flood.refused`).

**The address** is the TCP peer of the browser's connection, as Streamlit reports it (``st.context.ip_address``,
None on loopback, counted as one address :data:`LOOPBACK`); a header such as ``X-Forwarded-For`` is never read,
since anyone can write one. IPv6 addresses count by their /64 network, the block one machine is usually given.
Behind a reverse proxy every student comes from the proxy's address: raise the bounds to the class's size
there. A class behind one NAT (a school's network) is one address too: the defaults let 120 students join in a
minute.

Memory is bounded: each address keeps at most its bound's number of times, an address idle for a window is
forgotten, at most :data:`MAX_ADDRESSES` are kept (the oldest dropped first), and each class keeps its refusals
of the last window only. Nothing here imports Streamlit; the pages pass the address and the clock is injectable.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["LOOPBACK", "MAX_ADDRESSES", "WINDOW", "Flood", "Refused", "address_key"]

WINDOW = 60.0  # seconds: the bounds are per address per minute
LOOPBACK = "loopback"  # the address of a connection from this machine (Streamlit reports None)
MAX_ADDRESSES = 100_000  # addresses remembered at once; the oldest is dropped past it
MAX_CLASSES = 10_000  # classes whose refusals are remembered at once


def address_key(ip: str | None) -> str:
    """The address one counts by: :data:`LOOPBACK` for None, an IPv6 address's /64 network, an IPv4 address."""
    if not ip:
        return LOOPBACK
    try:
        found = ipaddress.ip_address(ip)
    except ValueError:
        return str(ip)[:64]
    if found.version == 6:
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.ip_network(f"{found}/64", strict=False))
    return str(found)


@dataclass(frozen=True)
class Refused:
    """What a class refused in the last window: ``sessions`` (new student sessions) and ``answers``, from how
    many ``addresses``."""

    sessions: int = 0
    answers: int = 0
    addresses: int = 0

    def __bool__(self) -> bool:
        return bool(self.sessions or self.answers)

    def sentence(self) -> str:
        """``12 new sessions and 3 answers from one address refused in the last minute``."""
        parts = [f"{n} {what}{'' if n == 1 else 's'}" for n, what in ((self.sessions, "new session"),
                                                                      (self.answers, "answer")) if n]
        where = "one address" if self.addresses == 1 else f"{self.addresses} addresses"
        return f"{' and '.join(parts)} from {where} refused in the last minute"


class Flood:
    """The bounds of one server process: ``joins`` new student sessions and ``answers`` answers per address per
    :data:`WINDOW` seconds. Safe to use from every session's thread."""

    def __init__(self, joins: int, answers: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.bounds = {"join": int(joins), "answer": int(answers)}
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, OrderedDict[str, deque]] = {kind: OrderedDict() for kind in self.bounds}
        self._refused: OrderedDict[str, deque] = OrderedDict()  # code -> (time, kind, address)

    def join(self, code: str, ip: str | None) -> bool:
        """Whether a new student session from ``ip`` may join class ``code`` now (counted when it may)."""
        return self._admit("join", code, ip)

    def answer(self, code: str, ip: str | None) -> bool:
        """Whether an answer from ``ip`` to class ``code`` may be taken now (counted when it may)."""
        return self._admit("answer", code, ip)

    def _admit(self, kind: str, code: str, ip: str | None) -> bool:
        key, now = address_key(ip), self._clock()
        with self._lock:
            seen = self._seen[kind]
            times = seen.pop(key, None) or deque(maxlen=max(self.bounds[kind], 1))
            self._forget(seen, now)
            seen[key] = times  # the address used most recently last
            while times and now - times[0] >= WINDOW:
                times.popleft()
            if len(times) < self.bounds[kind]:
                times.append(now)
                return True
            kept = self._refused.pop(code, None) or deque(maxlen=4 * MAX_ADDRESSES)
            kept.append((now, kind, key))
            self._refused[code] = kept
            while len(self._refused) > MAX_CLASSES:
                self._refused.popitem(last=False)
            return False

    @staticmethod
    def _forget(seen: OrderedDict, now: float) -> None:
        """Drop the addresses idle for a window (the oldest first), and the oldest past :data:`MAX_ADDRESSES`."""
        while seen:
            oldest = next(iter(seen.values()))
            if len(seen) < MAX_ADDRESSES and oldest and now - oldest[-1] < WINDOW:
                return
            seen.popitem(last=False)

    def refused(self, code: str) -> Refused:
        """What class ``code`` refused in the last :data:`WINDOW` seconds."""
        now = self._clock()
        with self._lock:
            kept = self._refused.get(code)
            while kept and now - kept[0][0] >= WINDOW:
                kept.popleft()
            recent = list(kept or ())
        return Refused(sum(k == "join" for _, k, _ in recent), sum(k == "answer" for _, k, _ in recent),
                       len({a for _, _, a in recent}))
