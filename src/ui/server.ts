import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ContinuationRuntime } from "../runtime/runtime.js";
import { type ActionName, type ActionResult, runAction, scopePageData } from "./actions.js";
import { APP_JS, STYLE_CSS } from "./assets.js";
import { type BulkAction, BulkActions } from "./bulk.js";
import { EventStreams, type FollowStatus } from "./events.js";
import type { Html } from "./html.js";
import { ScopeJudge, type ScopeJudgeOptions } from "./judge.js";
import { renderMetrics } from "./metrics.js";
import { bulkConfirmPage, bulkDoneText, bulkRefusedPage } from "./pages/bulk.js";
import type { PageContext } from "./pages/layout.js";
import { link } from "./pages/layout.js";
import { type OverviewData, overviewData, overviewLive, overviewPage } from "./pages/overview.js";
import { type Notice, scopeLive, scopePage } from "./pages/scope.js";
import { parseQuery } from "./query.js";
import { ScopeSource } from "./scope-source.js";
import {
  crossSiteProblem,
  newToken,
  requestToken,
  SECURITY_HEADERS,
  tokensMatch,
} from "./security.js";

/** Largest form body accepted: an edited list, with room to spare. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface DashboardOptions {
  runtime: ContinuationRuntime;
  /** Where the store is, in words (never a password). */
  storeDescription: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string;
  /** The project folder the store's sessions work in (a project's own store), or null. */
  project?: string | null;
  /**
   * Starts following the store's changes from every process; returns the way
   * to stop. Without it the page still updates after its own actions.
   * `onStatus` says when changes are rescanned instead of reported.
   */
  follow?: (
    onChange: (keys: string[] | "all") => void,
    onStatus: (status: FollowStatus) => void,
  ) => Promise<() => Promise<void>>;
  /** Aborts the first load (and so the start): an interrupt before the page is ready. */
  signal?: AbortSignal;
  /**
   * How each scope's project config file is found (the environment, a
   * `--preset` that overrides the files' presets); default: this process's
   * environment, no override.
   */
  judge?: ScopeJudgeOptions;
}

/**
 * How long the dashboard keeps a project's limits before it reads the file
 * again: an edited config shows within this long, and ten thousand scopes of
 * one project still read it once per reload.
 */
export const PROJECT_LIMITS_MAX_AGE_MS = 10_000;

export interface Dashboard {
  url: string;
  token: string;
  port: number;
  source: ScopeSource;
  close(): Promise<void>;
}

const NOTICES: Record<string, string> = {
  stopped: "Stopped: no nudges until it is resumed.",
  resumed: "Resumed: nudges are allowed again.",
  raised: "Raised: the open episode may use more, and a stop for its budget is lifted.",
  cleared: "Cleared: the agent is told at its next turn.",
  "already-empty": "The list was already empty.",
  edited: "Saved. The agent is told at its next turn exactly what changed.",
  unchanged: "No changes to save.",
};

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, ...extra });
  res.end(body);
}

function sendHtml(res: ServerResponse, status: number, page: Html): void {
  send(res, status, "text/html; charset=utf-8", page.text);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, "application/json; charset=utf-8", `${JSON.stringify(value)}\n`);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) {
    throw new RequestError(415, "expected a form (application/x-www-form-urlencoded)");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RequestError(413, "the form is larger than 1 MB");
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Serves the dashboard until `close`. The first full read of the store completes before it listens. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const { runtime } = options;
  const token = options.token ?? newToken();
  const host = options.host ?? "127.0.0.1";
  const judge = new ScopeJudge(runtime, {
    maxAgeMs: PROJECT_LIMITS_MAX_AGE_MS,
    ...(options.judge ?? { env: process.env }),
  });
  const source = new ScopeSource(judge, options.project ?? null);
  const bulk = new BulkActions(source, runtime);
  const ctx: PageContext = {
    token,
    store: options.storeDescription,
    preset: runtime.preset.name,
  };
  const streams = new EventStreams();
  // Changes are followed from before the first read, so none made during it is missed: they
  // are read once it is done.
  const loading = source.refresh("all", options.signal);
  loading.catch(() => {});
  let stopFollowing = async () => {};
  try {
    if (options.follow) {
      stopFollowing = await options.follow(
        (keys) => {
          source.refresh(keys).catch(() => {});
        },
        (status) => streams.setStatus(status),
      );
    }
    await loading;
  } catch (error) {
    source.close();
    await stopFollowing();
    throw error;
  }
  // The default view's selection is sorted now, not by the first request.
  source.select(parseQuery(new URLSearchParams(), runtime.now()));
  const unsubscribe = source.subscribe((keys) => streams.announce(keys));
  let port = 0;

  async function scopeResponse(
    res: ServerResponse,
    key: string,
    fragment: boolean,
    notice: Notice | null,
    draft: string | null,
    status = 200,
  ): Promise<void> {
    const data = await scopePageData(source, judge, key);
    if (data === null) {
      sendHtml(
        res,
        404,
        overviewPage(
          ctx,
          overviewData([], parseQuery(new URLSearchParams())),
          parseQuery(new URLSearchParams()),
          0,
          runtime.now(),
          `no scope named ${key}`,
        ),
      );
      return;
    }
    sendHtml(res, status, fragment ? scopeLive(data) : scopePage(ctx, data, notice, draft));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://dashboard.invalid");
    const refused = crossSiteProblem(req, host);
    if (refused !== null) {
      send(res, 403, "text/plain; charset=utf-8", `Refused: ${refused}.\n`);
      return;
    }
    let given = requestToken(req, url);
    const form = req.method === "POST" ? await readForm(req) : null;
    if (form !== null && given === null) given = form.get("token");
    if (!tokensMatch(given, token)) {
      send(
        res,
        401,
        "text/plain; charset=utf-8",
        "Refused: this dashboard needs the token from the URL `todo-continuation ui` printed.\n",
      );
      return;
    }
    const path = url.pathname;
    const params = url.searchParams;
    const fragment = params.get("fragment") === "1";
    if (req.method === "GET") {
      switch (path) {
        case "/": {
          const now = runtime.now();
          const query = parseQuery(params, now);
          const page = Math.max(0, Number.parseInt(params.get("page") ?? "0", 10) || 0);
          // The selection is kept sorted between changes, and the counts up to date: a request
          // renders its page of rows, it does not sort or count the whole store.
          const data: OverviewData = {
            picked: source.select(query),
            summary: source.summary(),
            hidden: query.hideBefore === null ? 0 : source.countOldFinished(query.hideBefore),
            totals: source.totals(),
            notice: bulkDoneText(params.get("done"), Number(params.get("count") ?? 0) || 0),
          };
          sendHtml(
            res,
            200,
            fragment
              ? overviewLive(ctx, data, query, page, now, source.listError)
              : overviewPage(ctx, data, query, page, now, source.listError),
          );
          return;
        }
        case "/scope": {
          const key = params.get("key") ?? "";
          const done = params.get("done");
          const notice: Notice | null =
            done !== null && done in NOTICES ? { kind: "done", text: NOTICES[done]! } : null;
          await scopeResponse(res, key, fragment, notice, null);
          return;
        }
        case "/events":
          streams.open(req, res, params.get("key"));
          return;
        case "/metrics":
          send(
            res,
            200,
            "text/plain; version=0.0.4; charset=utf-8",
            renderMetrics(source.counters, source.summary()),
          );
          return;
        case "/api/scopes":
          sendJson(res, 200, {
            store: ctx.store,
            preset: ctx.preset,
            listError: source.listError,
            follow: streams.status,
            scopes: source.select(parseQuery(params, runtime.now())),
          });
          return;
        case "/api/totals":
          sendJson(res, 200, { totals: source.totals(Number(params.get("days") ?? 14) || 14) });
          return;
        case "/api/scope": {
          const data = await scopePageData(source, judge, params.get("key") ?? "");
          if (data === null) sendJson(res, 404, { error: "no such scope" });
          else sendJson(res, 200, data);
          return;
        }
        case "/assets/style.css":
          send(res, 200, "text/css; charset=utf-8", STYLE_CSS);
          return;
        case "/assets/app.js":
          send(res, 200, "text/javascript; charset=utf-8", APP_JS);
          return;
      }
    }
    if (req.method === "POST" && form !== null) {
      const bulkMatch = /^\/bulk\/(stop|resume)$/.exec(path);
      if (bulkMatch !== null) {
        const step = await bulk.step(bulkMatch[1] as BulkAction, form);
        if (step.kind === "confirm") sendHtml(res, 200, bulkConfirmPage(ctx, step.plan));
        else if (step.kind === "refused")
          sendHtml(res, step.status, bulkRefusedPage(ctx, step.text));
        else {
          res.writeHead(303, {
            ...SECURITY_HEADERS,
            location: link(ctx, "/", { done: step.action, count: String(step.count) }),
          });
          res.end();
        }
        return;
      }
      const match = /^\/scope\/(stop|resume|raise|clear|edit)$/.exec(path);
      if (match !== null) {
        const key = params.get("key") ?? "";
        const result: ActionResult = await runAction(
          source,
          runtime,
          match[1] as ActionName,
          key,
          form,
        );
        if (result.kind === "missing") {
          send(res, 404, "text/plain; charset=utf-8", `No scope named ${key}.\n`);
        } else if (result.kind === "done") {
          res.writeHead(303, {
            ...SECURITY_HEADERS,
            location: link(ctx, "/scope", { key, done: result.done }),
          });
          res.end();
        } else {
          await scopeResponse(res, key, false, result.notice, result.draft, result.status);
        }
        return;
      }
    }
    send(res, 404, "text/plain; charset=utf-8", "Not found.\n");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof RequestError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) send(res, status, "text/plain; charset=utf-8", `Error: ${message}\n`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    token,
    port,
    source,
    async close() {
      unsubscribe();
      source.close();
      await stopFollowing();
      streams.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
