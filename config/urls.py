from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.health import DawnboardHealthView
from config.metrics import metrics_view

urlpatterns = [
    path("", include("leaderboard.urls")),
    path("", include("benchmarks.urls")),
    path("api/v1/", include("leaderboard.api.urls")),
    path("api/v1/", include("benchmarks.api.urls")),
    path("api/v1/pricing/", include("pricing.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), so the page needs no inline script
    # under the Content-Security-Policy.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("admin/", admin.site.urls),
    path("health/", DawnboardHealthView.as_view(), name="health"),
    path("metrics", metrics_view, name="metrics"),
]

handler404 = "leaderboard.api.errors.not_found"  # JSON under /api/, the HTML page elsewhere
handler400 = "leaderboard.api.errors.bad_request"  # likewise, e.g. a form of 1,000 fields
