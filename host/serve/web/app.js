// The web chat page of `amplifier serve`: plain JavaScript over the server's own JSON + SSE API
// (the routes of /v1/openapi.json). Everything a model or tool wrote reaches the page as text
// (textContent, text nodes), never as HTML, with one exception: a finished answer is shown as
// Markdown (renderMarkdown): raw HTML the model wrote is escaped to text by marked's renderer
// where marked hands it over, and everything then passes DOMPurify with an allow-list of plain
// formatting, so no script, handler, form field or class of the page's own can be forged.

const TOKEN_KEY = "amplifier.serve.token";
const TITLES_KEY = "amplifier.serve.titles";
const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);

// What the page shows: the listed sessions, the one selected, a view of each one opened.
const state = {
  sessions: [], // as GET /v1/sessions lists them, newest first
  selected: null, // a session id, or null: a new conversation
  views: new Map(), // session id → SessionView
  listed: "", // what the list was last drawn from
  refreshes: 0, // refreshSessions calls so far
};

// ---------------------------------------------------------------------------------------------
// DOM

// el("div", {class: "x", dataset: {id}}, child, "text", ...): strings become text nodes.
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// ---------------------------------------------------------------------------------------------
// Markdown: marked (GFM: headings, lists, tables, links, fenced code), DOMPurify, highlight.js.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

// HTML written in the Markdown (a block or inline) is shown as the text it is; an image shows
// its description (the page loads nothing from elsewhere).
function markdownRenderer() {
  const renderer = new window.marked.Renderer();
  renderer.html = (html) => escapeHtml(html);
  renderer.image = (href, title, text) => text || escapeHtml(href || ""); // marked escaped `text`
  return renderer;
}

// What a rendered answer may hold. marked stops escaping text after an inline <pre>, <code> or
// <script> tag of the model's (its raw-block state), so DOMPurify is a real second line: only
// formatting tags, no `class` but a code block's language (the page's own classes, such as
// .approval, must never be forged), task-list checkboxes only, disabled.
const PURIFY = {
  ALLOWED_TAGS: ["p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote",
    "pre", "code", "em", "strong", "del", "a", "table", "thead", "tbody", "tr", "th", "td", "input"],
  ALLOWED_ATTR: ["href", "title", "class", "start", "align", "type", "checked", "disabled"],
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
};
let purifyHooked = false;
function hookPurify(DOMPurify) {
  if (purifyHooked) return;
  purifyHooked = true;
  DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
    if (data.attrName === "class")
      data.keepAttr = node.nodeName === "CODE" && /^language-[\w+-]+$/.test(data.attrValue);
  });
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeName !== "INPUT") return;
    if (node.getAttribute("type") !== "checkbox") node.remove();
    else node.setAttribute("disabled", "");
  });
}

// Renders `text` into `container` as Markdown; without the libraries (a page served without
// them), as text.
function renderMarkdown(container, text) {
  const { marked, DOMPurify, hljs } = window;
  if (!marked || !DOMPurify) {
    container.textContent = text;
    return;
  }
  let clean;
  try {
    hookPurify(DOMPurify);
    const html = marked
      .parse(text, { renderer: markdownRenderer(), gfm: true, headerIds: false, mangle: false })
      .trim(); // no text node after the last block: the answer's text is exactly what was said
    clean = DOMPurify.sanitize(html, PURIFY);
  } catch {
    container.textContent = text; // a library that fails shows the answer as text, never raw
    return;
  }
  // Parsed inertly (a template's content runs nothing) from DOMPurify's sanitised text.
  const template = document.createElement("template");
  template.innerHTML = clean;
  container.replaceChildren(template.content);
  container.classList.add("markdown");
  for (const link of container.querySelectorAll("a")) {
    link.target = "_blank";
    link.rel = "noopener noreferrer";
  }
  for (const code of container.querySelectorAll("pre > code")) {
    if (hljs) hljs.highlightBlock(code);
    const copy = el("button", { class: "copy", type: "button", text: "Copy" });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(code.textContent);
        copy.textContent = "Copied";
      } catch {
        copy.textContent = "Copy failed";
      }
      setTimeout(() => (copy.textContent = "Copy"), 1500);
    });
    code.parentElement.classList.add("code-block");
    code.parentElement.prepend(copy);
  }
}

function prettyJson(value) {
  if (typeof value === "string") return value;
  const compact = JSON.stringify(value);
  return compact !== undefined && compact.length <= 80 ? compact : JSON.stringify(value, null, 2);
}

function shortId(id) {
  return id.slice(0, 8);
}

function formatTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { month: "short", day: "numeric" });
}

// ---------------------------------------------------------------------------------------------
// The API

class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

async function errorFrom(response) {
  const text = await response.text().catch(() => "");
  try {
    const { error } = JSON.parse(text);
    if (error?.message) return new ApiError(response.status, error.type, error.message);
  } catch {
    // not the server's JSON error: show what came
  }
  return new ApiError(response.status, "http", `${response.status} ${text || response.statusText}`);
}

// The bearer token: asked for once when the API answers 401, then kept in localStorage. Requests
// that meet a 401 while the dialog is open wait for the same answer.
let tokenQuestion = null;

function askForToken(rejected) {
  tokenQuestion ??= showTokenDialog(rejected).finally(() => (tokenQuestion = null));
  return tokenQuestion;
}

function showTokenDialog(rejected) {
  const dialog = $("token-dialog");
  const input = $("token-input");
  $("token-rejected").hidden = !rejected;
  input.value = "";
  return new Promise((resolve) => {
    const finish = (given) => {
      $("token-form").removeEventListener("submit", onSubmit);
      $("token-cancel").removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      resolve(given);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      localStorage.setItem(TOKEN_KEY, token);
      showAuthStatus();
      finish(true);
    };
    const onCancel = (event) => {
      event.preventDefault();
      finish(false);
    };
    $("token-form").addEventListener("submit", onSubmit);
    $("token-cancel").addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    input.focus();
  });
}

// fetch() with the token, JSON bodies and the server's JSON errors thrown as ApiError.
// `ask: false` (background refreshes): a 401 throws instead of opening the token dialog.
async function api(method, path, body, { ask = true } = {}) {
  for (;;) {
    const token = localStorage.getItem(TOKEN_KEY);
    const headers = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    // The server refuses a POST or DELETE that is not JSON (a page elsewhere could send
    // text/plain without asking), so every write says so, a DELETE without a body too.
    if (body !== undefined || method === "POST" || method === "DELETE")
      headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
      });
    } catch (error) {
      throw new ApiError(0, "network", `cannot reach the server (${error.message})`);
    }
    if (response.status !== 401) {
      if (!response.ok) throw await errorFrom(response);
      return response;
    }
    if (token) {
      localStorage.removeItem(TOKEN_KEY);
      showAuthStatus();
    }
    if (!ask || !(await askForToken(Boolean(token))))
      throw new ApiError(401, "unauthorized", "this server needs its bearer token");
  }
}

async function apiJson(method, path, body, options) {
  return (await api(method, path, body, options)).json();
}

// The frames of a text/event-stream body as {name, data}, as they arrive.
async function* serverSentEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame) yield frame;
    }
  }
}

function parseFrame(text) {
  let name = "message";
  const data = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith(":")) continue; // ": keep-alive" comments
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { name, data: data.join("\n") } : null;
}

// ---------------------------------------------------------------------------------------------
// Errors and small bits of chrome

function showError(error) {
  $("error-text").textContent = error instanceof Error ? error.message : String(error);
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
}

function showAuthStatus() {
  $("auth-status").hidden = !localStorage.getItem(TOKEN_KEY);
}

// Session titles: metadata.title when the session was given one, else its first prompt,
// remembered in this browser (looked up once per page load for sessions made elsewhere).
const UNTITLED = "New session";
const titles = JSON.parse(localStorage.getItem(TITLES_KEY) || "{}");
const titlesLookedUp = new Set();

function titleFrom(prompt) {
  const line = prompt.trim().split("\n")[0];
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function rememberTitle(id, prompt) {
  if (titles[id] || !prompt.trim()) return;
  titles[id] = titleFrom(prompt);
  localStorage.setItem(TITLES_KEY, JSON.stringify(titles));
}

function forgetTitles(ids) {
  for (const id of ids) delete titles[id];
  localStorage.setItem(TITLES_KEY, JSON.stringify(titles));
}

// A session only the shared store holds ("loaded": false) comes with the store's summary.
function titleOf(session) {
  const meta = session.metadata ?? {};
  const preview = session.stored?.preview;
  return (
    (typeof meta.title === "string" && meta.title) ||
    titles[session.id] ||
    (typeof preview === "string" && preview && titleFrom(preview)) ||
    UNTITLED
  );
}

// The first prompt of each listed session this page has no title for, one request at a time.
async function lookUpTitles() {
  if (lookUpTitles.running) return;
  lookUpTitles.running = true;
  try {
    for (const session of state.sessions) {
      if (titleOf(session) !== UNTITLED || titlesLookedUp.has(session.id)) continue;
      titlesLookedUp.add(session.id);
      const path = `/v1/sessions/${encodeURIComponent(session.id)}`;
      const found = await apiJson("GET", path, undefined, { ask: false }).catch(() => null);
      const first = found?.messages?.find((m) => m.role === "user");
      if (first) rememberTitle(session.id, messageText(first));
    }
  } finally {
    lookUpTitles.running = false;
    drawSessionList();
  }
}

// ---------------------------------------------------------------------------------------------
// One assistant turn: its thinking, text and tool calls, live from the event stream or rebuilt
// from a session's stored messages.

const DECISION_LABELS = { allow_once: "Allow once", allow_always: "Always allow", deny: "Deny" };

class TurnView {
  constructor(parent) {
    this.root = el("div", { class: "turn" });
    this.body = el("div", { class: "turn-body" });
    this.root.append(el("div", { class: "avatar", "aria-hidden": "true", text: "A" }), this.body);
    parent.append(this.root);
    this.blocks = new Map(); // block_index → {node, card?} of the current provider call
    this.tools = new Map(); // tool_call_id → its card
    this.countdowns = new Set();
  }

  // --- live events ---

  handle(name, data) {
    switch (name) {
      case "provider:request":
        this.blocks = new Map(); // each provider call numbers its blocks from 0
        this.setWorking(true);
        break;
      case "provider:retry":
        this.note("retrying the provider…", "muted");
        break;
      case "provider:error":
        this.note(`provider error: ${errorText(data.error) || "unknown"}`, "error");
        break;
      case "content_block:start":
        this.startBlock(data.block_type, data.block_index);
        break;
      case "content_block:delta":
        this.appendDelta(data.block_index, data.delta ?? {});
        break;
      case "content_block:end":
        this.endBlock(data.block_index, data.block ?? {});
        break;
      case "approval:request":
        this.askApproval(data);
        break;
      case "approval:granted":
      case "approval:denied":
        this.approvalAnswered(data, name === "approval:granted");
        break;
      case "tool:pre":
        this.toolCard(data.tool_call_id, data.tool_name, data.tool_input).setState("running");
        break;
      case "tool:post":
        this.toolResult(data.tool_call_id, data.result ?? {});
        break;
      case "tool:error":
        this.toolCard(data.tool_call_id, data.tool_name).fail(
          errorText(data.error) || "the tool failed",
        );
        break;
    }
  }

  startBlock(type, index) {
    const block = {};
    if (type === "thinking" || type === "redacted_thinking" || type === "reasoning") {
      block.node = this.addThinking("", false);
    } else if (type === "tool_call") {
      block.card = new ToolCard(this.body, null, "…");
      block.node = block.card.root;
    } else {
      block.node = this.addText("");
    }
    this.blocks.set(index, block);
    this.keepWorkingLast();
    return block;
  }

  appendDelta(index, delta) {
    const block =
      this.blocks.get(index) ??
      this.startBlock(delta.type === "tool_input" ? "tool_call" : delta.type, index);
    const piece = delta.text ?? delta.thinking ?? delta.partial_json ?? "";
    if (typeof piece !== "string" || !piece) return;
    if (block.card) block.card.appendInput(piece);
    else block.node.querySelector(".stream").append(piece);
  }

  endBlock(index, final) {
    const block = this.blocks.get(index) ?? this.startBlock(final.type, index);
    if (final.type === "tool_call") {
      block.card.identify(final.id, final.name, final.input);
      this.tools.set(final.id, block.card);
    } else if (block.node.matches("details.thinking")) {
      this.finishThinking(block.node, thinkingText(final));
    } else if (typeof final.text === "string") {
      renderMarkdown(block.node.querySelector(".stream"), final.text); // exactly what was stored
    }
  }

  askApproval({
    approval_id: approvalId,
    request = {},
    timeout_seconds: timeout,
    default: fallback,
  }) {
    const callId = request.details?.tool_call_id;
    const card = this.tools.get(callId);
    const box = el("div", { class: "approval", dataset: { approvalId } });
    box.append(el("p", { class: "approval-prompt", text: request.prompt ?? "Allow this action?" }));
    const actions = el("div", { class: "approval-actions" });
    const options = (request.options ?? Object.keys(DECISION_LABELS)).filter(
      (o) => DECISION_LABELS[o],
    );
    for (const decision of options) {
      const button = el("button", {
        type: "button",
        class: decision === "deny" ? "danger" : decision === "allow_once" ? "primary" : "",
        dataset: { decision },
        text: DECISION_LABELS[decision],
      });
      button.addEventListener("click", () => this.answer(box, approvalId, decision));
      actions.append(button);
    }
    box.append(actions);
    if (timeout > 0) box.append(this.countdown(timeout, fallback ?? "deny"));
    (card ? card.approvalSlot : this.body).append(box);
    card?.setState("waiting");
    this.keepWorkingLast();
  }

  countdown(seconds, fallback) {
    const note = el("p", { class: "approval-timeout" });
    const ends = Date.now() + seconds * 1000;
    const tick = () => {
      const left = Math.max(0, Math.round((ends - Date.now()) / 1000));
      const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      const outcome = DECISION_LABELS[fallback] ?? fallback;
      note.textContent = `Unanswered, this becomes “${outcome}” in ${clock}`;
    };
    tick();
    const timer = setInterval(tick, 1000);
    this.countdowns.add(timer);
    note.stop = () => {
      clearInterval(timer);
      this.countdowns.delete(timer);
    };
    return note;
  }

  async answer(box, approvalId, decision) {
    const buttons = box.querySelectorAll("button");
    buttons.forEach((b) => (b.disabled = true));
    try {
      await api("POST", `${this.sessionPath}/approvals/${encodeURIComponent(approvalId)}`, {
        decision,
      });
      box.dataset.answered = decision;
    } catch (error) {
      buttons.forEach((b) => (b.disabled = false));
      showError(
        error.status === 404
          ? "This approval is no longer waiting (it was answered or timed out)."
          : error,
      );
    }
  }

  approvalAnswered(data, granted) {
    const card = this.tools.get(data.tool_call_id);
    // The page's own boxes only, never anything inside a rendered answer.
    const box = [...(card?.root ?? this.body).querySelectorAll(".approval:not(.resolved)")].find(
      (b) => !b.closest(".markdown"),
    );
    if (!box) return;
    box.classList.add("resolved", granted ? "granted" : "denied");
    box.querySelector(".approval-timeout")?.stop?.();
    const label = granted
      ? data.decision === "allow_always"
        ? "Always allowed"
        : "Allowed"
      : "Denied";
    const why = data.source === "user" ? "" : ` (${data.reason || data.source || "automatically"})`;
    box.replaceChildren(
      el(
        "p",
        { class: "approval-prompt" },
        box.querySelector(".approval-prompt")?.textContent ?? "",
      ),
      el("p", { class: "approval-outcome", text: `${label}${why}` }),
    );
    if (card && !granted) card.setState("denied");
  }

  toolCard(callId, name, input) {
    let card = this.tools.get(callId);
    if (!card) {
      card = new ToolCard(this.body, callId, name, input);
      this.tools.set(callId, card);
      this.keepWorkingLast();
    }
    return card;
  }

  toolResult(callId, result) {
    const card = this.toolCard(callId, undefined);
    if (result.success === false)
      card.fail(result.error?.message ?? prettyJson(result.output ?? "failed"));
    else card.setOutput(result.output);
  }

  // --- building blocks, shared with history ---

  addThinking(text, done) {
    const details = el(
      "details",
      { class: "thinking" },
      el("summary", { text: "Thinking…" }),
      el("div", { class: "stream" }, text),
    );
    this.body.append(details);
    if (done) this.finishThinking(details, text);
    return details;
  }

  finishThinking(details, text) {
    if (text) details.querySelector(".stream").textContent = text;
    const words = details
      .querySelector(".stream")
      .textContent.trim()
      .split(/\s+/)
      .filter(Boolean).length;
    details.querySelector("summary").textContent = words
      ? `Thought (${words} words)`
      : "Thought (hidden)";
    details.classList.add("done");
  }

  // An answer's text: streamed into as text, shown as Markdown once whole (`markdown`: at once).
  addText(text, markdown = false) {
    const stream = el("div", { class: "stream" }, text);
    if (markdown) renderMarkdown(stream, text);
    const node = el("div", { class: "text" }, stream);
    this.body.append(node);
    return node;
  }

  note(text, kind) {
    this.body.append(el("p", { class: `note ${kind}`, text }));
    this.keepWorkingLast();
  }

  // The "working" dots sit at the end of the turn while it runs.
  setWorking(on) {
    if (on && !this.working)
      this.working = el(
        "div",
        { class: "working", "aria-label": "working" },
        el("span"),
        el("span"),
        el("span"),
      );
    if (on) this.body.append(this.working);
    else this.working?.remove();
  }

  keepWorkingLast() {
    if (this.working?.isConnected) this.body.append(this.working);
  }

  finish({ status, error, response } = {}) {
    this.setWorking(false);
    for (const timer of this.countdowns) clearInterval(timer);
    for (const box of this.body.querySelectorAll(".approval:not(.resolved)")) {
      box.classList.add("resolved");
      box.querySelector(".approval-actions")?.remove();
      box.querySelector(".approval-timeout")?.remove();
      box.append(el("p", { class: "approval-outcome", text: "The turn ended before an answer." }));
    }
    this.root.dataset.status = status ?? "error";
    if (status === "cancelled") this.note("Stopped.", "muted");
    else if (status === "incomplete") this.note("The answer was cut off (incomplete).", "muted");
    else if (status !== "success")
      this.note(`Error: ${errorText(error) || "the turn failed"}`, "error");
    if (status === "success" && response && !this.body.querySelector(".text .stream:not(:empty)"))
      this.addText(response); // an orchestrator that did not stream its answer
  }
}

function thinkingText(block) {
  if (typeof block.thinking === "string") return block.thinking;
  if (block.type === "redacted_thinking") return "";
  const parts = [block.summary, block.content].flat().filter(Boolean);
  return parts.map((p) => (typeof p === "string" ? p : (p.text ?? ""))).join("\n");
}

function errorText(error) {
  if (!error) return "";
  if (typeof error === "string") return error;
  return error.message ?? JSON.stringify(error);
}

const TOOL_STATES = {
  pending: "",
  waiting: "waiting for approval",
  running: "running…",
  done: "done",
  failed: "failed",
  denied: "not run",
  stored: "", // from history, which does not keep whether the tool succeeded
};

// A tool call: its name, input, approval and result.
class ToolCard {
  constructor(parent, callId, name, input) {
    this.name = el("span", { class: "tool-name", text: name ?? "tool" });
    this.state = el("span", { class: "tool-state" });
    this.input = el("pre", { class: "tool-input" });
    this.approvalSlot = el("div", { class: "tool-approval" });
    this.root = el(
      "div",
      { class: "tool", dataset: { state: "pending" } },
      el(
        "div",
        { class: "tool-head" },
        el("span", { class: "tool-icon", "aria-hidden": "true", text: "⚙" }),
        this.name,
        this.state,
      ),
      this.input,
      this.approvalSlot,
    );
    if (callId) this.root.dataset.callId = callId;
    if (input !== undefined) this.input.textContent = prettyJson(input);
    parent.append(this.root);
  }

  identify(callId, name, input) {
    this.root.dataset.callId = callId;
    if (name) this.name.textContent = name;
    if (input !== undefined) this.input.textContent = prettyJson(input);
  }

  appendInput(fragment) {
    this.input.append(fragment);
  }

  setState(toolState) {
    this.root.dataset.state = toolState;
    this.state.textContent = TOOL_STATES[toolState] ?? toolState;
  }

  setOutput(output, toolState = "done") {
    const text = output === undefined || output === null ? "(no output)" : prettyJson(output);
    const lines = text.split("\n").length;
    const details = el(
      "details",
      { class: "tool-output", open: lines <= 12 },
      el("summary", { text: lines > 1 ? `Result (${lines} lines)` : "Result" }),
      el("pre", { text }),
    );
    this.root.querySelector(".tool-output")?.remove();
    this.root.append(details);
    this.setState(toolState);
  }

  fail(message) {
    this.setOutput(message, "failed");
  }
}

// ---------------------------------------------------------------------------------------------
// One session's transcript: its stored messages, then the turns run from this page.

class SessionView {
  constructor(id) {
    this.id = id;
    this.path = `/v1/sessions/${encodeURIComponent(id)}`;
    this.root = el("div", { class: "session-view", dataset: { id } });
    this.loaded = false;
    this.turn = null; // the TurnView streaming now
  }

  get running() {
    return this.turn !== null;
  }

  async load() {
    const session = await apiJson("GET", this.path);
    this.root.replaceChildren();
    renderHistory(this, session.messages ?? []);
    this.loaded = true;
    this.mode = session.mode ?? null;
    this.cost = session.ledger?.total?.usd ?? null;
    updateChrome();
  }

  addUser(text) {
    this.root.append(el("div", { class: "user" }, el("div", { class: "bubble", text })));
  }

  // What the header shows of the session: its cost (this session's ledger, not a child's) and
  // its mode, as the turn's events change them.
  follow(name, data) {
    if (name === "ledger:update" && data.session_id === this.id) {
      this.cost = data.ledger?.total?.usd ?? this.cost;
      updateChrome();
    } else if (name === "mode:changed" && data.session_id === this.id) {
      this.mode = data.to ?? null;
      updateChrome();
    }
  }

  newTurn() {
    const turn = new TurnView(this.root);
    turn.sessionPath = this.path;
    return turn;
  }

  async run(prompt) {
    this.addUser(prompt);
    rememberTitle(this.id, prompt);
    const turn = (this.turn = this.newTurn());
    turn.setWorking(true);
    drawSessionList();
    updateChrome();
    scrollToEnd(true);
    let result = null;
    try {
      const response = await api("POST", `${this.path}/messages`, { prompt });
      for await (const frame of serverSentEvents(response)) {
        const event = JSON.parse(frame.data);
        const nearEnd = isNearEnd();
        if (frame.name === "turn:result") result = event.data ?? {};
        else {
          this.follow(frame.name, event.data ?? {});
          turn.handle(frame.name, event.data ?? {});
        }
        if (nearEnd) scrollToEnd();
      }
      turn.finish(result ?? { status: "error", error: "the connection ended before the turn did" });
    } catch (error) {
      turn.finish({ status: "error", error: error.message });
      if (error.status === 409 || error.status === 400) restorePrompt(prompt);
    } finally {
      this.turn = null;
      const listed = state.sessions.find((s) => s.id === this.id);
      if (listed) listed.running = false; // until the refresh below says otherwise
      updateChrome();
      refreshSessions();
      scrollToEnd();
    }
  }
}

// Stored messages as the page shows a live turn: user bubbles, and each run of assistant and tool
// messages as one turn.
function blocksOf(message) {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

function messageText(message) {
  return blocksOf(message)
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

function renderHistory(view, messages) {
  let turn = null;
  for (const message of messages) {
    const blocks = blocksOf(message);
    if (message.role === "user") {
      turn = null;
      const text = messageText(message);
      if (text) {
        view.addUser(text);
        rememberTitle(view.id, text);
      }
    } else if (message.role === "assistant") {
      turn ??= view.newTurn();
      for (const block of blocks) renderStoredBlock(turn, block);
    } else if (message.role === "tool") {
      turn ??= view.newTurn();
      for (const block of blocks)
        if (block.type === "tool_result")
          turn
            .toolCard(block.tool_call_id ?? message.tool_call_id, message.name)
            .setOutput(block.output, "stored");
    }
  }
}

function renderStoredBlock(turn, block) {
  if (["thinking", "redacted_thinking", "reasoning"].includes(block.type)) {
    turn.addThinking(thinkingText(block), true);
  } else if (block.type === "text" && block.text) {
    turn.addText(block.text, true);
  } else if (block.type === "tool_call") {
    turn.toolCard(block.id, block.name, block.input ?? {});
  }
}

// ---------------------------------------------------------------------------------------------
// The page: the session list, the selected session, the composer.

function selectedView() {
  return state.selected ? state.views.get(state.selected) : null;
}

async function refreshSessions({ ask = false } = {}) {
  const refresh = ++state.refreshes;
  try {
    const { sessions } = await apiJson("GET", "/v1/sessions", undefined, { ask });
    if (refresh !== state.refreshes) return; // a newer refresh started meanwhile: it knows more
    state.sessions = sessions.slice().reverse();
    const gone = Object.keys(titles).filter((id) => !sessions.some((s) => s.id === id));
    if (gone.length) forgetTitles(gone); // sessions deleted elsewhere, or a restarted server
    drawSessionList();
    updateChrome();
    lookUpTitles();
  } catch (error) {
    if (ask || error.status !== 401) showError(error);
  }
}

function drawSessionList() {
  const drawn = JSON.stringify([state.sessions, state.selected, titles]);
  if (drawn === state.listed) return;
  state.listed = drawn;
  const list = $("session-list");
  list.replaceChildren(
    ...state.sessions.map((session) => {
      const open = el(
        "button",
        {
          type: "button",
          class: "session",
          "aria-current": session.id === state.selected ? "true" : false,
          title: session.id,
          dataset: { id: session.id },
        },
        el("span", { class: "session-title", text: titleOf(session) }),
        el("span", {
          class: "session-sub",
          text: `${formatTime(session.created ?? session.stored?.updated)} · ${shortId(session.id)}`,
        }),
        session.running ? el("span", { class: "running-dot", title: "a turn is running" }) : null,
      );
      open.addEventListener("click", () => selectSession(session.id));
      const remove = el("button", {
        type: "button",
        class: "icon delete",
        "aria-label": "Delete session",
        text: "×",
      });
      remove.addEventListener("click", () => deleteSession(session));
      return el("li", {}, open, remove);
    }),
  );
  $("session-empty").hidden = state.sessions.length > 0;
}

async function selectSession(id) {
  clearError();
  state.selected = id;
  history.replaceState(null, "", id ? `#${id}` : location.pathname);
  let view = id ? state.views.get(id) : null;
  if (id && !view) {
    view = new SessionView(id);
    state.views.set(id, view);
    $("transcript").append(view.root);
  }
  for (const other of state.views.values()) other.root.hidden = other !== view;
  $("welcome").hidden = Boolean(view);
  drawSessionList();
  updateChrome();
  if (view && !view.loaded && !view.running) {
    try {
      await view.load();
      drawSessionList();
      updateChrome();
    } catch (error) {
      showError(error);
      if (error.status === 404) dropSession(id);
    }
  }
  scrollToEnd(true);
  $("prompt").focus();
}

// `firstPrompt`: the message that makes the session, its title for every client.
async function createSession(firstPrompt) {
  const plan = $("plan-name").value.trim();
  const body = { metadata: { client: "web" } };
  if (firstPrompt) body.metadata.title = titleFrom(firstPrompt);
  if (plan) body.plan = plan;
  const { id } = await apiJson("POST", "/v1/sessions", body);
  await refreshSessions();
  await selectSession(id);
  return id;
}

async function deleteSession(session) {
  if (!confirm(`Delete “${titleOf(session)}”? Its history is gone for good.`)) return;
  try {
    await api("DELETE", `/v1/sessions/${encodeURIComponent(session.id)}`);
  } catch (error) {
    if (error.status !== 404) return showError(error);
  }
  dropSession(session.id);
  refreshSessions();
}

function dropSession(id) {
  state.views.get(id)?.root.remove();
  state.views.delete(id);
  forgetTitles([id]);
  if (state.selected === id) selectSession(null);
}

function updateChrome() {
  const view = selectedView();
  const session = state.sessions.find((s) => s.id === state.selected);
  $("session-title").textContent = session
    ? titleOf(session)
    : view
      ? UNTITLED
      : "New conversation";
  const started = session?.created
    ? ` · started ${new Date(session.created).toLocaleString()}`
    : "";
  // The session's mode and what it cost so far, as the server last said (GET, ledger:update).
  const mode = view?.mode ? ` · ${view.mode} mode` : "";
  const cost = typeof view?.cost === "number" ? ` · $${view.cost.toFixed(4)}` : "";
  $("session-meta").textContent = state.selected ? `${state.selected}${started}${mode}${cost}` : "";
  const runningHere = Boolean(view?.running);
  const runningElsewhere = !runningHere && Boolean(session?.running);
  const status = $("turn-status");
  status.hidden = !runningHere && !runningElsewhere;
  status.textContent = runningHere ? "answering…" : "running in another client";
  $("send").hidden = runningHere;
  $("cancel").hidden = !runningHere;
  $("cancel").disabled = false;
  document.title = session ? `${titleOf(session)} · amplifier` : "amplifier";
}

function restorePrompt(prompt) {
  const box = $("prompt");
  if (!box.value) box.value = prompt;
  fitPrompt();
}

async function send() {
  const box = $("prompt");
  const prompt = box.value;
  if (!prompt.trim() || selectedView()?.running) return;
  clearError();
  try {
    if (!state.selected) await createSession(prompt);
  } catch (error) {
    return showError(error);
  }
  box.value = "";
  fitPrompt();
  await selectedView().run(prompt);
}

async function cancelTurn() {
  const view = selectedView();
  if (!view?.running) return;
  $("cancel").disabled = true;
  try {
    await api("POST", `${view.path}/cancel`, { level: "immediate" });
  } catch (error) {
    showError(error);
    $("cancel").disabled = false;
  }
}

function isNearEnd() {
  const t = $("transcript");
  return t.scrollHeight - t.scrollTop - t.clientHeight < 80;
}

function scrollToEnd(force = false) {
  const t = $("transcript");
  if (force || isNearEnd()) t.scrollTop = t.scrollHeight;
}

function fitPrompt() {
  const box = $("prompt");
  box.style.height = "auto";
  box.style.height = `${Math.min(box.scrollHeight, 240)}px`;
}

function wire() {
  $("new-session").addEventListener("click", () => {
    clearError();
    createSession().catch(showError);
  });
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  $("prompt").addEventListener("input", fitPrompt);
  $("cancel").addEventListener("click", cancelTurn);
  $("error-close").addEventListener("click", clearError);
  $("forget-token").addEventListener("click", () => {
    localStorage.removeItem(TOKEN_KEY);
    showAuthStatus();
  });
  window.addEventListener("hashchange", () => {
    const id = location.hash.slice(1) || null;
    if (id !== state.selected) selectSession(id);
  });
  setInterval(() => {
    if (document.visibilityState === "visible" && !tokenQuestion) refreshSessions();
  }, REFRESH_MS);
}

// The URL serve prints ends in #token=TOKEN: the page keeps the token in this origin's
// localStorage (a cookie would also reach every other server on the same host, whatever its
// port) and takes it out of the address bar and the history. A fragment never reaches a server.
function takeTokenFromUrl() {
  const match = /^#token=([0-9A-Za-z._~-]+)$/.exec(location.hash);
  if (!match) return;
  localStorage.setItem(TOKEN_KEY, match[1]);
  history.replaceState(null, "", location.pathname + location.search);
}

async function start() {
  takeTokenFromUrl();
  wire();
  showAuthStatus();
  await refreshSessions({ ask: true });
  const wanted = location.hash.slice(1);
  if (wanted && state.sessions.some((s) => s.id === wanted)) await selectSession(wanted);
  document.body.dataset.ready = "true";
}

start();
