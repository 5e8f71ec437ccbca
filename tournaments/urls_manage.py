from django.urls import path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from tournaments.views import checkin, signups
from tournaments.views.manage import clock as clock_views
from tournaments.views.manage import leagues as league_views
from tournaments.views.manage import pairings, players, results
from tournaments.views.manage import tournaments as tournament_views

app_name = "manage"
urlpatterns = [
    path("", players.home, name="home"),
    path("jugadores/", players.player_list, name="players"),
    path("jugadores/nuevo/", players.player_edit, name="player_add"),
    path("jugadores/<id:pk>/", players.player_edit, name="player_edit"),
    path("jugadores/<id:pk>/activo/", players.player_set_active, name="player_set_active"),
    path("jugadores/<id:pk>/borrar/", players.player_delete, name="player_delete"),
    path("jugadores/<id:pk>/anonimizar/", players.player_anonymise, name="player_anonymise"),
    # leagues (tournaments/views/manage/leagues.py): club directors
    path("ligas/", league_views.league_list, name="leagues"),
    path("ligas/nueva/", league_views.league_edit, name="league_add"),
    path("ligas/<slug:league>/", league_views.league_edit, name="league_edit"),
    path("torneos/nuevo/", tournament_views.tournament_edit, name="tournament_add"),
    path("torneos/<slug:slug>/", tournament_views.tournament_manage, name="tournament"),
    path("torneos/<slug:slug>/ajustes/", tournament_views.tournament_edit, name="tournament_edit"),
    path("torneos/<slug:slug>/paso/", tournament_views.tournament_step, name="tournament_step"),
    path("torneos/<slug:slug>/inscripciones/", tournament_views.entry_add, name="entry_add"),
    path(
        "torneos/<slug:slug>/inscripciones/<id:entry_id>/quitar/",
        tournament_views.entry_remove,
        name="entry_remove",
    ),
    path(
        "torneos/<slug:slug>/inscripciones/<id:entry_id>/retirar/",
        tournament_views.entry_drop,
        name="entry_drop",
    ),
    path("torneos/<slug:slug>/presentes/", checkin.check_in, name="check_in"),
    path("torneos/<slug:slug>/solicitudes/", signups.signups, name="signups"),
    path("torneos/<slug:slug>/todos-con-todos/", tournament_views.round_robin, name="round_robin"),
    path("torneos/<slug:slug>/importar/", tournament_views.import_file, name="import"),
    path(
        "torneos/<slug:slug>/importar/<id:job_id>/",
        tournament_views.import_job,
        name="import_job",
    ),
    path(
        "torneos/<slug:slug>/importar/<id:job_id>/reintentar/",
        tournament_views.import_retry,
        name="import_retry",
    ),
    path("torneos/<slug:slug>/sorteo/", tournament_views.sorteo, name="sorteo"),
    path("torneos/<slug:slug>/ronda/<number:number>/", results.round_manage, name="round"),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/emparejamientos/",
        pairings.pairings,
        name="pairings",
    ),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/cerrar/", results.round_close, name="round_close"
    ),
    path("torneos/<slug:slug>/ronda/<number:number>/reloj/", clock_views.round_clock, name="clock"),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/castigos/",
        results.castigo_add,
        name="castigo_add",
    ),
    path(
        "torneos/<slug:slug>/ronda/<number:number>/castigos/<id:castigo_id>/quitar/",
        results.castigo_remove,
        name="castigo_remove",
    ),
    path(
        "torneos/<slug:slug>/mesa/<id:table_id>/resultado/",
        results.result_save,
        name="result_save",
    ),
]
