from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("", include("leaderboard.urls")),
    path("api/v1/", include("leaderboard.api.urls")),
    path("api/v1/", include("benchmarks.api.urls")),
    path("api/v1/pricing/", include("pricing.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("admin/", admin.site.urls),
]
