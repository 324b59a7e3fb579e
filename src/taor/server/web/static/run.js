// A run's page: its header (status, usage, cost, queue position) read from the API, its events
// followed live into the timeline, and the commands: permission answers, steer, follow-up,
// interrupt and cancel.

import { api, authHeaders } from "./api.js";
import { ENDED, LIVE, age, money, setBadge, tokens } from "./dom.js";
import { follow } from "./sse.js";
import { signIn } from "./signin.js";
import { Timeline } from "./timeline.js";

const $ = (id) => document.getElementById(id);
const runId = $("run").dataset.run;
const base = `/runs/${encodeURIComponent(runId)}`;

let run = null;
let timeline = null;
let follower = null;
let pollTimer = null;

signIn(start);

async function start() {
  timeline = new Timeline($("timeline"), {
    answer: (requestId, decision) =>
      api(`${base}/permissions/${encodeURIComponent(requestId)}`, { method: "POST", body: { decision } }),
    usage: (event) => showUsage(event.total, event.total_cost),
    ended: () => refresh(),
  });
  wireControls();
  if (await refresh()) followEvents();
}

function followEvents() {
  if (follower) return;
  follower = follow(`${base}/events`, {
    headers: authHeaders,
    lastId: () => timeline.lastSeq,
    onEvent: (sse) => {
      const following = LIVE.has(run?.status) && atBottom();
      const data = JSON.parse(sse.data);
      // ``moved`` has no number of its own (its id is the last event's): a notice, not an event
      const added = sse.event === "moved" ? timeline.moved(data) : timeline.add(Number(sse.id), data);
      if (added && following) {
        requestAnimationFrame(() => window.scrollTo(0, document.documentElement.scrollHeight));
      }
    },
    isOver: async () => ENDED.has((await refresh())?.status),
    onState: streamState,
  });
}

// Whether the reader is at the end of the page (and so wants to stay there as it grows).
function atBottom() {
  const page = document.documentElement;
  return page.scrollHeight - (window.scrollY + window.innerHeight) < 120;
}

function streamState(state, detail) {
  const words = {
    connecting: "Connecting…",
    live: "Live",
    reconnecting: `Reconnecting in ${Math.round((detail || 0) / 100) / 10} s…`,
    ended: "",
    error: detail ? detail.message : "The event stream failed.",
  };
  const node = $("stream-state");
  const quiet = run?.status === "queued" && state !== "error"; // the queue notice says it all
  node.textContent = quiet ? "" : (words[state] ?? "");
  node.className = `stream-state ${state}`;
  if (state === "ended" || state === "error") follower = null;
}

// Read the run and show it; the run, or null when it cannot be read.
async function refresh() {
  clearTimeout(pollTimer);
  const before = run?.status;
  try {
    run = await api(base);
  } catch (error) {
    if (error.status === 404) {
      $("run-missing").hidden = false;
      $("run-body").hidden = true;
      if (follower) follower.stop();
      return null;
    }
    pollTimer = setTimeout(refresh, 5000);
    return run;
  }
  show(run);
  if (before === "queued" && run.status !== "queued" && follower) follower.nudge();
  if (!ENDED.has(run.status)) pollTimer = setTimeout(refresh, run.status === "queued" ? 1500 : 4000);
  return run;
}

function show(r) {
  setBadge($("status"), r.status);
  $("prompt").textContent = r.prompt;
  $("prompt").title = r.prompt;
  document.title = `${r.prompt.slice(0, 60)} · taor`;
  $("model").textContent = r.model;
  $("user").textContent = r.user;
  $("age").textContent = age(r.created_at);
  if (r.usage) showUsage(r.usage, r.cost);
  else if (r.cost !== null && r.cost !== undefined) $("cost").textContent = money(r.cost);
  const queued = r.status === "queued" && r.queue_position;
  $("queue").hidden = !queued;
  if (queued) {
    $("queue").textContent =
      r.queue_position === 1 ? "Waiting for a worker: next in the queue." : `Waiting for a worker: ${r.queue_position} in the queue.`;
  }
  const reason = r.error || (r.stop_reason && r.stop_reason !== "completed" ? `stopped: ${r.stop_reason}` : "");
  $("run-error").hidden = !(ENDED.has(r.status) && reason);
  $("run-error").textContent = reason;
  const live = LIVE.has(r.status);
  const ended = ENDED.has(r.status);
  $("steer").disabled = !live;
  $("interrupt").disabled = !live;
  $("cancel").disabled = ended;
  $("follow-up").disabled = r.status === "queued";
  $("message").placeholder = ended ? "Follow up on this run…" : live ? "Steer the agent, or queue a follow-up…" : "The run has not started yet";
  $("run").classList.toggle("ended", ended);
  if (ended) timeline.closeCards("No answer was given before the run ended.");
}

function showUsage(usage, cost) {
  $("tokens").textContent = tokens(usage);
  $("cost").textContent = money(cost);
}

function wireControls() {
  const message = $("message");
  const send = async (kind) => {
    const text = message.value.trim();
    if (!text) {
      message.focus();
      return;
    }
    if (await command(kind, { text })) {
      message.value = "";
      if (kind === "follow_up") followEvents(); // a run that had ended may go on
    }
  };
  $("message-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send(LIVE.has(run?.status) ? "steer" : "follow_up");
  });
  message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("message-form").requestSubmit();
    }
  });
  $("follow-up").addEventListener("click", () => send("follow_up"));
  $("interrupt").addEventListener("click", () => command("interrupt"));
  const cancel = $("cancel");
  cancel.addEventListener("click", async () => {
    if (!cancel.classList.contains("confirm")) {
      cancel.classList.add("confirm");
      cancel.textContent = "Cancel for good?";
      setTimeout(() => {
        cancel.classList.remove("confirm");
        cancel.textContent = "Cancel";
      }, 4000);
      return;
    }
    cancel.classList.remove("confirm");
    cancel.textContent = "Cancel";
    await command("cancel");
  });
}

async function command(kind, body) {
  const error = $("command-error");
  try {
    await api(`${base}/${kind}`, { method: "POST", body });
    error.hidden = true;
    refresh();
    return true;
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
    return false;
  }
}
