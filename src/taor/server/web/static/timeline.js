// A run's events turned into its live view: the narration as rendered Markdown, each tool call
// a collapsible row, permission requests as cards with their buttons, and short notes for the
// rest. Events are taken once each, in order of their number: one already shown is ignored,
// so a stream resumed after a drop or replayed after a reload never shows anything twice.

import { BUILD_HANDLERS, BUILD_KINDS, breakNarration, startBuild } from "./build.js";
import { DECISIONS, permissionCard, settle, showDiff, toolRow } from "./cards.js";
import { argumentsDiff, clip, el, pretty } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

export class Timeline {
  // ``hooks``: answer(requestId, decision) -> Promise, usage(event), ended(event), changed(event)
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.lastSeq = 0;
    this.texts = new Map(); // agent id -> the narration block being written
    this.thinking = new Map(); // agent id -> the thinking block being written
    this.tools = new Map(); // agent id/call id -> its row
    this.diffs = new Map(); // agent id/call id -> the diff its permission request showed
    this.cards = new Map(); // request id -> its permission card
    this.steers = [];
    this.moves = new Set(); // the moves shown (after/worker)
  }

  // Take one event (``seq``: its number, the SSE id); false when it was already shown.
  add(seq, event) {
    if (!(seq > this.lastSeq)) return false;
    this.lastSeq = seq;
    if (BUILD_KINDS.has(event.kind)) startBuild(this);
    let handler = HANDLERS[event.kind];
    if (this.build && !event.agent_id && TEXT.has(event.kind)) handler = null;
    if (this.build && !event.agent_id && event.kind === "user_input") handler = HANDLERS.build_input;
    if (handler) handler.call(this, event, seq);
    this.hooks.changed?.(event);
    return true;
  }

  // The run was taken over by another worker after its event numbered ``notice.after``: one
  // quiet line there. A stream resumed right at the notice sends it again: shown once.
  moved(notice) {
    const key = `${notice.after}/${notice.worker}`;
    if (this.moves.has(key)) return false;
    this.moves.add(key);
    this.note(notice, notice.after, `Moved to worker ${notice.worker}`, "muted moved");
    return true;
  }

  // No more answers can be given (the run has ended): the cards still open say so.
  closeCards(why) {
    for (const card of this.cards.values()) {
      if (card.classList.contains("open")) settle(card, "expired", why);
    }
  }

  append(node, event, seq) {
    node.dataset.seq = seq;
    if (!BUILD_KINDS.has(event.kind)) breakNarration(this);
    if (event.agent_id) {
      // a subagent's: labelled with its id (in the summary of a row, by CSS elsewhere, since a
      // narration block's content is rewritten as it streams)
      node.classList.add("sub");
      node.dataset.agent = event.agent_id;
      const summary = node.tagName === "DETAILS" ? node.querySelector("summary") : null;
      if (summary) summary.append(el("span", { class: "agent", text: event.agent_id }));
    }
    this.root.append(node);
    return node;
  }

  note(event, seq, text, tone = "muted") {
    return this.append(el("div", { class: `note ${tone}`, text }), event, seq);
  }

  narration(event, seq) {
    const key = event.agent_id || "";
    let block = this.texts.get(key);
    if (!block) {
      const node = this.append(el("div", { class: "narration md" }), event, seq);
      block = { node, raw: "", pending: false };
      this.texts.set(key, block);
    }
    return block;
  }

  tool(event) {
    return this.tools.get(`${event.agent_id || ""}/${event.call_id}`);
  }
}

function render(block) {
  if (block.pending) return;
  block.pending = true;
  requestAnimationFrame(() => {
    block.pending = false;
    block.node.innerHTML = renderMarkdown(block.raw); // safe: the renderer escapes first
  });
}

// In a build, the model's own text is shown as its narration (``build.js``), not as well.
const TEXT = new Set(["assistant_text_start", "assistant_text_delta", "assistant_text_end"]);

const HANDLERS = {
  ...BUILD_HANDLERS,
  session_start(event, seq) {
    if (event.resumed) this.note(event, seq, `Resumed · ${event.provider}:${event.model}`);
  },
  user_input(event, seq) {
    const label = event.cycle > 1 ? "Follow-up" : "Prompt";
    this.append(el("div", { class: "msg user" }, el("span", { class: "msg-label", text: label }), el("div", { class: "msg-text", text: event.text })), event, seq);
  },
  assistant_text_start(event, seq) {
    this.texts.delete(event.agent_id || "");
    this.narration(event, seq);
  },
  assistant_text_delta(event, seq) {
    const block = this.narration(event, seq);
    block.raw += event.delta;
    render(block);
  },
  assistant_text_end(event, seq) {
    const key = event.agent_id || "";
    const block = this.texts.get(key) || (event.text ? this.narration(event, seq) : null);
    this.texts.delete(key);
    this.thinking.delete(key);
    if (!block) return;
    block.raw = event.text;
    if (!block.raw.trim()) {
      block.node.remove();
      return;
    }
    block.node.innerHTML = renderMarkdown(block.raw);
    if (event.partial) block.node.append(el("span", { class: "cut", text: "(cut short)" }));
  },
  thinking_delta(event, seq) {
    const key = event.agent_id || "";
    let block = this.thinking.get(key);
    if (!block) {
      const text = el("div", { class: "thinking-text" });
      this.append(el("details", { class: "thinking" }, el("summary", { text: "Thinking" }), text), event, seq);
      block = text;
      this.thinking.set(key, block);
    }
    block.textContent += event.delta;
  },
  tool_call_start(event, seq) {
    const tool = toolRow(event.summary, event.name, event.arguments);
    tool.name = event.name;
    this.tools.set(`${event.agent_id || ""}/${event.call_id}`, tool);
    this.append(tool.row, event, seq);
    tool.row.dataset.call = event.call_id;
    showDiff(tool, this.diffs.get(`${event.agent_id || ""}/${event.call_id}`) || argumentsDiff(event.name, event.arguments));
  },
  tool_call_output_delta(event) {
    const tool = this.tool(event);
    if (tool) tool.output.textContent = clip(tool.output.textContent + event.delta);
  },
  tool_call_end(event, seq) {
    let tool = this.tool(event);
    if (!tool) HANDLERS.tool_call_start.call(this, { ...event, summary: event.name, arguments: {} }, seq);
    tool = this.tool(event);
    tool.output.textContent = clip(event.output) || "(no output)";
    if (event.output_file) tool.output.after(el("p", { class: "muted", text: `All of it: ${event.output_file}` }));
    tool.state.className = `tool-state ${event.is_error ? "error" : "ok"}`;
    tool.state.title = event.is_error ? "failed" : "done";
    tool.row.classList.add(event.is_error ? "failed" : "done");
    if (event.duration) tool.meta.textContent = `${event.duration.toFixed(1)} s`;
  },
  server_tool_use(event, seq) {
    const tool = toolRow(`${event.name} (by the provider)`, event.name, event.input);
    this.tools.set(`${event.agent_id || ""}/${event.call_id}`, tool);
    this.append(tool.row, event, seq);
  },
  server_tool_result(event) {
    const tool = this.tool(event);
    if (!tool) return;
    tool.output.textContent = clip(pretty(event.content));
    tool.state.className = `tool-state ${event.is_error ? "error" : "ok"}`;
  },
  permission_request(event, seq) {
    const key = `${event.agent_id || ""}/${event.call_id}`;
    if (event.diff) this.diffs.set(key, event.diff);
    const tool = this.tools.get(key);
    if (tool) {
      tool.diff.replaceChildren(el("h4", { text: "Changes" }));
      tool.diff.hidden = true;
      showDiff(tool, event.diff || argumentsDiff(event.name, event.arguments));
      tool.state.className = "tool-state asking";
    }
    const card = permissionCard(event, this.hooks.answer);
    this.cards.set(event.request_id, card);
    this.append(card, event, seq);
  },
  permission_decision(event, seq) {
    const card = this.cards.get(event.request_id);
    const words = DECISIONS[event.decision] || event.decision;
    if (card) {
      settle(card, event.decision === "deny" ? "denied" : "allowed", event.message ? `${words}: ${event.message}` : words);
    } else if (event.decision === "deny") {
      this.note(event, seq, `${event.name}: denied (${event.source})${event.message ? `: ${event.message}` : ""}`, "warn");
    }
    const tool = this.tool(event);
    if (tool && event.decision === "deny") tool.state.className = "tool-state error";
    else if (tool) tool.state.className = "tool-state running";
  },
  steering_queued(event, seq) {
    const node = el("div", { class: "msg steer queued" }, el("span", { class: "msg-label", text: "Steering · waiting for the next step" }), el("div", { class: "msg-text", text: event.text }));
    this.steers.push({ text: event.text, node });
    this.append(node, event, seq);
  },
  steering_injected(event, seq) {
    const at = this.steers.findIndex((s) => s.text === event.text);
    if (at >= 0) {
      const [{ node }] = this.steers.splice(at, 1);
      node.classList.remove("queued");
      node.querySelector(".msg-label").textContent = "Steering · sent to the model";
    } else if (event.source !== "user") {
      this.note(event, seq, `Note to the model (${event.source}): ${event.text}`);
    } else {
      HANDLERS.steering_queued.call(this, event, seq);
      HANDLERS.steering_injected.call(this, event, seq);
    }
  },
  follow_up_queued(event, seq) {
    this.append(el("div", { class: "msg user queued" }, el("span", { class: "msg-label", text: "Follow-up · queued" }), el("div", { class: "msg-text", text: event.text })), event, seq);
  },
  interrupted(event, seq) {
    this.note(event, seq, `Interrupted: ${event.reason}`, "warn");
  },
  turn_limit(event, seq) {
    this.note(event, seq, event.message, "warn");
  },
  loop_detection(event, seq) {
    this.note(event, seq, event.message, "warn");
  },
  compaction(event, seq) {
    this.note(event, seq, `Context compacted: ${event.tokens_before} → ${event.tokens_after} tokens`);
  },
  system_prompt_changed(event, seq) {
    this.note(event, seq, `System prompt rebuilt: ${event.reason}`);
  },
  retry(event, seq) {
    if (event.discarded_text) {
      const block = this.texts.get(event.agent_id || "");
      if (block) {
        block.raw = "";
        render(block);
      }
    }
    this.note(event, seq, `Retrying in ${event.delay.toFixed(1)} s (attempt ${event.attempt}): ${event.cause}`);
  },
  warning(event, seq) {
    this.note(event, seq, event.message, "warn");
  },
  error(event, seq) {
    this.note(event, seq, event.message, "error");
  },
  usage(event) {
    if (!event.agent_id) this.hooks.usage?.(event);
  },
  processing_end(event, seq) {
    if (event.agent_id) return;
    const words = {
      completed: "Done",
      turn_limit: "Stopped at a limit",
      loop_detected: "Stopped: the model kept repeating itself",
      interrupted: "Interrupted",
      error: "Stopped by an error",
      closed: "Closed",
    };
    const tone = event.stop_reason === "completed" ? "done" : event.stop_reason === "error" ? "error" : "warn";
    this.note(event, seq, words[event.stop_reason] || event.stop_reason, `end ${tone}`);
    this.hooks.ended?.(event);
  },
  session_end(event, seq) {
    if (!event.agent_id && event.reason !== "closed") this.note(event, seq, `Session ended: ${event.reason}`);
  },
};
