"""The redaction rule on every form a location's secret can take, and on text that holds no location."""

from __future__ import annotations

import pytest

from metrics.io.redaction import MASK, redact, redact_all

SECRET = "Zq7Secret"
CASES = [  # (location holding SECRET, what must stay of it)
    (f"postgresql://alice:{SECRET}@db.example:5432/rankscope", "postgresql://***@db.example:5432/rankscope"),
    (f"postgresql://alice:{SECRET}@x@db:5432/rs", "postgresql://***@db:5432/rs"),  # a password holding @
    (f"postgresql://alice:p@{SECRET}@db/rs", "postgresql://***@db/rs"),
    (f"postgresql://{SECRET}@db/rs", "postgresql://***@db/rs"),  # a token as user name
    (f"postgresql://alice:{SECRET}%40x@db/rs", "postgresql://***@db/rs"),  # percent-encoded
    (f"postgresql://alice:a/b?{SECRET}#c@db/rs", "postgresql://***@db/rs"),  # /, ? and # in the password
    (f"postgresql://db/rs?password={SECRET}", "postgresql://db/rs?password=***"),
    (f"postgresql://db/rs?sslmode=require&sslpassword={SECRET}", "postgresql://db/rs?sslmode=require&sslpassword=***"),
    (f"postgresql://db/rs?token={SECRET}&application_name=rs", "postgresql://db/rs?token=***&application_name=rs"),
    (f"postgresql://db/rs?key={SECRET};secret={SECRET}", "postgresql://db/rs?key=***;secret=***"),
    (f"postgresql://db/rs?pasword={SECRET}", "postgresql://db/rs?pasword=***"),  # a misspelt name
    (f"postgresql://db/rs?{SECRET}", "postgresql://db/rs?***"),  # a value without a name
    (f"https://host/run.gz#access_token={SECRET}", "https://host/run.gz#access_token=***"),
    (f"postgresq://alice:{SECRET}@db/rs", "postgresq://***@db/rs"),  # a typo in the scheme
    (f"postgresql+asyncpg://alice:{SECRET}@db/rs", "postgresql+asyncpg://***@db/rs"),  # another driver
    (f"POSTGRES://alice:{SECRET}@db/rs", "POSTGRES://***@db/rs"),
    (f"s3://bucket/prefix?X-Amz-Signature={SECRET}", "s3://bucket/prefix?X-Amz-Signature=***"),
    (f"ftp://alice:{SECRET}@127.0.0.1:21/stored", "ftp://***@127.0.0.1:21/stored"),
    (f"tcp://alice:{SECRET}@10.0.0.5:8786", "tcp://***@10.0.0.5:8786"),
    (f"postgresql://alice:{SECRET}@127.0.0.1:notaport/db", "postgresql://***@127.0.0.1:notaport/db"),
    (f"postgresql://alice:{SECRET}@[::1/db", "postgresql://***@[::1/db"),
]


@pytest.mark.parametrize("location, shown", CASES)
def test_a_secret_is_masked_however_the_location_holds_it(location, shown):
    assert redact(location) == shown
    for text in (f"workspace {location}: cannot be used", f"cannot open '{location}'", f"--workspace={location}",
                 f'"{location}" (and more)'):
        masked = redact(text)
        assert SECRET not in masked and MASK in masked, masked


def test_text_without_a_location_and_shown_settings_stay_as_they_are():
    for text in ("/srv/rankscope/workspace", "sqlite:///tmp/ws.db", "a@b.example wrote: x=1&y=2", "bm25.run:17: found 5",
                 "postgresql://db:5432/rs?sslmode=require&connect_timeout=10"):
        assert redact(text) == text
    assert redact("see http://a.example/x and postgresql://u:pw@h/d") == "see http://a.example/x and postgresql://***@h/d"
    assert redact_all(["report", "--workspace", f"postgresql://u:{SECRET}@h/d"]) == [
        "report", "--workspace", "postgresql://***@h/d"]


def test_the_rule_is_linear_in_the_text():
    long = "x://" + "@?=&" * 200_000
    assert redact(long).startswith("x://***@")


def test_a_name_with_a_query_has_its_values_masked():
    assert redact(f"good.run?token={SECRET}") == "good.run?token=***"
    assert redact(f"cannot read 'runs/good.run?key={SECRET}&sslmode=require': gone") == \
        "cannot read 'runs/good.run?key=***&sslmode=require': gone"
    for text in ("why? because", "a?b", "P@10? yes", "x=1&y=2"):  # no parameter after the ?: not a query
        assert redact(text) == text


# what libraries said about a location, repeating it in part: (location, the library's message)
LIBRARY_MESSAGES = [
    (f"memory://user:{SECRET}@x/run?token={SECRET}2",  # fsspec: the path without its scheme
     f"[Errno 2] No such file: /user:{SECRET}@x/run?token={SECRET}2"),
    (f"tcp://u:{SECRET}@host?token={SECRET}2",  # Dask: what follows the last ':' read as a port
     f"invalid literal for int() with base 10: '{SECRET}@host?token={SECRET}2'"),
    (f"ftp://rankscope:{SECRET}@127.0.0.1:21/stored", f"530 Login incorrect for rankscope:{SECRET}"),
    (f"postgresql://db/rs?password={SECRET}", f'invalid connection option "password={SECRET}"'),
    (f"s3://bucket/run?X-Amz-Signature={SECRET}", f"signature {SECRET} does not match"),
]


@pytest.mark.parametrize("location, message", LIBRARY_MESSAGES)
def test_a_library_message_that_repeats_a_location_in_part_is_masked_knowing_it(location, message):
    masked = redact(message, location)
    assert SECRET not in masked and MASK in masked, masked


def test_without_the_location_the_rule_cannot_find_a_secret_a_library_cut_from_it():
    for location, message in LIBRARY_MESSAGES[:3]:
        assert SECRET in redact(message)


def test_the_pieces_of_a_location_are_only_its_secrets():
    location = "postgresql://alice:Pw9x@db:5432/rs?sslmode=require&token=T0k3n"
    assert redact("alice connects to db:5432 with sslmode=require", location) == \
        "alice connects to db:5432 with sslmode=require"  # user name, host, port and shown settings stay
    assert redact("user alice:Pw9x, password Pw9x, token T0k3n!", location) == "user ***, password ***, token ***!"
