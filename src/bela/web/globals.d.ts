// The handles the pages leave on `window` for debugging and the browser tests (tests/web).
interface Window {
  __bela: object; // app.js: the client's state
  __analysis: object; // analysis.js: the analysis page's state
  __pad: object; // pad.js: the score pad's state
  __padWorker: "registered" | "failed"; // pad.js: the service worker's registration
  __padReady: boolean; // pad.js: the pad has started
}
