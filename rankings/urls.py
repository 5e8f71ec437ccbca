from django.urls import path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from rankings import views

app_name = "rankings"
urlpatterns = [
    path("", views.ranking, name="ranking"),
    path("<year:year>.csv", views.ranking_csv, name="ranking_csv"),
    path("jugador/<id:pk>/", views.player, name="player"),
    path("jugador/<id:pk>/historial.csv", views.player_csv, name="player_csv"),
    path("calculadora/", views.calculator, name="calculator"),
]
