"""Browser tests: Playwright (sync API) drives Debian's Chromium (/usr/bin/chromium) against
pytest-django's ``live_server``. Playwright never downloads a browser here.

Without /usr/bin/chromium the browser tests are skipped with the reason shown, except in CI
(the environment variable CI set), where a missing browser is a failure: ``make test`` installs
it (apt-get install chromium).
"""

import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM would then refuse to
# run (SynchronousOnlyOperation) although every call here is synchronous.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1280, "height": 900}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


def pytest_collection_modifyitems(items):
    """The browser tests see the site as it runs: with the public pages' cache on."""
    for item in items:
        if "/browser/" in str(item.path):
            item.add_marker(pytest.mark.page_cache)


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(
            f"{reason} (CI is set: the browser tests must run; `make test` installs chromium)",
            pytrace=False,
        )
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole run."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing: apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is missing: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
        )
        yield chromium
        chromium.close()


def _context(browser, viewport, **extra):
    context = browser.new_context(
        viewport=viewport, locale="es-ES", timezone_id="America/Mexico_City", **extra
    )
    context.set_default_timeout(15_000)
    return context


@pytest.fixture
def phone(browser, transactional_db):
    """A phone-sized page (360×780, touch)."""
    context = _context(browser, PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    yield context.new_page()
    context.close()


@pytest.fixture
def desktop(browser, transactional_db):
    """A laptop-sized page (1280 px wide)."""
    context = _context(browser, DESKTOP)
    yield context.new_page()
    context.close()


@pytest.fixture
def screenshot():
    """``screenshot(page, name)``: a full-page PNG in test-artifacts/screenshots/ (git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def assert_no_sideways_scroll(page, width: int = PHONE["width"]) -> None:
    """The page never scrolls sideways on a phone, and no table needs a sideways swipe inside
    its .table-scroll box either: every table ends inside the screen."""
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, (
        f"{page.url}: the page is {scroll_width}px wide on a {width}px screen"
    )
    wide = page.evaluate(
        """(width) => [...document.querySelectorAll('table')]
             .map((t) => t.getBoundingClientRect())
             .filter((r) => r.width > 0 && r.right > width + 0.5)
             .map((r) => Math.round(r.right))""",
        width,
    )
    assert wide == [], f"{page.url}: tables end at x = {wide} on a {width}px screen"


@pytest.fixture
def no_sideways_scroll():
    return assert_no_sideways_scroll


PAIRS = [
    ("Amparo Rivas", "Bruno Salcedo"),
    ("Celia Quintana", "Dámaso Olmedo"),
    ("Esther Naranjo", "Fermín Lobato"),
    ("Gloria Herrán", "Horacio Ibarra"),
    ("Inés Jaramillo", "Julián Kessler"),
    ("Lucía Mendaro", "Marcos Ñeco"),
    ("Nieves Ortuño", "Octavio Prado"),
]


@pytest.fixture
def club(director):
    """A dominó club as the browser sees it: a finished tournament earlier this year (so this
    year's ranking has players) and "Copa del Faro", running, seven pairs to 100 with a time
    limit; round 1 paired on three tables (the seventh pair rests), no result yet."""
    import datetime as dt

    from django.utils import timezone

    from tests import builders

    by = {"acting_user": director}
    today = timezone.localdate()
    names = [name for pair in PAIRS for name in pair]
    players = dict(zip(names, builders.players(names, **by), strict=True))

    def register(t):
        return [builders.entry(t, [players[a], players[b]], **by) for a, b in PAIRS]

    earlier = builders.tournament(
        name="Torneo de la Vendimia",
        date=today - dt.timedelta(days=30),
        mode="pairs",
        target=100,
        **by,
    )
    old = register(earlier)
    tables = [(old[0], old[6]), (old[1], old[5]), (old[2], old[4])]
    results = [builders.tantos(100, 35 + 20 * i) for i in range(3)]
    builders.play(earlier, 1, tables, results, version=0, close=True, **by)
    builders.finish(earlier, **by)

    t = builders.tournament(
        name="Copa del Faro",
        date=today,
        venue="Casino del Puerto",
        mode="pairs",
        target=100,
        time_limit=30,
        **by,
    )
    entries = register(t)
    builders.pair(
        t, 1, [(entries[0], entries[1]), (entries[2], entries[3]), (entries[4], entries[5])], **by
    )
    t.refresh_from_db()
    return {"t": t, "entries": entries, "players": players}


@pytest.fixture
def expect(browser):
    """Playwright's auto-waiting assertions (imported once the browser is known to be there)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


@pytest.fixture
def login(live_server):
    """``login(page)``: sign the test director in through the login form."""

    def sign_in(page, username="directora", password="clave-de-prueba-1"):
        page.goto(f"{live_server.url}/entrar/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(lambda url: "/entrar/" not in url)

    return sign_in
