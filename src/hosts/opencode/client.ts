/**
 * The slice of OpenCode's plugin API this integration uses, typed structurally
 * so the package needs no dependency on OpenCode's SDK. The shapes follow
 * `@opencode-ai/sdk` as OpenCode 1.18 passes it to plugins; every response is
 * still read defensively, since a host update may change them.
 */

/** What the SDK's calls resolve to (it does not throw on HTTP errors by default). */
export interface SdkResult<T> {
  data?: T;
  error?: unknown;
  response?: { status: number };
}

type Call<I, T> = (options: I) => Promise<SdkResult<T>>;

export interface OpenCodeTextPartInput {
  type: "text";
  text: string;
  /** Shown to the model but marked as not typed by the user. */
  synthetic?: boolean;
  metadata?: Record<string, unknown>;
}

export interface OpenCodeModelRef {
  providerID: string;
  modelID: string;
}

export interface OpenCodeClient {
  session: {
    todo: Call<{ path: { id: string } }, unknown>;
    get: Call<{ path: { id: string } }, unknown>;
    promptAsync: Call<
      {
        path: { id: string };
        body: { agent?: string; model?: OpenCodeModelRef; parts: OpenCodeTextPartInput[] };
      },
      unknown
    >;
  };
  app?: {
    agents?: Call<Record<string, never>, unknown>;
    log?: Call<
      {
        body: {
          service: string;
          level: "debug" | "info" | "warn" | "error";
          message: string;
          extra?: Record<string, unknown>;
        };
      },
      unknown
    >;
  };
  tui?: {
    showToast?: Call<
      {
        body: {
          title?: string;
          message: string;
          variant: "info" | "success" | "warning" | "error";
          duration?: number;
        };
      },
      unknown
    >;
  };
}

/** The first argument OpenCode passes to a plugin function. */
export interface OpenCodePluginInput {
  client: OpenCodeClient;
  /** The project folder this OpenCode instance serves. */
  directory: string;
  worktree?: string;
  [key: string]: unknown;
}

/** A bus event as OpenCode hands it to a plugin's `event` hook. */
export interface OpenCodeEvent {
  type: string;
  properties?: unknown;
}

/** The hooks this plugin returns. */
export interface OpenCodeHooks {
  event: (input: { event: OpenCodeEvent }) => Promise<void>;
  dispose: () => Promise<void>;
}

/** A plugin function: every export of a plugin module must be one. */
export type OpenCodePlugin = (
  input: OpenCodePluginInput,
  options?: unknown,
  /** Which plugin folder holds the file (our installed files pass it; OpenCode passes two arguments). */
  installedIn?: "user" | "project",
) => Promise<OpenCodeHooks>;

/** Describes a failed SDK call for an error message. */
function describeFailure(result: SdkResult<unknown>): string {
  const status = result.response?.status;
  const error = result.error;
  let detail = "";
  if (error instanceof Error) detail = error.message;
  else if (typeof error === "string") detail = error;
  else if (error !== undefined) {
    try {
      detail = JSON.stringify(error).slice(0, 300);
    } catch {
      detail = String(error);
    }
  }
  return (
    [status !== undefined ? `HTTP ${status}` : "", detail].filter(Boolean).join(": ") || "failed"
  );
}

/**
 * The data of an SDK result, or a thrown error naming the call. An HTTP error
 * status counts as a failure even when the SDK reported no error object.
 */
export function unwrap<T>(result: SdkResult<T> | undefined, what: string): T | undefined {
  if (result === undefined || result === null || typeof result !== "object") {
    throw new Error(`${what}: the OpenCode client returned nothing`);
  }
  const status = result.response?.status;
  if (result.error !== undefined || (status !== undefined && status >= 400)) {
    throw new Error(`${what} failed (${describeFailure(result)})`);
  }
  return result.data;
}
