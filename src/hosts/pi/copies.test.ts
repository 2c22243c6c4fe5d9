import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { actingCopy } from "./copies.js";
import { createPiExtension } from "./extension.js";
import type { PiExtensionApi } from "./pi-api.js";
import { FakePi } from "./test-support/fake-pi.js";

/** The bus pi gives the extensions of one load: `emit` calls each handler before it returns. */
function loadBus() {
  const emitter = new EventEmitter();
  return {
    emit: (channel: string, data: unknown) => {
      emitter.emit(channel, data);
    },
    on: (channel: string, handler: (data: unknown) => unknown) => {
      // As pi's: the handler is async, and its errors are caught.
      const safe = async (data: unknown) => {
        try {
          await handler(data);
        } catch {}
      };
      emitter.on(channel, safe);
      return () => emitter.off(channel, safe);
    },
  };
}

/** One extension's API in a load: `replace()` makes it stale, as pi's is after a reload. */
function extensionApi(bus: ReturnType<typeof loadBus> | undefined) {
  const pi = new FakePi() as FakePi & Pick<PiExtensionApi, "events" | "getFlag">;
  let stale = false;
  if (bus !== undefined) pi.events = bus;
  pi.getFlag = () => {
    if (stale) throw new Error("This extension ctx is stale after session replacement or reload.");
    return undefined;
  };
  return { pi, replace: () => (stale = true) };
}

const actsForLoad = (pi: PiExtensionApi) => actingCopy(pi) !== null;

describe("actingCopy", () => {
  it("lets the first copy of a load act and every later one of that load not", () => {
    const bus = loadBus();
    expect(actsForLoad(extensionApi(bus).pi)).toBe(true);
    expect(actsForLoad(extensionApi(bus).pi)).toBe(false);
    expect(actsForLoad(extensionApi(bus).pi)).toBe(false);
  });

  it("lets the first copy of each load act: loads do not share a bus", () => {
    expect(actsForLoad(extensionApi(loadBus()).pi)).toBe(true);
    expect(actsForLoad(extensionApi(loadBus()).pi)).toBe(true);
  });

  it("acts again after a reload that keeps the bus: a replaced copy answers nothing", () => {
    const bus = loadBus();
    const first = extensionApi(bus);
    expect(actsForLoad(first.pi)).toBe(true);
    first.replace();
    const reloaded = extensionApi(bus);
    expect(actsForLoad(reloaded.pi)).toBe(true);
    expect(actsForLoad(extensionApi(bus).pi)).toBe(false);
  });

  it("acts again after a reload that keeps the bus and the old handlers: the old copy left", () => {
    const bus = loadBus();
    const first = actingCopy(extensionApi(bus).pi);
    expect(first).not.toBeNull();
    // pi 0.73's /reload: session_shutdown, then the extensions loaded again on the same bus.
    first?.leave();
    expect(actsForLoad(extensionApi(bus).pi)).toBe(true);
    expect(actsForLoad(extensionApi(bus).pi)).toBe(false);
  });

  it("acts in a pi without a bus, as before", () => {
    expect(actsForLoad(extensionApi(undefined).pi)).toBe(true);
    expect(actsForLoad(extensionApi(undefined).pi)).toBe(true);
  });
});

describe("two copies of the extension in one load", () => {
  it("registers the todo tools and the event handlers once", () => {
    const bus = loadBus();
    const first = extensionApi(bus).pi;
    const second = extensionApi(bus).pi;
    createPiExtension({ dir: "/nonexistent/unused" })(first);
    createPiExtension({ dir: "/nonexistent/unused" })(second);
    expect([...first.tools.keys()]).toContain("todo_write");
    expect(first.handlers.get("agent_end")).toHaveLength(1);
    // Registering them again would make pi refuse to start (a tool name conflict).
    expect(second.tools.size).toBe(0);
    expect(second.handlers.size).toBe(0);
  });

  it("hands over at session_shutdown: after a reload on the same bus, the new load's copy acts", async () => {
    const bus = loadBus();
    const old = extensionApi(bus).pi;
    createPiExtension({ dir: "/nonexistent/unused" })(old);
    await old.emit("session_shutdown", { reason: "reload" });
    const reloaded = extensionApi(bus).pi;
    createPiExtension({ dir: "/nonexistent/unused" })(reloaded);
    expect([...reloaded.tools.keys()]).toContain("todo_write");
  });
});
