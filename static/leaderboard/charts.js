// Draws every chart on the page from the JSON that `json_script` embedded next to it.
// Without JavaScript the page still shows each chart's table alternative.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("[data-chart]").forEach(function (container) {
    var source = document.getElementById(container.dataset.chart);
    if (!source || typeof Plotly === "undefined") { return; }
    var figure = JSON.parse(source.textContent);
    Plotly.newPlot(container, figure.data, figure.layout, {responsive: true, displaylogo: false});
  });
});
