from django.urls import path

from benchmarks import views

app_name = "benchmarks"

urlpatterns = [
    path("studies/", views.study_list, name="studies"),
    path("studies/<int:study_id>/", views.study_detail, name="study"),
]
