"""make demo's address for the links in messages (clubsite.env.served_site_url, demo_exports):
HOST=0.0.0.0:PORT means every address of the machine, which no phone can open."""

from clubsite.env import demo_exports, served_site_url


def test_a_loopback_host_is_the_sites_address():
    assert served_site_url("127.0.0.1:8001") == "http://127.0.0.1:8001"
    assert served_site_url("8002", local_address=lambda: "10.0.0.7") == "http://10.0.0.7:8002"


def test_every_address_becomes_the_machines_address_on_its_network():
    assert served_site_url("0.0.0.0:8000", local_address=lambda: "192.168.1.20") == (
        "http://192.168.1.20:8000"
    )
    assert served_site_url("[::]:8000", local_address=lambda: "192.168.1.20") == (
        "http://192.168.1.20:8000"
    )


def test_demo_exports_allow_that_address_and_keep_what_is_set(monkeypatch):
    monkeypatch.setattr("clubsite.env.machine_address", lambda: "192.168.1.20")
    assert demo_exports("0.0.0.0:8000", environ={}) == [
        "export DJANGO_SITE_URL='http://192.168.1.20:8000'",
        "export DJANGO_ALLOWED_HOSTS='localhost,127.0.0.1,[::1],testserver,192.168.1.20'",
    ]
    assert demo_exports("127.0.0.1:8000", environ={}) == [
        "export DJANGO_SITE_URL='http://127.0.0.1:8000'"
    ]
    set_already = {"DJANGO_SITE_URL": "https://club.example.org", "DJANGO_ALLOWED_HOSTS": "x"}
    assert demo_exports("0.0.0.0:8000", environ=set_already) == []


def test_make_demo_uses_them_and_creates_the_cache_table_quietly():
    from pathlib import Path

    demo = Path(__file__).resolve().parents[1].joinpath("Makefile").read_text()
    recipe = demo.split("\ndemo: setup\n", 1)[1].split("\n\n", 1)[0]
    assert "manage.py createcachetable --verbosity 0" in recipe
    assert "-m clubsite.env '$(HOST)'" in recipe
