// The search index (close to 1 MB) is requested when a reader reaches for search, not on every page load.
// Material's theme asks for search/search_index.json as soon as a page opens; this script, loaded just
// before the theme's bundle, holds that one request back until the search box gets focus, the search
// icon is pressed or one of the theme's search keys (/, s, f) is typed outside a form field. Every other
// request goes through untouched.
(function () {
  "use strict";
  const INDEX = /(^|\/)search\/search_index\.json(\?|$)/;
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const held = [];
  let wanted = false;

  function release() {
    if (wanted) return;
    wanted = true;
    held.splice(0).forEach((go) => go());
  }

  XMLHttpRequest.prototype.open = function (method, url) {
    this.atlasSearchIndex = INDEX.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.atlasSearchIndex && !wanted) {
      const request = this;
      const args = arguments;
      held.push(() => send.apply(request, args));
      return undefined;
    }
    return send.apply(this, arguments);
  };

  const SEARCH_FIELD = "input.md-search__input, [data-md-component='search-query']";
  document.addEventListener("focusin", (event) => {
    if (event.target instanceof Element && event.target.matches(SEARCH_FIELD)) release();
  });
  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest("label[for='__search'], .md-search")) release();
  });
  document.addEventListener("change", (event) => {
    if (event.target instanceof Element && event.target.id === "__search") release();
  });
  document.addEventListener("keydown", (event) => {
    const field = event.target instanceof Element && event.target.closest("input, textarea, select, [contenteditable]");
    if (!field && ["/", "s", "f", "S", "F"].includes(event.key)) release();
  });
})();
