from django.urls import path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from tournaments.views import calendar as calendar_views
from tournaments.views import checkin, leagues, paper, public, signups
from tournaments.views import clock as clock_views

app_name = "public"
urlpatterns = [
    path("", public.home, name="home"),
    path("torneos/", public.tournament_list, name="tournaments"),
    path("calendario/", calendar_views.calendar_page, name="calendar"),
    path("calendario.ics", calendar_views.calendar_ics, name="calendar_ics"),
    path("torneos/<slug:slug>/", public.tournament_detail, name="tournament"),
    path("torneos/<slug:slug>/mesa/", public.find_table, name="find_table"),
    path("torneos/<slug:slug>/presente/", checkin.self_check_in, name="check_in"),
    path("torneos/<slug:slug>/inscribirse/", signups.signup, name="signup"),
    path("torneos/<slug:slug>/companero/<str:token>/", signups.partner, name="partner"),
    path("torneos/<slug:slug>/clasificacion/", public.standings, name="standings"),
    path("torneos/<slug:slug>/reloj/", clock_views.clock, name="clock"),
    path("torneos/<slug:slug>/reloj/estado.json", clock_views.clock_state_json, name="clock_state"),
    path("torneos/<slug:slug>/clasificacion.csv", public.standings_csv, name="standings_csv"),
    path("torneos/<slug:slug>/clasificacion.xlsx", public.standings_xlsx, name="standings_xlsx"),
    path("torneos/<slug:slug>/ronda/<number:number>/", public.round_detail, name="round"),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/imprimir/",
        public.round_print,
        name="round_print",
    ),
    # paper for the venue (tournaments/views/paper.py): the QR code and poster for the door,
    # the round by name for the wall, PDFs of it and of the standings
    path("torneos/<slug:slug>/qr.svg", paper.qr, name="qr"),
    path("torneos/<slug:slug>/cartel/", paper.poster, name="poster"),
    path("torneos/<slug:slug>/clasificacion.pdf", paper.standings_pdf, name="standings_pdf"),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/por-nombre/",
        paper.round_by_name,
        name="round_by_name",
    ),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/por-nombre.pdf",
        paper.round_by_name_pdf,
        name="round_by_name_pdf",
    ),
    # leagues (tournaments/views/leagues.py): the seasons' leagues, a league's table and its
    # downloads
    path("ligas/", leagues.league_list, name="leagues"),
    path("ligas/<slug:league>/", leagues.league_detail, name="league"),
    path("ligas/<slug:league>.csv", leagues.league_csv, name="league_csv"),
    path("ligas/<slug:league>.xlsx", leagues.league_xlsx, name="league_xlsx"),
]
