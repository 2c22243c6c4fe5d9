import { createServer, type Server, type Socket } from "node:net";
import { expect } from "vitest";

/**
 * A loopback trap for outbound traffic: every HTTP(S) request a host makes to
 * anything but the model server goes through this "proxy", which records the
 * first line and hangs up. Tests assert it saw nothing.
 */
export interface Trap {
  url: string;
  connections: string[];
  close(): Promise<void>;
}

export async function startTrap(): Promise<Trap> {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once("data", (chunk) => {
      connections.push(chunk.toString("utf8").split("\r\n", 1)[0] ?? "");
      socket.destroy();
    });
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A suite's end: closes its trap and asserts that nothing went out through it in the whole file. */
export async function closeTrapEmpty(trap: Trap | null | undefined): Promise<void> {
  if (trap == null) return;
  const stray = [...trap.connections];
  await trap.close();
  expect(stray).toEqual([]);
}
