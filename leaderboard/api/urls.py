from django.urls import path

from leaderboard.api import algorithm_views, views

app_name = "api"

urlpatterns = [
    path("", views.ApiRootView.as_view(), name="root"),
    path("submissions/", views.SubmissionCreateView.as_view(), name="submission-create"),
    path("submissions/<int:pk>/", views.SubmissionDetailView.as_view(), name="submission-detail"),
    path("entries/", views.EntryListView.as_view(), name="entry-list"),
    path("entries/<int:pk>/", views.EntryDetailView.as_view(), name="entry-detail"),
    path("entries/<int:pk>/files/<str:role>/", views.EntryFileView.as_view(), name="entry-file"),
    path("leaderboards/<slug:task>/<slug:metric>/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("tasks/", views.TaskListView.as_view(), name="task-list"),
    path("tasks/<slug:task>/sensitivity/", views.SensitivityView.as_view(), name="task-sensitivity"),
    path("algorithms/results/", algorithm_views.AlgorithmResultCreateView.as_view(), name="algorithm-result-create"),
    path("algorithms/results/<int:pk>/", algorithm_views.AlgorithmResultView.as_view(), name="algorithm-result"),
    path("algorithms/<str:suite>/<str:ruleset>/", algorithm_views.AlgorithmBoardView.as_view(), name="algorithm-board"),
]
