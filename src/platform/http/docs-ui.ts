// What /docs (swagger-ui) is given besides the document. Swagger UI autofocuses the value field of
// every security scheme in its Authorize dialog, so the last of the 13 schemes took the focus and
// the dialog opened scrolled to the bottom, bearerAuth (the one people paste a token into) out of
// view. This script gives the focus back to the first field, bearerAuth's, whenever the dialog opens.

const DOCS_AUTHORIZE_SCRIPT = `(function () {
  function focusFirst(dialog) {
    var content = dialog.querySelector('.modal-ux-content') || dialog;
    var first = dialog.querySelector('input');
    if (first) first.focus({ preventScroll: true });
    content.scrollTop = 0;
  }
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(function (node) {
        if (node.nodeType !== 1) return;
        var dialog = node.matches('.dialog-ux') ? node : node.querySelector('.dialog-ux');
        // After swagger-ui's own autofocus has run.
        if (dialog) setTimeout(function () { focusFirst(dialog); }, 0);
      });
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
`;

/** Served as /docs/static/theme/authorize-first.js and loaded by the docs page. */
export const DOCS_THEME = { js: [{ filename: 'authorize-first.js', content: DOCS_AUTHORIZE_SCRIPT }] };
