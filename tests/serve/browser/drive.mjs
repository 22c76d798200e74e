// Drives amplifier serve's web chat page in Debian's headless Chromium (puppeteer-core, which
// never downloads a browser). Run by tests/serve/test_serve_browser.cpp.
//
//   node drive.mjs chat  URL SCREENSHOT.png         a whole turn: approval, tool call, thinking,
//                                                    streamed answer, the session list, a reload
//   node drive.mjs token URL TOKEN SCREENSHOT.png   a server that wants its bearer token
//   node drive.mjs markdown URL SCREENSHOT.png      an answer in Markdown, with HTML in it
//
// Prints one JSON line: what the page showed (the C++ test checks it), or {"error": "..."} with
// exit status 1. CHROMIUM names the browser (default /usr/bin/chromium).
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import puppeteer from "puppeteer-core";

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const STEP_TIMEOUT_MS = 20000;

class Failure extends Error {}

function check(condition, message) {
  if (!condition) throw new Failure(message);
}

async function launch() {
  check(
    existsSync(CHROMIUM),
    `no Chromium at ${CHROMIUM}: install Debian's chromium package (scripts/install-deps.sh)`,
  );
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // --no-sandbox: Chromium's sandbox refuses to run as root (CI and the test machines).
    args: [
      "--no-sandbox",
      "--disable-dev-shm-usage",
      "--disable-gpu",
      "--no-first-run",
      "--disable-extensions",
      "--lang=en-US",
      "--force-prefers-reduced-motion",
    ],
  });
}

// A page that records what should never happen: script errors, console errors, CSP violations.
async function openPage(browser, url, { expected = [] } = {}) {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  await page.setViewport({ width: 1280, height: 860 });
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    const text = message.text();
    if (message.type() === "error" && !expected.some((pattern) => pattern.test(text)))
      problems.push(`console error: ${text}`);
  });
  await page.evaluateOnNewDocument(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, problems };
}

async function screenshot(page, path) {
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path });
  return path;
}

async function textOf(page, selector) {
  return page.$eval(selector, (node) => node.textContent);
}

// Samples the answer's text every few milliseconds until the turn ends: a streamed answer is seen
// in pieces before it is whole.
async function watchAnswer(page) {
  await page.evaluate(() => {
    window.answerSamples = [];
    window.answerWatch = setInterval(() => {
      const texts = document.querySelectorAll(".session-view:not([hidden]) .turn .text .stream");
      const last = texts[texts.length - 1]?.textContent ?? "";
      const samples = window.answerSamples;
      if (samples[samples.length - 1] !== last) samples.push(last);
    }, 5);
  });
}

async function answerSamples(page) {
  return page.evaluate(() => {
    clearInterval(window.answerWatch);
    return window.answerSamples;
  });
}

// Clicks "New session", waits until the new one is selected and sends `prompt` in it.
async function newSessionWith(page, prompt) {
  const before = await page.$$eval("#session-list button.session", (b) =>
    b.map((n) => n.dataset.id),
  );
  await page.click("#new-session");
  const current = await page.waitForFunction(
    (known) => {
      const selected = document.querySelector("#session-list button.session[aria-current=true]");
      return selected && !known.includes(selected.dataset.id) && selected.dataset.id;
    },
    {},
    before,
  );
  await page.waitForSelector(".session-view:not([hidden])");
  await page.type("#prompt", prompt);
  await page.keyboard.press("Enter");
  return current.jsonValue();
}

const VISIBLE = ".session-view:not([hidden])";

// What the selected session's finished turn shows.
async function finishedTurn(page) {
  const turn = await page.waitForSelector(`${VISIBLE} .turn[data-status]`, { timeout: 30000 });
  return turn.evaluate((node) => ({
    status: node.dataset.status,
    tool_state: node.querySelector(".tool")?.dataset.state ?? null,
    approval_outcome: node.querySelector(".approval-outcome")?.textContent ?? null,
    approval_buttons: node.querySelectorAll(".approval button").length,
    notes: [...node.querySelectorAll(".note")].map((n) => n.textContent),
    answer: [...node.querySelectorAll(".text .stream")].map((s) => s.textContent),
  }));
}

async function chat(url, shot) {
  const browser = await launch();
  try {
    const { page, problems } = await openPage(browser, url);
    await page.waitForSelector("body[data-ready=true]");

    const prompt = "What is in this folder?";
    const sessionId = await newSessionWith(page, prompt);

    // The first answer: thinking, a line of text, then a tool call that needs approval.
    const allow = await page.waitForSelector(".tool .approval button[data-decision=allow_once]");
    const waiting = await page.$eval(".tool", (card) => ({
      name: card.querySelector(".tool-name").textContent,
      input: card.querySelector(".tool-input").textContent,
      state: card.dataset.state,
      prompt: card.querySelector(".approval-prompt").textContent,
      buttons: [...card.querySelectorAll(".approval button")].map((b) => b.textContent),
    }));
    const thinking = await page.$eval("details.thinking", (details) => ({
      open: details.open,
      summary: details.querySelector("summary").textContent,
      text: details.querySelector(".stream").textContent,
      text_visible: details.querySelector(".stream").checkVisibility(),
    }));
    const approvalShot = await screenshot(page, shot.replace(/\.png$/, "-approval.png"));

    await watchAnswer(page);
    await allow.click();
    await page.waitForSelector(".turn[data-status]", { timeout: 30000 });
    const samples = await answerSamples(page);
    const turn = await page.$eval(".turn[data-status]", (node) => ({
      status: node.dataset.status,
      answer: [...node.querySelectorAll(".text .stream")].map((s) => s.textContent),
      markup_in_answer: node.querySelectorAll(".text b, .text script").length,
      tool_state: node.querySelector(".tool").dataset.state,
      tool_output: node.querySelector(".tool .tool-output pre")?.textContent ?? null,
      approval_outcome: node.querySelector(".approval-outcome")?.textContent ?? null,
      thinking_open: node.querySelector("details.thinking").open,
      thinking_summary: node.querySelector("details.thinking summary").textContent,
    }));
    const answer = turn.answer[turn.answer.length - 1];
    const partials = samples.filter(
      (s) => s.length > 0 && s.length < answer.length && answer.startsWith(s),
    );

    await page.waitForFunction(
      (id) =>
        document.querySelector(`#session-list button.session[data-id="${id}"] .session-title`)
          ?.textContent.length > 0,
      {},
      sessionId,
    );
    const listed = await page.$$eval("#session-list button.session", (buttons) =>
      buttons.map((b) => ({
        id: b.dataset.id,
        title: b.querySelector(".session-title").textContent,
      })),
    );
    const finalShot = await screenshot(page, shot);

    // The history again, from GET /v1/sessions/{id}, after a reload (the hash keeps the session).
    await page.reload({ waitUntil: "load" });
    await page.waitForSelector("body[data-ready=true]");
    await page.waitForSelector(".session-view:not([hidden]) .turn .tool .tool-output");
    const history = await page.$eval(".session-view:not([hidden])", (view) => ({
      user: [...view.querySelectorAll(".user .bubble")].map((b) => b.textContent),
      thinking_open: [...view.querySelectorAll("details.thinking")].map((d) => d.open),
      tools: [...view.querySelectorAll(".tool")].map((t) => ({
        name: t.querySelector(".tool-name").textContent,
        output: t.querySelector(".tool-output pre")?.textContent ?? null,
      })),
      answer: [...view.querySelectorAll(".text .stream")].map((s) => s.textContent),
    }));
    const title = await textOf(page, "#session-title");

    // Deny: the tool does not run, the turn goes on to its answer.
    await newSessionWith(page, "Try it, and I will say no.");
    await (await page.waitForSelector(`${VISIBLE} .approval button[data-decision=deny]`)).click();
    const denied = await finishedTurn(page);

    // Stop while the approval waits: the turn is cancelled, the question withdrawn.
    await newSessionWith(page, "Start, then stop.");
    await page.waitForSelector(`${VISIBLE} .approval button[data-decision=allow_once]`);
    await page.click("#cancel");
    const stopped = await finishedTurn(page);
    const composer = await page.evaluate(() => ({
      send_shown: !document.querySelector("#send").hidden,
      stop_shown: !document.querySelector("#cancel").hidden,
    }));

    return {
      session_id: sessionId,
      prompt,
      thinking,
      waiting,
      turn,
      streamed: {
        samples: samples.length,
        partials: partials.length,
        example: partials[0] ?? null,
      },
      listed,
      history,
      title_after_reload: title,
      denied,
      stopped: { ...stopped, ...composer },
      sessions_listed: await page.$$eval("#session-list button.session", (b) => b.length),
      problems,
      screenshots: [approvalShot, finalShot],
    };
  } finally {
    await browser.close();
  }
}

async function token(url, secret, shot) {
  const browser = await launch();
  try {
    // The API's 401 answers are what makes the page ask; the browser logs each one.
    const { page, problems } = await openPage(browser, url, { expected: [/status of 401/] });
    await page.waitForSelector("#token-dialog[open]");
    const rejectedAtFirst = await page.$eval("#token-rejected", (node) => !node.hidden);
    await page.type("#token-input", "not-the-token");
    await page.click("#token-form button[type=submit]");
    await page.waitForSelector("#token-dialog[open] #token-rejected:not([hidden])");
    const dialogShot = await screenshot(page, shot);
    await page.type("#token-input", secret);
    await page.click("#token-form button[type=submit]");
    await page.waitForSelector("body[data-ready=true]");
    await page.click("#new-session");
    await page.waitForSelector("#session-list button.session[aria-current=true]");
    return {
      rejected_at_first: rejectedAtFirst,
      wrong_token_rejected: true,
      dialog_open: await page.$eval("#token-dialog", (d) => d.open),
      sessions: await page.$$eval("#session-list button.session", (b) => b.length),
      token_saved:
        (await page.evaluate(() => localStorage.getItem("amplifier.serve.token"))) === secret,
      auth_status_shown: await page.$eval("#auth-status", (node) => !node.hidden),
      problems,
      screenshots: [dialogShot],
    };
  } finally {
    await browser.close();
  }
}

// An answer in Markdown with model-written HTML in it: what the page made of it, then after a
// reload (the stored history renders the same way).
async function markdown(url, shot) {
  const browser = await launch();
  try {
    const { page, problems } = await openPage(browser, url);
    await page.waitForSelector("body[data-ready=true]");
    await newSessionWith(page, "Show me some Markdown");
    await page.waitForSelector(`${VISIBLE} .turn[data-status]`, { timeout: 30000 });
    const read = () =>
      page.$eval(VISIBLE, (view) => {
        const answer = [...view.querySelectorAll(".text .markdown")].pop();
        return {
          pwned: window.__pwned ?? null,
          headings: [...answer.querySelectorAll("h2")].map((h) => h.textContent),
          list_items: answer.querySelectorAll("ul > li").length,
          table_cells: [...answer.querySelectorAll("table td")].map((td) => td.textContent),
          link: answer.querySelector("a") && {
            href: answer.querySelector("a").getAttribute("href"),
            target: answer.querySelector("a").target,
            rel: answer.querySelector("a").rel,
          },
          code: answer.querySelector("pre > code")?.textContent ?? null,
          code_highlighted: answer.querySelectorAll("pre > code.hljs span").length,
          copy_buttons: answer.querySelectorAll("pre.code-block > button.copy").length,
          markup: answer.querySelectorAll("script, img, iframe, [onerror], [onclick], b").length,
          shown_as_text: answer.textContent.includes("<img src=x onerror=") &&
            answer.textContent.includes("<script>"),
          javascript_links: answer.querySelectorAll('a[href^="javascript"]').length,
          // Anything of the page's own a model could forge: its classes, form fields.
          forged: answer.querySelectorAll(
            '.approval, .copy:not(pre.code-block > button), input:not([type=checkbox]), [class]:not(code):not(pre.code-block):not(button.copy):not([class^="hljs"])',
          ).length,
        };
      });
    const live = await read();
    await screenshot(page, shot);
    await page.reload({ waitUntil: "load" });
    await page.waitForSelector("body[data-ready=true]");
    await page.waitForSelector(`${VISIBLE} .text .markdown`);
    const stored = await read();
    return { live, stored, problems };
  } finally {
    await browser.close();
  }
}

const [mode, ...args] = process.argv.slice(2);
try {
  let summary;
  if (mode === "chat" && args.length === 2) summary = await chat(...args);
  else if (mode === "token" && args.length === 3) summary = await token(...args);
  else if (mode === "markdown" && args.length === 2) summary = await markdown(...args);
  else throw new Failure("usage: drive.mjs chat URL SCREENSHOT | token URL TOKEN SCREENSHOT");
  console.log(JSON.stringify(summary));
} catch (error) {
  console.log(
    JSON.stringify({
      error: error instanceof Failure ? error.message : String(error.stack ?? error),
    }),
  );
  process.exitCode = 1;
}
