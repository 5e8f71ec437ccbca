"""The rating chart on a 360 px phone: the phone's drawing (rankings.queries.PHONE_CHART) is the
one shown, its axis labels at least 12 px on the screen, the laptop's drawing hidden; on a laptop
the other way round."""


def shown_label_px(page) -> list[float]:
    """The on-screen size of each visible chart label: its font size in the drawing's units
    times the drawing's scale."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.chart svg')]
          .filter((svg) => svg.getBoundingClientRect().width > 0)
          .flatMap((svg) => {
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return [...svg.querySelectorAll('text.tick')].map(
              (t) => parseFloat(getComputedStyle(t).fontSize) * scale);
          })"""
    )


def test_the_charts_labels_are_readable_on_a_phone(live_server, club, phone, desktop, screenshot):
    player = club["players"]["Amparo Rivas"]
    url = f"{live_server.url}/ranking/jugador/{player.pk}/"
    phone.goto(url)
    assert phone.locator(".chart svg.chart-narrow").is_visible()
    assert not phone.locator(".chart svg.chart-wide").is_visible()
    sizes = shown_label_px(phone)
    assert sizes and min(sizes) >= 12, sizes
    screenshot(phone, "chart-phone-360")
    desktop.goto(url)
    assert desktop.locator(".chart svg.chart-wide").is_visible()
    assert not desktop.locator(".chart svg.chart-narrow").is_visible()
    sizes = shown_label_px(desktop)
    assert sizes and min(sizes) >= 12, sizes
