// The results page's figures, made interactive in place: each `.chart` holds the server's SVG
// (shown when scripts are off) and names the <script type="application/json"> with its
// Vega-Lite specification; vega-embed (window.vegaEmbed, from vega-bundle.js served beside
// this file) replaces the SVG with a live view: tooltips, and zoom/pan where the spec binds it.
const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;

for (const chart of document.querySelectorAll(".chart[data-spec]")) {
  const source = document.getElementById(chart.dataset.spec);
  if (!source || typeof window.vegaEmbed !== "function") continue;
  const spec = JSON.parse(source.textContent);
  const target = document.createElement("div");
  window
    .vegaEmbed(target, spec, {
      renderer: "svg",
      actions: false,
      theme: dark ? "dark" : undefined,
      config: { background: "transparent" },  // the page's own background, light or dark
    })
    .then(() => {
      chart.replaceChildren(target);
      chart.classList.add("interactive");
    })
    .catch((error) => {
      chart.dataset.error = String(error);  // the server's SVG stays
      console.error("figure", chart.dataset.spec, error);
    });
}

// The view's own address (picker.html.j2): the frame's, with every query parameter it was given.
for (const link of document.querySelectorAll("a.permalink")) link.href = window.location.href;

// Two tables side by side only where each fits its half (style.css `.compare-grid`): a pair with
// one wider than its column is stacked, one above the other, measured again when the frame resizes.
function stackWhereCut() {
  for (const grid of document.querySelectorAll(".compare-grid")) {
    grid.classList.remove("stacked");
    const cut = [...grid.querySelectorAll("table")].some(
      (table) => table.scrollWidth > table.parentElement.clientWidth + 1,
    );
    grid.classList.toggle("stacked", cut);
  }
}
stackWhereCut();
window.addEventListener("resize", stackWhereCut);
