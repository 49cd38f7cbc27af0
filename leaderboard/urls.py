from django.urls import path

from leaderboard import algorithm_views, views

app_name = "leaderboard"

urlpatterns = [
    path("", views.home, name="home"),
    path("tasks/<slug:slug>/", views.task_detail, name="task"),
    path("tasks/<slug:slug>/export.csv", views.task_export, {"file_format": "csv"}, name="task-export-csv"),
    path("tasks/<slug:slug>/export.json", views.task_export, {"file_format": "json"}, name="task-export-json"),
    path("tasks/<slug:slug>/charts/", views.task_charts, name="task-charts"),
    path("tasks/<slug:slug>/sensitivity/", views.task_sensitivity, name="task-sensitivity"),
    path("entries/<int:pk>/", views.entry_detail, name="entry"),
    path("entries/<int:pk>/files/<str:role>/", views.entry_file, name="entry-file"),
    path("compare/", views.compare, name="compare"),
    path("submit/", views.submit_help, name="submit"),
    path("algorithms/", algorithm_views.algorithm_boards, name="algorithm-boards"),
    path("algorithms/results/<int:pk>/", algorithm_views.algorithm_result, name="algorithm"),
    path("algorithms/<str:suite>/<str:ruleset>/", algorithm_views.algorithm_board, name="algorithm-board"),
]
