"""The password backend: Django's ModelBackend behind the login lockout.

Every password check, from the login page or the admin's, goes through here: a paused login is
refused before its password is checked (and counts for nothing), every other one is counted
(probe/selectors/logins.py has the rules, probe/services/logins.py the writes). A refusal sets
``request.login_pause`` so the login page can say how long it lasts.
"""

from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from . import login_devices
from .middleware import client_ip
from .selectors.logins import login_pause
from .services import logins as login_services


class LockoutModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None or username is None or password is None:
            # No request: a management command or a test checking a password directly.
            return super().authenticate(request, username=username, password=password, **kwargs)
        ip_address = client_ip(request)[:45]  # the longest an IPv6 address is written
        device = login_devices.known_device(request, username)
        if device is not None:
            return self._authenticate_on_device(request, username, password, ip_address, device)
        pause = login_pause(username=username, ip_address=ip_address)
        if pause is not None:
            request.login_pause = pause
            raise PermissionDenied  # Django stops at this backend and reports a failed login
        attempt = login_services.login_attempt_begin(username=username, ip_address=ip_address)
        pause = login_pause(username=username, ip_address=ip_address, before_pk=attempt.pk)
        if pause is not None:
            login_services.login_attempt_withdraw(attempt=attempt)
            request.login_pause = pause
            raise PermissionDenied
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            login_services.login_attempt_succeeded(attempt=attempt)
            return user
        site_url = request.build_absolute_uri("/").rstrip("/")
        pause = login_services.login_attempt_failed(attempt=attempt, site_url=site_url)
        if pause is not None:
            request.login_pause = pause
        # Wrong password: no other backend should check it again.
        raise PermissionDenied

    def _authenticate_on_device(self, request, username, password, ip_address, device):
        """A browser this user has logged in from: only its own failures can pause it, so that
        nobody sharing its address, nor a spread of addresses, can keep the user out here."""
        pause = login_devices.device_pause(device)
        if pause is not None:
            request.login_pause = pause
            raise PermissionDenied
        attempt = login_services.login_attempt_begin(username=username, ip_address=ip_address)
        user = super().authenticate(request, username=username, password=password)
        if user is not None:
            login_services.login_attempt_succeeded(attempt=attempt)
            login_devices.device_succeeded(device)
            return user
        site_url = request.build_absolute_uri("/").rstrip("/")
        login_services.login_attempt_failed(attempt=attempt, site_url=site_url)
        pause = login_devices.device_failed(device)
        if pause is not None:
            request.login_pause = pause
        raise PermissionDenied
