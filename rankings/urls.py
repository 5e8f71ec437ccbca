from django.urls import path

from rankings import views

app_name = "rankings"
urlpatterns = [
    path("", views.ranking, name="ranking"),
    path("<int:year>.csv", views.ranking_csv, name="ranking_csv"),
    path("jugador/<int:pk>/", views.player, name="player"),
    path("jugador/<int:pk>/historial.csv", views.player_csv, name="player_csv"),
    path("calculadora/", views.calculator, name="calculator"),
]
