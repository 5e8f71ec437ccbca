from django.urls import path

from tournaments.views import manage

app_name = "manage"
urlpatterns = [
    path("", manage.home, name="home"),
    path("jugadores/", manage.player_list, name="players"),
    path("jugadores/nuevo/", manage.player_edit, name="player_add"),
    path("jugadores/<int:pk>/", manage.player_edit, name="player_edit"),
    path("jugadores/<int:pk>/activo/", manage.player_set_active, name="player_set_active"),
    path("jugadores/<int:pk>/borrar/", manage.player_delete, name="player_delete"),
    path("torneos/nuevo/", manage.tournament_edit, name="tournament_add"),
    path("torneos/<slug:slug>/", manage.tournament_manage, name="tournament"),
    path("torneos/<slug:slug>/ajustes/", manage.tournament_edit, name="tournament_edit"),
    path("torneos/<slug:slug>/inscripciones/", manage.entry_add, name="entry_add"),
    path("torneos/<slug:slug>/inscripciones/<int:entry_id>/quitar/", manage.entry_remove, name="entry_remove"),
    path("torneos/<slug:slug>/inscripciones/<int:entry_id>/retirar/", manage.entry_drop, name="entry_drop"),
    path("torneos/<slug:slug>/todos-con-todos/", manage.round_robin, name="round_robin"),
    path("torneos/<slug:slug>/importar/", manage.import_file, name="import"),
    path("torneos/<slug:slug>/sorteo/", manage.sorteo, name="sorteo"),
    path("torneos/<slug:slug>/ronda/<int:number>/", manage.round_manage, name="round"),
    path("torneos/<slug:slug>/ronda/<int:number>/emparejamientos/", manage.pairings, name="pairings"),
    path("torneos/<slug:slug>/ronda/<int:number>/cerrar/", manage.round_close, name="round_close"),
    path("torneos/<slug:slug>/ronda/<int:number>/castigos/", manage.castigo_add, name="castigo_add"),
    path(
        "torneos/<slug:slug>/ronda/<int:number>/castigos/<int:castigo_id>/quitar/",
        manage.castigo_remove, name="castigo_remove",
    ),
    path("torneos/<slug:slug>/mesa/<int:table_id>/resultado/", manage.result_save, name="result_save"),
]
