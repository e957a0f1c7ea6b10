// Renders every Vega-Lite spec embedded in the page with the vendored vega-embed, and re-renders
// when the light/dark palette changes (and on Material's instant navigation, when enabled).
(function () {
  function dark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  function render() {
    var specs = document.querySelectorAll("script.atlas-spec");
    specs.forEach(function (script) {
      var name = script.getAttribute("data-chart");
      var target = script.previousElementSibling;
      if (!target || !target.classList.contains("atlas-chart")) {
        target = document.querySelector('.atlas-chart[data-chart="' + name + '"]');
      }
      if (!target) return;
      var spec;
      try {
        spec = JSON.parse(script.textContent);
      } catch (err) {
        target.setAttribute("data-error", String(err));
        console.error("chart " + name + ": " + err);
        return;
      }
      target.innerHTML = "";
      window.vegaEmbed(target, spec, {
        actions: false,
        renderer: "svg",
        theme: dark() ? "dark" : undefined,
        config: { background: null }
      }).then(function () {
        target.setAttribute("data-rendered", "true");
      }).catch(function (err) {
        target.setAttribute("data-error", String(err));
        console.error("chart " + name + ": " + err);
      });
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(render);
  } else {
    document.addEventListener("DOMContentLoaded", render);
  }
  new MutationObserver(function (changes) {
    if (changes.some(function (c) { return c.attributeName === "data-md-color-scheme"; })) render();
  }).observe(document.body, { attributes: true });
})();
