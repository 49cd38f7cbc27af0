"""The site's URLs plus `/__trivial__/`: a view that only answers "ok", through the same middleware and URL
resolver as every page, so a page's cost is read as a ratio to the floor that the stack itself sets."""

from django.http import HttpResponse
from django.urls import path

import config.urls

urlpatterns = [
    path("__trivial__/", lambda request: HttpResponse("ok")),
    *config.urls.urlpatterns,
]

handler404 = config.urls.handler404
