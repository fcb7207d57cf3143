"""Ended sign-ins (schema 11): a sign-out recorded by its key, seen by every process that opens the workspace."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import create_engine, text

from workspace import WorkspaceError
from workspace.engine import resolve
from workspace.sign_ins import KEEP_DAYS, SignIns, key_of

CLAIMS = {"iss": "https://login.example.org", "sub": "ana@example.org", "aud": "rankscope", "iat": 1767225600,
          "exp": 1767229200, "nonce": "n0nce", "email": "ana@example.org", "email_verified": True}


def test_a_sign_in_is_keyed_by_what_makes_it_one_and_never_by_the_rest():
    key = key_of(CLAIMS)
    assert len(key) == 64 and CLAIMS["sub"] not in key
    assert key_of({**CLAIMS, "exp": 1, "email": "other@example.org", "name": "Ana"}) == key  # not what makes it one
    assert key_of({**CLAIMS, "iat": CLAIMS["iat"] + 1}) != key  # the next sign-in of the same person
    assert key_of({**CLAIMS, "nonce": "other"}) != key
    assert key_of({**CLAIMS, "sub": "bea@example.org"}) != key
    for missing in ("sub", "iat"):
        with pytest.raises(WorkspaceError, match="expected an identity token with a subject"):
            key_of({k: v for k, v in CLAIMS.items() if k != missing})


def test_an_ended_sign_in_is_ended_for_every_process_and_the_next_one_is_not(target):
    key, next_key = key_of(CLAIMS), key_of({**CLAIMS, "iat": CLAIMS["iat"] + 60, "nonce": "n1"})
    with target.open() as one, target.open() as other:  # two server processes on one workspace
        assert not SignIns(other).ended(key)
        SignIns(one).end(key)
        SignIns(one).end(key)  # twice: once
        assert SignIns(other).ended(key) and not SignIns(other).ended(next_key)
    for bad in ("", "x" * 64, key.upper(), key + "0", None):
        with target.open() as ws, pytest.raises(WorkspaceError, match="expected 64 hexadecimal digits"):
            SignIns(ws).ended(bad)


def test_keys_past_their_time_go_at_the_next_sign_out(target):
    old, new = key_of(CLAIMS), key_of({**CLAIMS, "iat": CLAIMS["iat"] + 1})
    with target.open() as ws:
        SignIns(ws).end(old)
    engine = create_engine(resolve(target.location, target.files).url)
    past = (datetime.now(timezone.utc) - timedelta(days=KEEP_DAYS + 1)).isoformat()
    with engine.begin() as conn:
        conn.execute(text("UPDATE ended_sign_ins SET expires_at = :t"), {"t": past})
    with target.open() as ws:
        assert SignIns(ws).ended(old)  # kept until a sign-out removes it: a cookie that old is refused anyway
        SignIns(ws).end(new)
        assert not SignIns(ws).ended(old) and SignIns(ws).ended(new)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM ended_sign_ins")).scalar_one() == 1
    engine.dispose()
