// Server-sent events over fetch: EventSource cannot send an Authorization header, so the
// stream is read with fetch and a ReadableStream, parsed here, and resumed by hand.

// The SSE wire format, fed in pieces as they arrive: lines end in \r\n, \n or \r (a \r at the
// end of a piece waits for the next, which may start with its \n); a blank line ends an event.
export class SSEParser {
  constructor() {
    this.rest = "";
    this.data = [];
    this.event = "";
    this.id = null;
  }

  feed(text) {
    let buffer = this.rest + text;
    let held = "";
    if (buffer.endsWith("\r")) {
      held = "\r";
      buffer = buffer.slice(0, -1);
    }
    const lines = buffer.split(/\r\n|\r|\n/);
    this.rest = lines.pop() + held;
    const events = [];
    for (const line of lines) {
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  line(line) {
    if (line === "") {
      const event = this.data.length
        ? { id: this.id, event: this.event || "message", data: this.data.join("\n") }
        : null;
      this.data = [];
      this.event = "";
      return event;
    }
    if (line.startsWith(":")) return null; // a comment: the server's heartbeat
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\u0000")) this.id = value;
    return null;
  }
}

const FIRST_DELAY = 500;
const MAX_DELAY = 10000;

// Follow ``url`` until the stream says ``end`` (the run has ended, every event sent) or, when
// a stream stops without it, ``isOver()`` says there is nothing more to give. Each connection
// sends ``Last-Event-ID: lastId()`` (the last event the page has shown), so a reconnection
// after a drop, or a stream that ended early, picks up after it. Reconnects back off from
// half a second to ten while nothing arrives. ``onState`` hears "connecting", "live",
// "reconnecting" (with the delay), "ended" and "error" (with the error; no retry then).
// ``nudge()`` cuts a wait short; ``stop()`` ends it all.
export function follow(url, { headers, lastId, onEvent, isOver, onState = () => {} }) {
  let stopped = false;
  let controller = null;
  let delay = 0;
  let wake = null; // ends the current wait before a reconnection
  let nudged = false; // reconnect without waiting next time
  let finished = false; // the stream said ``end``

  async function connect() {
    controller = new AbortController();
    const sent = { ...headers(), Accept: "text/event-stream" };
    if (lastId() > 0) sent["Last-Event-ID"] = String(lastId());
    const answer = await fetch(url, { headers: sent, signal: controller.signal, cache: "no-store" });
    if (!answer.ok) {
      const error = new Error(`the event stream answered ${answer.status}`);
      error.status = answer.status;
      throw error;
    }
    onState("live");
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SSEParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const event of parser.feed(value)) {
        delay = 0;
        if (event.event === "end") finished = true;
        else onEvent(event);
      }
    }
  }

  async function loop() {
    while (!stopped) {
      onState("connecting");
      try {
        await connect();
      } catch (error) {
        if (stopped) return;
        if (error.status && error.status < 500 && error.status !== 429) {
          onState("error", error);
          return;
        }
      }
      if (stopped) return;
      if (finished) {
        await over(); // (the page reads the run's final state)
        onState("ended");
        return;
      }
      if (await over()) {
        onState("ended");
        return;
      }
      delay = Math.min(Math.max(delay * 2, FIRST_DELAY), MAX_DELAY);
      onState("reconnecting", delay);
      if (!nudged) {
        await new Promise((resolve) => {
          wake = resolve;
          setTimeout(resolve, delay);
        });
      }
      wake = null;
      nudged = false;
    }
  }

  async function over() {
    try {
      return await isOver();
    } catch {
      return false;
    }
  }

  loop();
  return {
    stop() {
      stopped = true;
      if (controller) controller.abort();
      if (wake) wake();
    },
    // Reconnect now if waiting to (the run has just started, say).
    nudge() {
      nudged = true;
      if (wake) wake();
    },
  };
}
