"""Where a user lands after logging in (/entrar/): a page their role may see, never a 403.

- club directors (the "Directores" group) and superusers: the directors' home (/gestion/);
- a user who directs some tournaments only (listed in ``Tournament.directors``): the directors'
  home too, which lists just their tournaments (``can_enter_manage_area``);
- anyone else (a player's account, a staff user who directs nothing): the public home.

A ``next`` (the page that sent them to log in) is followed only when it is on this site
(Django's host and scheme check: ``//other.example/`` or ``https://other.example/`` never) and
the user may open it (``may_open``); otherwise the role's landing page is used.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.urls import Resolver404, resolve, reverse
from django.utils.translation import gettext

from clubsite.limits import release
from tournaments.models import Tournament
from tournaments.permissions import can_enter_manage_area, can_manage, can_see, is_director


def landing_url(user) -> str:
    """The page ``user`` lands on after logging in: ``reverse("manage:home")`` for whoever may
    enter the directors' pages (``can_enter_manage_area``), else ``reverse("public:home")``."""
    if can_enter_manage_area(user):
        return reverse("manage:home")
    return reverse("public:home")


def may_open(request, url: str) -> bool:
    """Whether ``request.user`` may open the local ``url`` (a path, with or without a query),
    by the rules of ``tournaments.permissions`` and the Django admin:

    - a path that matches no URL, the login or logout page, the language switch: False
      (nothing to go back to);
    - a public page of a tournament that does not exist or is a draft the user does not
      manage: False (it would be a 404);
    - a directors' page (namespace ``manage``): ``can_enter_manage_area``; then, for a page of
      one tournament (a ``slug``), ``can_manage`` that tournament (False when it does not
      exist); for the directors' home, True; for the other pages (players, new tournament),
      ``is_director``;
    - an admin page: the admin site's own ``has_permission`` (active staff), then the model
      admin's view/change, add or delete permission, or the app's module permission;
    - any other page (public): True.

    Does not check the host: the caller does (``url_has_allowed_host_and_scheme``)."""
    try:
        match = resolve(urlsplit(url).path)
    except Resolver404:
        return False
    user = request.user
    if match.url_name in ("login", "logout", "set_language") and not match.namespaces:
        return False  # nothing to show there (logging out takes a POST)
    if "admin" in match.namespaces and match.url_name == "logout":
        return False
    slug = match.kwargs.get("slug")
    if slug is not None and "manage" not in match.namespaces and "admin" not in match.namespaces:
        # a public page of a tournament: a draft is shown only to those who manage it
        t = Tournament.objects.filter(slug=slug).first()
        if t is None or not can_see(user, t):
            return False
    if "manage" in match.namespaces:
        if not can_enter_manage_area(user):
            return False
        slug = match.kwargs.get("slug")
        if slug is not None:
            return can_manage(user, Tournament.objects.filter(slug=slug).first())
        return match.url_name == "home" or is_director(user)
    if "admin" in match.namespaces:
        if not admin.site.has_permission(request):
            return False
        model_admin = getattr(match.func, "model_admin", None)
        if model_admin is not None:
            if match.url_name.endswith("_add"):
                return model_admin.has_add_permission(request)
            if match.url_name.endswith("_delete"):
                return model_admin.has_delete_permission(request)
            return model_admin.has_view_or_change_permission(request)
        if match.url_name == "app_list":
            return user.has_module_perms(match.kwargs.get("app_label", ""))
        return True
    return True


#: The longest username a login form passes on (``User.username`` holds 150 characters).
MAX_USERNAME = 150


class BoundedUsername:
    """A login form whose username is refused in words when longer than any account's
    (``MAX_USERNAME``), before anything is looked up or counted: Django's form only sets the
    input's ``maxlength``, and django-axes would store an over-long name in its 255-character
    column (a 500)."""

    def clean_username(self):
        username = self.cleaned_data.get("username") or ""
        if len(username) > MAX_USERNAME:
            raise forms.ValidationError(
                gettext("El nombre de usuario tiene como mucho %(max)d caracteres.")
                % {"max": MAX_USERNAME},
                code="username_too_long",
            )
        return username


class LoginForm(BoundedUsername, AuthenticationForm):
    """The site's login form (``BoundedUsername``)."""


class AdminLoginForm(BoundedUsername, AdminAuthenticationForm):
    """The Django admin's login form (``BoundedUsername``)."""


class LandingLoginView(auth_views.LoginView):
    """Django's login view (same form, template, django-axes throttling) whose success answer
    goes to ``next`` when it is local and allowed to the user (``may_open``), else to the
    user's ``landing_url``. Its URL is ``clubsite.limits.limited("login")``: a successful
    login gives its try back (``release``), so only the failures use up the connection's."""

    authentication_form = LoginForm

    def form_valid(self, form):
        release(self.request)
        return super().form_valid(form)

    def form_invalid(self, form):
        """A refused login answers 400 like every refused form, so a browser is shown it at
        the login page's own address (``clubsite.http.RefusedFormMiddleware``) and a reload
        never sends the password again (each resend would count as one more failure)."""
        response = super().form_invalid(form)
        response.status_code = 400
        return response

    def get_success_url(self):
        url = self.get_redirect_url()  # "" unless on this host (and https when secure)
        if url and may_open(self.request, url):
            return url
        return landing_url(self.request.user)


class SayingLogoutView(auth_views.LogoutView):
    """Django's logout view (POST only, to ``LOGOUT_REDIRECT_URL`` or a safe ``next``) that
    leaves "Has salido." for the page it lands on. The message travels in the messages cookie
    (the session is gone), and a page with a message waiting is never served from the page
    cache (``clubsite.pagecache``)."""

    def post(self, request, *args, **kwargs):
        was_in = request.user.is_authenticated
        response = super().post(request, *args, **kwargs)
        if was_in:
            messages.info(request, gettext("Has salido."))
        return response


def refused_login_is_400(login):
    """The admin's login view (``admin.site.login``), answering a refused login 400 instead of
    200, as ``LandingLoginView`` does: a browser is then shown it at the login page's own
    address (``clubsite.http.RefusedFormMiddleware``), so a reload never sends the password
    again."""

    def view(request, extra_context=None):
        response = login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        if request.method == "POST" and response.status_code == 200 and form is not None:
            if form.errors:
                response.status_code = 400
        return response

    return view
