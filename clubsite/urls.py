"""Top-level URLs: public pages, the directors' pages under /gestion/, the Django admin."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("", include("tournaments.urls_public")),
    path("ranking/", include("rankings.urls")),
    path("gestion/", include("tournaments.urls_manage")),
    path("entrar/", auth_views.LoginView.as_view(), name="login"),
    path("salir/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
