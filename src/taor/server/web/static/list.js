// The runs page: the runs the token may see (refreshed while the page is open) and the form
// that starts a run.

import { api } from "./api.js";
import { age, badge, el, money } from "./dom.js";
import { signIn } from "./signin.js";

const $ = (id) => document.getElementById(id);
const REFRESH = 3000;

signIn(() => {
  $("new-run").addEventListener("submit", startRun);
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("new-run").requestSubmit();
    }
  });
  load();
});

async function load() {
  if (document.hidden) {
    setTimeout(load, REFRESH); // nobody is looking: ask again later
    return;
  }
  try {
    const page = await api("/runs?limit=50");
    show(page.runs);
    $("runs-error").hidden = true;
  } catch (error) {
    $("runs-error").textContent = `The runs could not be read: ${error.message}`;
    $("runs-error").hidden = false;
  }
  setTimeout(load, REFRESH);
}

function show(runs) {
  $("runs-empty").hidden = runs.length > 0;
  $("runs").replaceChildren(...runs.map(item));
}

function item(run) {
  return el(
    "li",
    {},
    el(
      "a",
      { class: "run-item", href: `/runs/${encodeURIComponent(run.id)}`, "data-run": run.id },
      badge(run.status),
      el("span", { class: "run-prompt", title: run.prompt, text: run.prompt }),
      el(
        "span",
        { class: "run-meta" },
        el("span", { class: "run-model", text: run.model }),
        el("span", { class: "run-cost", text: money(run.cost) }),
        el("span", { class: "run-age", title: run.created_at, text: age(run.created_at) }),
        el("span", { class: "run-user", text: run.user }),
      ),
    ),
  );
}

async function startRun(event) {
  event.preventDefault();
  const form = event.target;
  const button = form.querySelector("button[type=submit]");
  const body = { prompt: $("prompt").value.trim(), permission_mode: $("mode").value };
  const model = $("model").value.trim();
  if (model) body.model = model;
  if (!body.prompt) {
    $("prompt").focus();
    return;
  }
  button.disabled = true;
  try {
    const run = await api("/runs", { method: "POST", body });
    location.assign(`/runs/${encodeURIComponent(run.id)}`);
  } catch (error) {
    $("new-run-error").textContent = error.message;
    $("new-run-error").hidden = false;
    button.disabled = false;
  }
}
