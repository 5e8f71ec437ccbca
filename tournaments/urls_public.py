from django.urls import path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from tournaments.views import public

app_name = "public"
urlpatterns = [
    path("", public.home, name="home"),
    path("torneos/", public.tournament_list, name="tournaments"),
    path("torneos/<slug:slug>/", public.tournament_detail, name="tournament"),
    path("torneos/<slug:slug>/mesa/", public.find_table, name="find_table"),
    path("torneos/<slug:slug>/clasificacion/", public.standings, name="standings"),
    path("torneos/<slug:slug>/clasificacion.csv", public.standings_csv, name="standings_csv"),
    path("torneos/<slug:slug>/clasificacion.xlsx", public.standings_xlsx, name="standings_xlsx"),
    path("torneos/<slug:slug>/ronda/<number:number>/", public.round_detail, name="round"),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/imprimir/",
        public.round_print,
        name="round_print",
    ),
]
