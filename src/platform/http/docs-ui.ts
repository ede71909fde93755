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

/**
 * The one inline style the page has: the <style> of the SVG logo swagger-ui's standalone preset draws
 * in its top bar (`.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}`), allowed
 * by its hash and nothing else. A swagger-ui upgrade that changes it shows as a CSP violation in
 * test/platform/http/docs-page.test.ts.
 */
const TOPBAR_LOGO_STYLE = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';

/**
 * The docs page's Content-Security-Policy: swagger-ui's own files and the document from this origin,
 * nothing inline but one style by its hash (its page loads every script from a file; its other styles
 * are set through the DOM, which CSP allows), images from here or `data:` (its logo), never framed. A token pasted into Authorize
 * stays in the page's memory (`persistAuthorization: false`): on the console's origin, a copy in
 * localStorage would be readable by any script that ever ran there (issue 37).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' '${TOPBAR_LOGO_STYLE}'`,
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
