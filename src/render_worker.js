// The renderer's Web Worker (served as /pkg/render_worker.js; copied there by
// scripts/build-renderer.sh). It loads the renderer module
// (pensive_render.js, src/render_module.rs) and does all Markdown, math,
// highlighting and sanitizing off the page's main thread, so no text a model
// writes can cost the page more than applying the fragments it gets back.
// The page side is src/app/lazy_renderer/mod.rs; the protocol, one reply per
// request and in order:
//
//   page -> worker
//     {op: "frame", id, stream, withoutTopics, reset, appended, last}
//         -> {id, frame: "<JSON of stream_render::Frame>", ms}
//     {op: "export", id, json, withReasoning}
//                               -> {id, markdown} or {id, error} (the file
//                                  did not decode); json: one conversation's
//                                  envelope or all of them (Export all)
//     {op: "free", stream}      (no reply)
//   worker -> page, once: {op: "ready"} after loading and warming up,
//                         or {op: "failed", error}
//
// A render that throws (a panic is a trap) answers {id, error, broken: true}:
// the page then replaces this worker, whose WebAssembly instance is broken. A render that
// never ends is the page's to cut short: it terminates the worker.
//
// `stallOn` (set only by the test suite, through the page's
// window.__pensiveRenderTest) makes a render of a text containing it spin:
// the way the suite reaches the page's deadline.

import init, { RenderStream, export_markdown, warm_up } from './pensive_render.js';

const streams = new Map();
let stallOn = null;

function stall() {
  const until = performance.now() + 60_000;
  while (performance.now() < until) {
    // A render that never ends, as far as the page can tell.
  }
}

function handle(message) {
  switch (message.op) {
    case 'frame': {
      const started = performance.now();
      let stream = streams.get(message.stream);
      if (!stream) {
        stream = new RenderStream(message.withoutTopics);
        streams.set(message.stream, stream);
      }
      if (message.reset) stream.reset();
      if (stallOn && message.appended.includes(stallOn)) stall();
      if (message.appended) stream.push(message.appended);
      const frame = stream.frame(message.last);
      postMessage({ id: message.id, frame, ms: performance.now() - started });
      break;
    }
    case 'export':
      try {
        postMessage({ id: message.id, markdown: export_markdown(message.json, message.withReasoning !== false) });
      } catch (error) {
        // A record that does not decode is the caller's to report; a trap
        // (below) breaks the instance.
        if (error instanceof WebAssembly.RuntimeError) throw error;
        postMessage({ id: message.id, error: String(error) });
      }
      break;
    case 'free': {
      const stream = streams.get(message.stream);
      streams.delete(message.stream);
      if (stream) stream.free();
      break;
    }
    case 'test':
      stallOn = typeof message.stallOn === 'string' && message.stallOn ? message.stallOn : null;
      break;
  }
}

// Messages that come before the module has loaded wait for it, in order.
let queue = [];
let loaded = false;

self.onmessage = ({ data }) => {
  if (!loaded) {
    queue.push(data);
    return;
  }
  run(data);
};

function run(message) {
  try {
    handle(message);
  } catch (error) {
    if (message.id !== undefined) postMessage({ id: message.id, error: String(error), broken: true });
  }
}

init()
  .then(() => {
    // Every path of the renderer once, so the first real frames do not pay
    // for compiling them.
    warm_up();
    loaded = true;
    postMessage({ op: 'ready' });
    const waiting = queue;
    queue = [];
    waiting.forEach(run);
  })
  .catch((error) => postMessage({ op: 'failed', error: String(error) }));
