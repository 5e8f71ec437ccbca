from django.urls import path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from rankings import views

app_name = "rankings"
urlpatterns = [
    path("", views.ranking, name="ranking"),
    path("<year:year>.csv", views.ranking_csv, name="ranking_csv"),
    path("<year:year>.xlsx", views.ranking_xlsx, name="ranking_xlsx"),
    path("<year:year>/partidas.csv", views.ledger_csv, name="ledger_csv"),
    path("<year:year>/partidas.xlsx", views.ledger_xlsx, name="ledger_xlsx"),
    path("jugador/<id:pk>/", views.player, name="player"),
    path("jugador/<id:pk>/historial.csv", views.player_csv, name="player_csv"),
    path("jugador/<id:pk>/contra/<id:other>/", views.head_to_head, name="head_to_head"),
    path("calculadora/", views.calculator, name="calculator"),
    path("calculadora/jugadores/", views.player_search, name="player_search"),
]
