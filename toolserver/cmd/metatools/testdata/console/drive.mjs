// Drives Chromium through the web console of a running metatools server,
// as a person would: the sign-in, the upstreams page, a search, a tool page and its
// "try it" form, the recent calls, the quarantine review and an approval.
// It takes a screenshot of each page and prints, as one JSON line, what
// it saw; any step that does not happen fails it.
//
// Usage: node drive.mjs NODE_MODULES CHROMIUM CONSOLE_URL SCREENSHOT_DIR
// with the bearer token in METATOOLS_TOKEN. The expectations come from
// the environment: CONSOLE_UP (an upstream that is up), CONSOLE_FAILED
// (one that fails), CONSOLE_QUERY and CONSOLE_TOOL (a search and the tool
// it finds), CONSOLE_ARGS (the tool's arguments, JSON), CONSOLE_EXPECT (a
// text of its result), CONSOLE_QUARANTINED (a tool waiting for approval).
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, chromium, base, shots] = process.argv.slice(2);
const env = (name) => {
  if (!process.env[name]) throw new Error(`${name} is not set`);
  return process.env[name];
};
const { chromium: launcher } = await import(pathToFileURL(join(modules, "playwright-core", "index.mjs")).href);

const browser = await launcher.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage"],
});
const saw = {};
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const problems = [];
  page.on("console", (msg) => {
    // The sign-in page answers 401, which the browser reports.
    if (msg.type() === "error" && !page.url().endsWith("/ui/")) problems.push(msg.text());
  });
  page.on("pageerror", (err) => problems.push(String(err)));

  // Signing in with the token: the console answers 401 with its form.
  const first = await page.goto(base);
  saw.signInStatus = first.status();
  await page.fill("#token", env("METATOOLS_TOKEN"));
  await Promise.all([page.waitForURL(base), page.click('form.login button[type="submit"]')]);

  // Upstreams: one up, one failed with its reason, which the page's
  // refresh keeps current.
  const up = page.locator(`tr[data-upstream="${env("CONSOLE_UP")}"]`);
  const failed = page.locator(`tr[data-upstream="${env("CONSOLE_FAILED")}"]`);
  await up.locator(".state-up").waitFor();
  await failed.locator(".state-failed").waitFor();
  saw.upTools = (await up.locator("td.tools").innerText()).split("\n")[0];
  saw.failedError = await failed.locator("td.last-error").innerText();
  await page.screenshot({ path: join(shots, "upstreams.png") });

  // The catalogue: a search, kept to the upstream, then its tool.
  await page.click('nav a[data-page="tools"]');
  await page.fill('input[name="q"]', env("CONSOLE_QUERY"));
  await page.locator('select[name="upstream"] option', { hasText: env("CONSOLE_UP") }).waitFor({ state: "attached" });
  await page.selectOption('select[name="upstream"]', env("CONSOLE_UP"));
  await page.click('form.search button[type="submit"]');
  const hit = page.locator(`#results li[data-tool="${env("CONSOLE_TOOL")}"]`);
  await hit.waitFor();
  saw.results = await page.locator("#results li").evaluateAll((items) => items.map((li) => li.dataset.tool));
  await page.screenshot({ path: join(shots, "catalogue.png") });
  await hit.locator("a").click();

  // The tool's page, and a run through its form.
  await page.locator("#declaration").waitFor();
  saw.summary = await page.locator("#summary").innerText();
  saw.declaration = await page.locator("#declaration").innerText();
  await page.fill("#args", env("CONSOLE_ARGS"));
  await page.click("#run");
  const result = page.locator("#run-result .result");
  await result.waitFor();
  saw.result = await result.innerText();
  if (!saw.result.includes(env("CONSOLE_EXPECT"))) throw new Error(`the run's result does not say ${env("CONSOLE_EXPECT")}: ${saw.result}`);
  await page.screenshot({ path: join(shots, "tool.png"), fullPage: false });

  // The call, among the recent ones.
  await page.click('nav a[data-page="calls"]');
  const call = page.locator(`#calls tr[data-tool="${env("CONSOLE_TOOL")}"]`).first();
  await call.waitFor();
  saw.call = (await call.locator("td").allInnerTexts()).slice(1);
  await page.screenshot({ path: join(shots, "calls.png") });

  // The quarantine: the tool waiting, with its diff, approved.
  await page.click('nav a[data-page="quarantine"]');
  const item = page.locator(`div[data-item="${env("CONSOLE_QUARANTINED")}"]`);
  await item.waitFor();
  saw.diff = await item.locator("pre.diff").innerText();
  await page.screenshot({ path: join(shots, "quarantine.png") });
  await item.locator("button[data-approve]").click();
  await item.locator(".approved").waitFor();
  saw.approved = await item.locator(".approved").innerText();

  saw.signOutShown = await page.locator("#signout").isVisible();
  if (problems.length > 0) throw new Error(`the page reported errors: ${problems.join("; ")}`);
  await context.close();
} catch (err) {
  // What the page showed, to tell why.
  for (const context of browser.contexts()) {
    for (const page of context.pages()) {
      console.error(`page ${page.url()} showed:\n${await page.locator("main").innerText().catch((e) => e.message)}`);
      const shot = join(tmpdir(), `console-failure-${process.pid}.png`);
      await page.screenshot({ path: shot }).then(() => console.error(`its screenshot: ${shot}`), () => {});
    }
  }
  throw err;
} finally {
  await browser.close();
}
console.log(JSON.stringify(saw));
