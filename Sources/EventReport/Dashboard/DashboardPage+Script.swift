extension DashboardPage {
    /// The page's only script. While `<main id="dashboard">` has a `data-refresh` interval (the window
    /// includes now), it polls `data-api` (`/api/report` of the same view, filtered to the link on a hosted
    /// link's page); when the report changed (its window aside, which moves with the clock), it fetches
    /// `data-part` (this page's `<main>` alone) and swaps the new figures in, in one step: no reload, no flicker.
    /// A failed fetch waits for the next turn. The fetched HTML is parsed inertly (`DOMParser` runs no script)
    /// and was escaped by the server like the page.
    static let script = """
        (function () {
          "use strict";
          var main = document.getElementById("dashboard");
          var every = main ? Number(main.getAttribute("data-refresh")) : 0;
          if (!every) { return; }
          var last = null;
          function fingerprint(text) {
            var report = JSON.parse(text);
            delete report.window;
            if (report.previous) { delete report.previous.window; }
            return JSON.stringify(report);
          }
          function swap(html) {
            var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("dashboard");
            if (!fresh) { return; }
            main.replaceChildren.apply(main, Array.prototype.slice.call(fresh.childNodes));
            main.setAttribute("data-refreshed", String(Date.now()));
          }
          function tick() {
            fetch(main.getAttribute("data-api"), { cache: "no-store" })
              .then(function (answer) { if (!answer.ok) { throw new Error(String(answer.status)); } return answer.text(); })
              .then(function (text) {
                var print = fingerprint(text);
                var changed = last !== null && print !== last;
                last = print;
                if (!changed) { return; }
                return fetch(main.getAttribute("data-part"), { cache: "no-store" })
                  .then(function (answer) { if (!answer.ok) { throw new Error(String(answer.status)); } return answer.text(); })
                  .then(swap);
              })
              .catch(function () {})
              .then(function () { setTimeout(tick, every * 1000); });
          }
          tick();
        })();
        """
}
