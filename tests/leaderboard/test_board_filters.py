"""The template filters write every figure through `dawnboard.display`, and the templates load chart scripts
deferred."""

import re
from decimal import Decimal
from pathlib import Path

from dawnboard import display
from leaderboard.templatetags import board

NBSP = "\u00a0"
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_the_template_filters_follow_the_formatter():
    assert board.hms(157.5500004) == display.duration(157.5500004)
    assert board.usd(14.4245778144) == "$14.42"
    assert board.metric_value(0.07393, "inference-latency") == f"0.0739{NBSP}ms"
    assert board.metric_value(14.4245778144, "training-cost") == "$14.42"
    assert board.metric_value(189_693.0, "training-time") == "52:41:33"
    assert board.metric_value(0.004376389, "inference-cost") == "$0.004376"
    assert board.plain(878398.1920000003) == "878,398"
    assert board.hours(9450) == "2.625"
    assert board.latency(0.07393) == f"0.0739{NBSP}ms"
    assert board.accuracy(0.912134, "fraction") == "0.9121"
    assert board.epoch(27.0) == "27"
    assert board.count(10000) == "10,000"
    assert board.figure(Decimal("0.0000159565724116162"), "usd") == "$0.00001596"
    assert board.threshold(Decimal("98.0000"), "percent") == f"98{NBSP}%"


def test_no_template_loads_a_script_without_defer():
    scripts = [
        (path.relative_to(TEMPLATES), tag)
        for path in TEMPLATES.rglob("*.html")
        for tag in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", path.read_text())
    ]
    plotly = [tag for _, tag in scripts if "plotly" in tag]

    assert plotly, "no template loads plotly: the test would pass for nothing"
    assert [
        (str(path), tag) for path, tag in scripts if "plotly" in tag or "charts.js" in tag if " defer" not in tag
    ] == []
