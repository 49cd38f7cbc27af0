from django.urls import path

from benchmarks.api import views

app_name = "benchmarks-api"

urlpatterns = [
    path("reference-runs/", views.ReferenceRunCreateView.as_view(), name="reference-run-create"),
    path("reference-runs/<int:pk>/", views.ReferenceRunDetailView.as_view(), name="reference-run-detail"),
]
