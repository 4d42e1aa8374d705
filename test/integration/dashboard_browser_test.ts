// Headless Chromium drives the dashboard of a real server: signs in, finds the jobs
// and their next slots, runs a job from the page and sees its new outcome, and saves
// screenshots under test/artifacts/ (git-ignored).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { type Browser, chromium } from "playwright-core";
import { createManualClock, createScheduler } from "../../src/engine/mod.ts";
import { createMemoryStore } from "../../src/store/mod.ts";
import { edgecronRouter } from "../../src/http/mod.ts";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "browser-token-0123456789abcdef";
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;

let server: ServerType;
let browser: Browser;
let base = "";
let upstreamUp = false;

/** A scheduler with six hours of history: ok, error, missed outcomes and a paused job. */
async function world(): Promise<Hono> {
  const clock = createManualClock(T0 - 6 * 3_600_000);
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  let pings = 0;
  const fetch: typeof globalThis.fetch = async () => new Response(null, { status: ++pings % 4 === 0 ? 502 : 204 });
  const scheduler = createScheduler({ clock, store: createMemoryStore(), node: "web-1", webhookSecret: "whsec_browser", fetch, logger: quiet })
    .job("hourly-report", { schedule: "0 * * * *", timezone: "Europe/Paris", description: "Sends the hourly sales report", run: () => {} })
    .job("sync-inventory", {
      schedule: "*/15 * * * *",
      description: "Pulls stock levels from the warehouse API",
      run: () => {
        if (!upstreamUp) throw new Error("warehouse API answered 503");
      },
    })
    .job("cache-warm", { schedule: { every: "5m" }, description: "Keeps the product cache warm", run: () => {} })
    .job("nightly-backup", { schedule: "30 2 * * *", timezone: "America/New_York", description: "Database backup to cold storage", run: () => {} })
    .job("weekly-digest", { schedule: "0 9 * * MON", timezone: "Europe/London", run: () => {} });
  await scheduler.define("partner-ping", {
    schedule: "*/30 * * * *",
    description: "Webhook to the partner's health endpoint",
    target: { url: "https://partner.example/health?key=hidden" },
  });
  await scheduler.tick();
  for (let i = 0; i < 24; i++) {
    await clock.advance(15 * 60_000);
    await scheduler.tick();
  }
  await scheduler.pause("weekly-digest");
  await clock.advance(7 * 60_000 + 30_000);
  return new Hono().route("/cron", edgecronRouter(scheduler, { token: TOKEN, now: clock.now, title: "edgecron · shop" }));
}

before(async () => {
  const app = await world();
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("dashboard in a browser", { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed` }, () => {
  it("signs in, lists jobs with next slots, runs a job and shows its new outcome", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    const response = await page.goto(`${base}/cron`);
    assert.equal(response?.status(), 401);
    await page.fill("#token", TOKEN);
    await Promise.all([page.waitForURL(`${base}/cron`), page.click("button[type=submit]")]);

    const jobs = await page.locator("section.job").evaluateAll((els) => els.map((e) => e.getAttribute("data-job")));
    assert.deepEqual([...jobs].sort(), ["cache-warm", "hourly-report", "nightly-backup", "partner-ping", "sync-inventory", "weekly-digest"]);
    const hourly = page.locator('section.job[data-job="hourly-report"]');
    assert.deepEqual(await hourly.locator("ol.next li").allTextContents(), [
      "Mon 30 Nov, 14:00 CET in 52m 30s",
      "Mon 30 Nov, 15:00 CET in 1h 52m",
      "Mon 30 Nov, 16:00 CET in 2h 52m",
    ]);
    assert.equal(await hourly.locator("[data-words]").textContent(), "Every hour");
    assert.equal(await page.locator('section.job[data-job="weekly-digest"] [data-state]').textContent(), "paused");

    const sync = page.locator('section.job[data-job="sync-inventory"]');
    assert.equal(await sync.locator(".last-outcome .status").textContent(), "error");
    assert.equal(await sync.locator("svg.timeline path.s-error").getAttribute("data-count"), "24", "the timeline shows the failed slots");

    upstreamUp = true;
    await Promise.all([page.waitForURL(/done=run/), sync.getByRole("button", { name: "Run now" }).click()]);
    assert.equal(await page.locator("[data-notice]").getAttribute("data-notice"), "ok");
    assert.match(await page.locator("[data-notice]").textContent() ?? "", /Ran sync-inventory: ok/);
    assert.equal(await page.locator('section.job[data-job="sync-inventory"] .last-outcome .status').textContent(), "ok");

    await page.screenshot({ path: `${ARTIFACTS}dashboard.png`, fullPage: true });
    assert.ok(statSync(`${ARTIFACTS}dashboard.png`).size > 10_000);
    await page.close();
  });

  it("opens a job's page with its run history", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/cron`);
    await page.fill("#token", TOKEN);
    await Promise.all([page.waitForURL(`${base}/cron`), page.click("button[type=submit]")]);
    await Promise.all([page.waitForURL(/\/cron\/ui\/jobs\/partner-ping$/), page.click('a[href="/cron/ui/jobs/partner-ping"]')]);
    const rows = await page.locator("table.runs tbody tr").evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
    assert.equal(rows.length, 12);
    assert.ok(rows.includes("ok") && rows.includes("error"), rows.join(","));
    assert.equal(await page.locator("h2.section + p code").first().textContent(), "POST https://partner.example/health");
    assert.equal(await page.locator("ol.next li").count(), 10);
    assert.equal(await page.locator("svg.timeline rect.s-ok").count(), 9, "one mark per run on a job's page");
    await page.screenshot({ path: `${ARTIFACTS}dashboard-job.png`, fullPage: true });
    await context.close();
  });
});
