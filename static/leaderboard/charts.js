// Draws every chart on the page from the figure JSON embedded next to it in a <script type="application/json">.
// Loaded with `defer` after the plotly bundle, so the page's text and tables are painted first; without
// JavaScript each chart's table alternative stays the chart.
//
// Plotly writes a title, an axis title or a legend entry on one line and clips it at the chart's edge. So before
// drawing, each is wrapped at spaces and hyphens to the width it has (measured in the figure's own font), a token
// longer than that (a model name without spaces) is cut where it must be, and the figure grows taller by the lines
// it gained, so that the plot keeps its height on a phone. Again whenever the chart's width changes.
(function () {
  "use strict";
  var LINE_HEIGHT = 1.3; // plotly's line spacing, in ems
  var CAP_SHIFT = 0.7; // plotly's, in ems
  var LEGEND_SYMBOL_PX = 50; // a legend entry's symbol and the gaps around it
  var TITLE_SIDE_PX = 16;
  var PLOT_SIDES_PX = 100; // the y axis's ticks and title on the left, room for the last tick on the right
  var measure = document.createElement("canvas").getContext("2d");

  function plain(text) {
    return text.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }

  function textWidth(text, font) {
    measure.font = font.size + "px " + font.family;
    return measure.measureText(plain(text)).width;
  }

  // The text as lines no wider than `width` px, joined with plotly's <br>.
  function wrap(text, width, font) {
    var lines = [];
    String(text).split(/<br\s*\/?>/i).forEach(function (given) {
      var line = "";
      // Pieces that end after a space or a hyphen, where a line may break.
      given.replace(/([\s-])/g, "$1\u0000").split("\u0000").forEach(function (piece) {
        if (textWidth(line + piece, font) <= width) {
          line += piece;
          return;
        }
        if (line.trim()) { lines.push(line.trim()); }
        line = "";
        // A piece too long for a line by itself is a machine token: cut it where it must be, never in an entity.
        (piece.match(/&[#\w]+;|[\s\S]/g) || []).forEach(function (unit) {
          if (line && textWidth(line + unit, font) > width) {
            lines.push(line);
            line = "";
          }
          line += unit;
        });
      });
      lines.push(line.trim());
    });
    return lines;
  }

  function fontOf(layout, part) {
    var font = (part && part.font) || {};
    return {size: font.size || layout.font.size, family: font.family || layout.font.family};
  }

  // Wraps `holder.text` (a title) in place; returns the height it gained, in px.
  function wrapTitle(layout, holder, width) {
    if (!holder || !holder.text) { return 0; }
    var font = fontOf(layout, holder);
    var lines = wrap(holder.text, width, font);
    holder.text = lines.join("<br>");
    return (lines.length - 1) * font.size * LINE_HEIGHT;
  }

  // The figure's title wrapped, its top margin grown by the lines it gained. Plotly hangs a title of one line
  // a cap height under its anchor but one of several from its first baseline, so that drop goes into its padding.
  function wrapMainTitle(layout, width) {
    var title = layout.title;
    var grown = wrapTitle(layout, title, width);
    if (grown) {
      var pad = Object.assign({t: 0}, title.pad);
      pad.t += fontOf(layout, title).size * CAP_SHIFT;
      title.pad = pad;
      layout.margin = Object.assign({}, layout.margin, {t: layout.margin.t + grown});
    }
    return grown;
  }

  // The figure fitted to a chart `width` px wide: titles and legend entries wrapped, the height grown to match.
  function fitted(figure, width) {
    var layout = figure.layout;
    var plotWidth = Math.max(width - PLOT_SIDES_PX, 80);
    var grown = wrapMainTitle(layout, width - TITLE_SIDE_PX);
    grown += wrapTitle(layout, layout.xaxis && layout.xaxis.title, plotWidth);
    wrapTitle(layout, layout.yaxis && layout.yaxis.title, layout.height * 0.5);
    if (layout.showlegend !== false) {
      var font = fontOf(layout, layout.legend);
      var entries = figure.data.filter(function (trace) { return trace.name && trace.showlegend !== false; });
      var oneRow = entries.reduce(function (sum, trace) {
        return sum + textWidth(trace.name, font) + LEGEND_SYMBOL_PX;
      }, 0);
      if (oneRow > width) {
        // Too many for one row: plotly then gives each its own row, as many lines tall as it wraps to.
        var lines = 0;
        entries.forEach(function (trace) {
          var wrapped = wrap(trace.name, width - LEGEND_SYMBOL_PX, font);
          trace.name = wrapped.join("<br>");
          lines += wrapped.length;
        });
        grown += (lines - 1) * font.size * LINE_HEIGHT;
      }
    }
    layout.height += Math.ceil(grown);
    return figure;
  }

  function draw(container, source) {
    var width = container.clientWidth;
    if (!width || width === Number(container.dataset.drawnWidth)) { return; }
    container.dataset.drawnWidth = String(width);
    var figure = fitted(JSON.parse(source.textContent), width);
    // No mode bar: on a phone it covers the title; zoom and pan still work by dragging.
    var config = {responsive: true, displayModeBar: false, displaylogo: false};
    Plotly.react(container, figure.data, figure.layout, config).then(function () {
      container.dataset.drawn = "true";
    });
  }

  function drawAll() {
    if (typeof Plotly === "undefined") { return; }
    document.querySelectorAll("[data-chart]").forEach(function (container) {
      var source = document.getElementById(container.dataset.chart);
      if (source) { draw(container, source); }
    });
  }

  var pending = null;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(drawAll, 150);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
