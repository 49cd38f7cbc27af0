"""The studies' pages: the list, and one study's figures and runs. Figures come from `leaderboard.charts.studies`."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render

from benchmarks import selectors
from benchmarks.models import Study
from dawnboard.algorithms.studies import value_summaries
from leaderboard.charts.studies import STUDY_MEASURES, study_figure
from leaderboard.views import figure_json_text


def study_list(request):
    return render(request, "benchmarks/studies.html", {"studies": selectors.studies_recent()})


def study_detail(request, study_id: int):
    try:
        study = selectors.study_page(study_id=study_id)
    except Study.DoesNotExist:
        raise Http404("No such study.") from None
    figures = [
        {"name": f"figure-{measure.key}", "label": f"{measure.label} against {study.setting}", "measure": measure,
         "figure": figure_json_text(study_figure(study.setting, study.values, study.runs, measure))}
        for measure in STUDY_MEASURES
    ]  # fmt: skip
    summaries = value_summaries(study.values, study.runs)
    context = {"study": study, "figures": figures, "summaries": summaries}
    return render(request, "benchmarks/study.html", context)
