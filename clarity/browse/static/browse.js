// clarity browse: search as you type. The only script the page runs (its
// Content-Security-Policy allows no other): it asks the server for the hits,
// which the server has escaped, and shows them.
"use strict";
(function () {
  var boxes = [document.getElementById("q-page"), document.getElementById("q")];
  var timer = null;
  var asked = 0;
  function target() {
    var hits = document.getElementById("hits");
    if (!hits) {
      hits = document.createElement("div");
      hits.id = "hits";
      hits.className = "dropdown";
      document.querySelector("header.top").after(hits);
    }
    return hits;
  }
  function show(box) {
    var words = box.value.trim();
    var place = document.querySelector("select[name=place]");
    var hits = target();
    if (!words) {
      if (hits.className === "dropdown") { hits.remove(); }
      else { hits.textContent = ""; }
      return;
    }
    var url = "search/hits?q=" + encodeURIComponent(words);
    if (place && place.value && document.getElementById("q-page")) {
      url += "&place=" + encodeURIComponent(place.value);
    }
    var mine = ++asked;
    fetch(url, { credentials: "same-origin" })
      .then(function (answer) { return answer.text(); })
      .then(function (html) { if (mine === asked) { target().innerHTML = html; } })
      .catch(function () { if (mine === asked) { target().textContent = "The search could not be reached: is clarity browse still running?"; } });
  }
  boxes.forEach(function (box) {
    if (!box) { return; }
    box.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { show(box); }, 120);
    });
  });
})();
