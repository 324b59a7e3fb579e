// A build run's own events (taor.build): the narration in sentence-sized pieces, gathered into
// paragraphs of rendered Markdown; each phase as a heading; each section summary as a
// milestone; the build report at the end. Once a build's event has come, the model's raw text
// is not shown as well (its narration says it), and each tool call row sits under the
// narration that announced it, collapsed.

import { el } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

export const BUILD_KINDS = new Set(["narration", "phase", "section_summary", "build_report"]);

// Enter build mode: the raw narration block being written (if any) makes way for the pieces.
export function startBuild(timeline) {
  if (timeline.build) return;
  timeline.build = { block: null };
  const raw = timeline.texts.get("");
  if (raw) raw.node.remove();
  timeline.texts.delete("");
}

// The paragraph the next piece goes into ends here (a tool row, a heading, a milestone came).
export function breakNarration(timeline) {
  if (timeline.build) timeline.build.block = null;
}

export const BUILD_HANDLERS = {
  // what the runner tells the model (start, go on, write the report): one quiet line
  build_input(event, seq) {
    const first = event.text.split("\n")[0];
    this.note(event, seq, `To the model: ${first.length > 140 ? `${first.slice(0, 140)}…` : first}`);
  },
  narration(event, seq) {
    let block = this.build.block;
    if (!block) {
      const node = this.append(el("div", { class: "narration md build" }), event, seq);
      block = this.build.block = { node, raw: "" };
    } else {
      block.raw += event.new_paragraph ? "\n\n" : " ";
    }
    block.raw += event.text;
    block.node.innerHTML = renderMarkdown(block.raw); // safe: the renderer escapes first
  },
  phase(event, seq) {
    breakNarration(this);
    this.append(el("h2", { class: "phase", text: event.name }), event, seq);
  },
  section_summary(event, seq) {
    breakNarration(this);
    const body = el("div", { class: "milestone-text md" });
    body.innerHTML = renderMarkdown(event.text);
    const label = event.phase ? `Milestone · ${event.phase}` : "Milestone";
    this.append(el("div", { class: "milestone" }, el("span", { class: "milestone-label", text: label }), body), event, seq);
  },
  build_report(event, seq) {
    breakNarration(this);
    const body = el("div", { class: "report-text md" });
    body.innerHTML = renderMarkdown(event.markdown);
    const state = event.complete ? "Build report · complete" : `Build report · incomplete: ${event.why}`;
    const summary = el("summary", { text: state });
    this.append(el("details", { class: `report ${event.complete ? "complete" : "incomplete"}`, open: "" }, summary, body), event, seq);
  },
};
