"""A player's own pages (tournaments/views/account.py): their page, claiming their player record,
and the notices' unsubscribe link. Django's password reset pages are in clubsite/urls.py (their
names are Django's: password_reset, password_reset_done, password_reset_confirm,
password_reset_complete)."""

from django.urls import path

from tournaments.views import account

app_name = "account"
urlpatterns = [
    path("cuenta/", account.home, name="home"),
    path("cuenta/jugador/", account.claim, name="claim"),
    path("cuenta/companero/", account.partner_answer, name="partner_answer"),
    path("cuenta/jugador/<str:token>/", account.claim_link, name="claim_link"),
    path("avisos/baja/<str:token>/", account.unsubscribe, name="unsubscribe"),
]
