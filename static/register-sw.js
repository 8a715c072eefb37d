// Offline after one visit: a service worker keeps the page's own files.
// (A file, not an inline script, so the page's Content-Security-Policy
// needs no 'unsafe-inline' for scripts.)
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('./sw.js')
    .then(() => navigator.serviceWorker.ready)
    .then(() => { document.documentElement.dataset.offline = 'ready'; })
    .catch(() => { document.documentElement.dataset.offline = 'unavailable'; });
}
