"""Public pages. The full website (task pages, charts, exports) arrives with the website issue."""

from django.shortcuts import render

from leaderboard.selectors import home_boards


def home(request):
    return render(request, "leaderboard/home.html", {"tasks": home_boards(rows_per_board=5)})
