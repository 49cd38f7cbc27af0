"""Query-string forms of the public pages: they turn GET parameters into a selector's arguments."""

from __future__ import annotations

from django import forms

from dawnboard.metrics import LEADERBOARD_METRICS, TRAINING_TIME
from leaderboard.selectors import LATENCY_STATS, MEAN_LATENCY, SORTABLE_COLUMNS, BoardView


class BoardForm(forms.Form):
    metric = forms.ChoiceField(choices=[(slug, m.label) for slug, m in LEADERBOARD_METRICS.items()], required=False)
    framework = forms.CharField(required=False, max_length=100)
    hardware = forms.CharField(required=False, max_length=100)
    date_from = forms.DateField(required=False, label="From")
    date_to = forms.DateField(required=False, label="To")
    as_of = forms.DateField(required=False, label="As of")
    sort = forms.ChoiceField(choices=[(column, column) for column in SORTABLE_COLUMNS], required=False)
    order = forms.ChoiceField(choices=[("asc", "ascending"), ("desc", "descending")], required=False)
    latency_stat = forms.ChoiceField(
        choices=[(slug, stat.label) for slug, stat in LATENCY_STATS.items()], required=False
    )

    def board_view(self) -> BoardView:
        """The view asked for; fields that did not validate fall back to their defaults."""
        self.is_valid()
        data = {name: value for name, value in getattr(self, "cleaned_data", {}).items() if value not in (None, "")}
        return BoardView(
            metric=data.get("metric", TRAINING_TIME.slug),
            framework=data.get("framework", ""),
            hardware=data.get("hardware", ""),
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            as_of=data.get("as_of"),
            sort=data.get("sort", "rank"),
            descending=data.get("order") == "desc",
            latency_stat=data.get("latency_stat", MEAN_LATENCY.slug),
        )


class AsOfForm(forms.Form):
    as_of = forms.DateField(required=False, label="As of")

    def as_of_date(self):
        return self.cleaned_data.get("as_of") if self.is_valid() else None


class CompareForm(forms.Form):
    entries = forms.CharField(required=False, help_text="Entry ids, comma-separated.")
    MAX_ENTRIES = 8

    def entry_ids(self) -> list[int]:
        if not self.is_valid():
            return []
        ids = []
        for part in self.cleaned_data["entries"].split(","):
            part = part.strip()
            if part.isdigit() and int(part) not in ids:
                ids.append(int(part))
        return ids[: self.MAX_ENTRIES]
