// Local dev runner for `npm run dev`: secrets, D1 migrations, `wrangler dev`, demo tenant.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { projectShards } from "./lib/shards.mjs";
import { ensureDemo } from "./demo/bootstrap.mjs";
import { startWebhookCatcher } from "./demo/webhook-catcher.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const devVars = join(root, ".dev.vars");
const demoFile = join(root, ".wrangler", "demo-tenant.json");

// Wrangler 4 refuses to run on Node < 22; only `npm run dev` puts the project's Node 22 first on PATH.
if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`[dev] Node ${process.versions.node} is too old for wrangler; start this with \`npm run dev\`.`);
  process.exit(1);
}

// Running the local bin with our own Node avoids PATH lookups (and .cmd shims on Windows).
const require = createRequire(import.meta.url);
const wranglerBin = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");

// Respect a --port passed through by the developer instead of adding a second one (yargs would make it an array).
// --no-demo (ours, not wrangler's) skips the demo tenant.
const noDemo = process.argv.includes("--no-demo");
const extraArgs = process.argv.slice(2).filter((a) => a !== "--no-demo");
const portIdx = extraArgs.findIndex((a) => a === "--port" || a.startsWith("--port="));
const port = portIdx === -1
  ? process.env.PORT || "8787"
  : (extraArgs[portIdx].split("=")[1] ?? extraArgs[portIdx + 1]);
const portArgs = portIdx === -1 ? ["--port", port] : [];
const baseUrl = `http://localhost:${port}`;

const firstStart = !existsSync(join(root, ".wrangler", "state"));
if (firstStart) {
  console.log(
    "[dev] First start: creating local secrets (.dev.vars), the local D1 databases with their migrations, then\n" +
      `[dev] wrangler dev on ${baseUrl}${noDemo ? "" : " and a demo tenant with three months of billing, made through the API"}. About a minute; later starts are quicker.`,
  );
}

// 1. Secrets
if (!existsSync(devVars)) {
  copyFileSync(join(root, ".dev.vars.example"), devVars);
  console.log("[dev] Created .dev.vars from .dev.vars.example");
} else {
  // A secret added to the example since .dev.vars was made (PAYMENT_SECRETS_KEY) is appended.
  const have = new Set(readFileSync(devVars, "utf8").split("\n").map((l) => l.split("=")[0].trim()));
  const missing = readFileSync(join(root, ".dev.vars.example"), "utf8").split("\n").filter((l) => /^[A-Z_]+=/.test(l) && !have.has(l.split("=")[0]));
  if (missing.length) {
    appendFileSync(devVars, `\n${missing.join("\n")}\n`);
    console.log(`[dev] Added ${missing.map((l) => l.split("=")[0]).join(", ")} to .dev.vars`);
  }
}

// 2. Migrations, of every shard (wrangler.toml's D1_SHARDS). CI=true stops wrangler asking for confirmation.
for (const shard of projectShards(root)) {
  console.log(`[dev] Applying local D1 migrations to ${shard}…`);
  const migrate = spawnSync(process.execPath, [wranglerBin, "d1", "migrations", "apply", shard, "--local"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, CI: "true" },
  });
  if (migrate.status !== 0) {
    console.error(`[dev] D1 migrations of ${shard} failed (${migrate.error?.message ?? `exit code ${migrate.status ?? migrate.signal}`}); not starting wrangler.`);
    process.exit(migrate.status || 1);
  }
}

// 3. Dev server
const child = spawn(process.execPath, [wranglerBin, "dev", ...portArgs, "--test-scheduled", ...extraArgs], {
  cwd: root,
  stdio: "inherit",
});
child.on("error", (err) => {
  console.error(`[dev] Could not start wrangler: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
for (const sig of ["SIGINT", "SIGTERM"]) {
  // Keep running until wrangler has shut workerd down, so we can exit with its code.
  process.on(sig, () => child.kill(sig));
}

// 4. Demo tenant, in parallel with wrangler. Failures here are only warnings: the server must keep running.
const webhookPort = Number(process.env.DEMO_WEBHOOK_PORT || Number(port) + 1);
const webhookLog = join(root, ".wrangler", "demo-webhooks.log");
if (noDemo) console.log("[dev] --no-demo: no demo tenant.");
else bootstrapDemoTenant().catch((err) => console.warn(`[dev] Demo tenant setup stopped: ${err.message}\n[dev] The next \`npm run dev\` continues it.`));

async function bootstrapDemoTenant() {
  if (!(await waitForHealth(120_000))) {
    console.warn(`[dev] ${baseUrl}/health did not answer 200 within 120 s; skipping demo tenant setup.`);
    return;
  }
  const adminToken = readFileSync(devVars, "utf8").match(/^\s*ADMIN_TOKEN\s*=\s*["']?(.*?)["']?\s*$/m)?.[1];
  if (!adminToken) throw new Error("ADMIN_TOKEN is not set in .dev.vars");
  mkdirSync(dirname(webhookLog), { recursive: true });
  let secret = existsSync(demoFile) ? JSON.parse(readFileSync(demoFile, "utf8")).webhookSecret : undefined;
  const catcher = await startWebhookCatcher({ port: webhookPort, logFile: webhookLog, secret: () => secret });
  if (!catcher.ok) console.warn(`[dev] The demo's webhook catcher could not listen on port ${webhookPort} (${catcher.error}); set DEMO_WEBHOOK_PORT.`);

  const { state, action } = await ensureDemo({
    baseUrl,
    adminToken,
    stateFile: demoFile,
    webhookUrl: `http://localhost:${webhookPort}/webhooks`,
    progress: process.stdout.isTTY,
  });
  if (action === "foreign") {
    console.log(
      `\n[dev] A tenant already exists, but its API key was not saved by this script (keys are stored hashed).\n` +
        `[dev] Create another one with:\n` +
        `  curl -X POST ${baseUrl}/admin/tenants \\\n` +
        `    -H "Authorization: Bearer ${adminToken}" -H "Content-Type: application/json" \\\n` +
        `    -d '{"name":"My Tenant","countryCode":"DE","defaultCurrency":"EUR","timeZone":"Europe/Berlin","mode":"test"}'\n`,
    );
    return;
  }
  secret = state.webhookSecret;
  printBanner(state);
}
async function waitForHealth(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (res.status === 200) return true;
    } catch {
      // Not listening yet (or still bundling); keep polling.
    }
    await sleep(1_000);
  }
  return false;
}

function printBanner({ tenantId, apiKey, links }) {
  const line = "=".repeat(78);
  const rows = [
    ["Edge Billing API", baseUrl],
    ["Demo tenant id", tenantId],
    ["Demo API key", `${apiKey}   (saved in .wrangler/demo-tenant.json)`],
    ["API reference", `${baseUrl}/docs`],
    ["Mail outbox", `${baseUrl}/dev/mail`],
    ...(links
      ? [
          ["Hosted checkout", links.checkout],
          ["An invoice PDF", links.invoicePdf],
          ["Its e-invoice", links.eInvoice],
          ["A SEPA file", links.sepaFile],
          ["Webhooks received", `.wrangler/demo-webhooks.log (port ${webhookPort})`],
        ]
      : []),
  ];
  console.log(
    `\n${line}\n` +
      rows.filter(([, v]) => v).map(([k, v]) => `  ${k.padEnd(18)} ${v}`).join("\n") +
      `\n\n  curl -H "Authorization: Bearer ${apiKey}" ${baseUrl}/invoices\n` +
      `${line}\n`,
  );
}
