// courier console: small progressive enhancements. Every page works without this script.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // Times arrive in UTC; show them in the reader's time zone, keeping UTC in the tooltip.
  for (const time of document.querySelectorAll("time[data-local]")) {
    const at = new Date(time.getAttribute("datetime"));
    if (!Number.isNaN(at.getTime())) {
      time.textContent = at.toLocaleString();
    }
  }
  // A date picker beside each Unix-millisecond filter: the filter keeps the API's name and unit.
  for (const picker of document.querySelectorAll("input[data-ms-for]")) {
    const target = document.getElementById(picker.dataset.msFor);
    if (!target) continue;
    const show = () => {
      const ms = Number(target.value);
      if (target.value !== "" && Number.isFinite(ms)) {
        const local = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
        picker.value = local.toISOString().slice(0, 16);
      }
    };
    show();
    picker.hidden = false;
    picker.addEventListener("change", () => {
      const ms = Date.parse(picker.value);
      target.value = Number.isNaN(ms) ? "" : String(ms);
    });
    target.addEventListener("change", show);
  }
  // Charts: the hovered or focused bar's value in the caption (the <title> tooltip stays too).
  for (const chart of document.querySelectorAll("figure.chart")) {
    const readout = chart.querySelector(".readout");
    if (!readout) continue;
    const show = (event) => {
      const bar = event.target.closest("[data-value]");
      if (bar) readout.textContent = bar.dataset.label + ": " + bar.dataset.value;
    };
    chart.addEventListener("mouseover", show);
    chart.addEventListener("focusin", show);
  }
});
