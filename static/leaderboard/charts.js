// Draws every chart on the page from the figure JSON embedded next to it in a <script type="application/json">.
// Loaded with `defer` after the plotly bundle, so the page's text and tables are painted first; without
// JavaScript each chart's table alternative stays the chart.
(function () {
  function draw() {
    if (typeof Plotly === "undefined") { return; }
    document.querySelectorAll("[data-chart]").forEach(function (container) {
      var source = document.getElementById(container.dataset.chart);
      if (!source) { return; }
      var figure = JSON.parse(source.textContent);
      // No mode bar: on a phone it covers the title; zoom and pan still work by dragging.
      Plotly.newPlot(container, figure.data, figure.layout, {responsive: true, displayModeBar: false, displaylogo: false});
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
