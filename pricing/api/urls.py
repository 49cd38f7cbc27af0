from django.urls import path

from pricing.api import views

app_name = "pricing-api"

urlpatterns = [
    path("instances/", views.InstanceTypeListView.as_view(), name="instance-list"),
    path("instances/<int:pk>/", views.InstanceTypeDetailView.as_view(), name="instance-detail"),
]
