"""Compression of large answers without secrets (clubsite/compression.py): compressed when
accepted, to the same page; not for pages with a CSRF token or a logged-in reader, not below
the size threshold; ``Vary: Accept-Encoding``; weak ETags that still revalidate (304, empty);
HEAD empty; a cached page compressed once per process."""

import datetime as dt
import gzip

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from clubsite import compression, pagecache
from tests import builders

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh():
    compression.forget()
    yield
    compression.forget()


@pytest.fixture
def big_list():
    """A tournament list long enough to be well over ``MIN_SIZE``."""
    for i in range(30):
        builders.tournament(
            name=f"Copa Número {i:02}",
            date=timezone.localdate() + dt.timedelta(days=i + 1),
            status="registration",
        )
    return reverse("public:tournaments")


def vary(response) -> set[str]:
    return {v.strip() for v in response.get("Vary", "").split(",")}


def test_a_large_public_page_is_gzipped_when_accepted_to_the_same_bytes(big_list):
    plain = Client().get(big_list)
    assert "Content-Encoding" not in plain and len(plain.content) > compression.MIN_SIZE
    assert "Accept-Encoding" in vary(plain)
    packed = Client().get(big_list, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in vary(packed)
    assert gzip.decompress(packed.content) == plain.content
    assert int(packed["Content-Length"]) == len(packed.content) < len(plain.content) // 3


@pytest.mark.skipif(compression.brotli is None, reason="brotli is not installed")
def test_brotli_when_accepted_and_gzip_when_br_is_refused(big_list):
    plain = Client().get(big_list).content
    packed = Client().get(big_list, HTTP_ACCEPT_ENCODING="gzip, br")
    assert packed["Content-Encoding"] == "br"
    assert compression.brotli.decompress(packed.content) == plain
    refused = Client().get(big_list, HTTP_ACCEPT_ENCODING="br;q=0, gzip")
    assert refused["Content-Encoding"] == "gzip"


def test_accept_encoding_is_read_with_its_weights():
    assert compression.accepted("gzip, deflate, br") == {"gzip", "deflate", "br"}
    assert compression.accepted("gzip;q=0, br;q=0.5") == {"br"}
    assert compression.accepted("*;q=0.1, br;q=0") == {"gzip"}
    assert compression.accepted("identity") == {"identity"}
    assert compression.choose("identity, gzip;q=0") is None
    assert compression.choose("") is None


def test_the_calendar_feed_is_compressed(big_list):
    feed = Client().get(reverse("public:calendar_ics"), HTTP_ACCEPT_ENCODING="gzip")
    assert feed["Content-Encoding"] == "gzip"
    assert gzip.decompress(feed.content).startswith(b"BEGIN:VCALENDAR")


def test_no_compression_for_a_page_with_a_csrf_token_or_a_logged_in_reader(
    big_list, director_client
):
    login = Client().get(reverse("login"), HTTP_ACCEPT_ENCODING="gzip")
    assert login.status_code == 200 and b"csrfmiddlewaretoken" in login.content
    assert len(login.content) > compression.MIN_SIZE
    assert "Content-Encoding" not in login and "Accept-Encoding" not in vary(login)
    mine = director_client.get(big_list, HTTP_ACCEPT_ENCODING="gzip")
    assert mine.status_code == 200 and len(mine.content) > compression.MIN_SIZE
    assert "Content-Encoding" not in mine
    manage = director_client.get(reverse("manage:home"), HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in manage


def test_no_compression_below_the_threshold():
    empty = Client().get(reverse("rankings:player_search"), HTTP_ACCEPT_ENCODING="gzip")
    assert empty.status_code == 200 and len(empty.content) < compression.MIN_SIZE
    assert "Content-Encoding" not in empty and "Accept-Encoding" not in vary(empty)


def test_head_stays_empty_and_compressed_like_get(big_list):
    head = Client().head(big_list, HTTP_ACCEPT_ENCODING="gzip")
    assert head.status_code == 200 and head.content == b""
    assert head["Content-Encoding"] == "gzip" and int(head["Content-Length"]) > 0


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_a_cached_page_has_a_weak_etag_that_revalidates_and_is_compressed_once(
    big_list, monkeypatch
):
    pagecache.clear_local()
    plain = Client().get(big_list)
    strong = plain["ETag"]
    assert strong.startswith('"')
    made = []
    real = compression.compress
    monkeypatch.setattr(
        compression, "compress", lambda body, coding: made.append(1) or real(body, coding)
    )
    first = Client().get(big_list, HTTP_ACCEPT_ENCODING="gzip")
    second = Client().get(big_list, HTTP_ACCEPT_ENCODING="gzip")
    assert first["ETag"] == second["ETag"] == "W/" + strong
    assert first.content == second.content and len(made) == 1  # compressed once
    assert gzip.decompress(second.content) == plain.content
    again = Client().get(big_list, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", "W/" + strong)
    head = Client().head(big_list, HTTP_ACCEPT_ENCODING="gzip")  # the same stored page
    assert (head.content, head["Content-Length"]) == (b"", str(len(first.content)))
    plain_again = Client().get(big_list, HTTP_IF_NONE_MATCH=strong)
    assert (plain_again.status_code, plain_again["ETag"]) == (304, strong)
