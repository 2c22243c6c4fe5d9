import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { crossSiteProblem, hostName, isLoopbackName } from "./security.js";

function req(headers: Record<string, string | undefined>): IncomingMessage {
  const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined));
  return { headers: clean } as unknown as IncomingMessage;
}

describe("the Host check", () => {
  it.each([
    // Any port: ssh -L, docker -p and editors forward to a port of their own.
    ["127.0.0.1:8477", true],
    ["127.0.0.1:9000", true],
    ["127.0.0.1", true],
    ["127.1.2.3:80", true],
    ["localhost:9000", true],
    ["LOCALHOST:9000", true],
    ["localhost.:9000", true],
    ["LocalHost", true],
    ["dash.localhost:3000", true],
    ["[::1]:9000", true],
    ["[::1]", true],
    ["[0:0:0:0:0:0:0:1]:9000", true],
    // Other names, however dressed.
    ["evil.test:8477", false],
    ["EVIL.test", false],
    ["localhost.evil.test:9000", false],
    ["evil-localhost:9000", false],
    ["127.0.0.1.evil.test", false],
    ["128.0.0.1:9000", false],
    ["127.0.0.256:9000", false],
    ["10.0.0.1:9000", false],
    ["[::2]:9000", false],
    ["::1", false],
    ["[::1]:99999", false],
    ["localhost:", false],
    ["localhost:port", false],
    ["", false],
    ["user@localhost:9000", false],
    [undefined, false],
  ])("Host %s is accepted: %s", (host, accepted) => {
    const problem = crossSiteProblem(req({ host }), "127.0.0.1");
    if (accepted) expect(problem).toBeNull();
    else expect(problem).toMatch(/is not this dashboard/);
  });

  it("accepts the bound address when it is not loopback, on any port", () => {
    expect(crossSiteProblem(req({ host: "192.168.1.5:9000" }), "192.168.1.5")).toBeNull();
    expect(crossSiteProblem(req({ host: "[fd00::5]:9000" }), "fd00::5")).toBeNull();
    expect(crossSiteProblem(req({ host: "192.168.1.6:9000" }), "192.168.1.5")).not.toBeNull();
  });

  it("still refuses other origins and cross-site fetches through a forwarded port", () => {
    const host = "localhost:9000";
    expect(
      crossSiteProblem(req({ host, origin: "http://localhost:9000" }), "127.0.0.1"),
    ).toBeNull();
    expect(crossSiteProblem(req({ host, origin: "http://evil.test" }), "127.0.0.1")).toMatch(
      /evil\.test/,
    );
    expect(
      crossSiteProblem(req({ host, origin: "http://localhost:9001" }), "127.0.0.1"),
    ).not.toBeNull();
    expect(crossSiteProblem(req({ host, origin: "null" }), "127.0.0.1")).toMatch(/opaque/);
    expect(crossSiteProblem(req({ host, "sec-fetch-site": "cross-site" }), "127.0.0.1")).toMatch(
      /cross-site/,
    );
  });

  it("reads a Host header's name without port, case or trailing dot", () => {
    expect(hostName("LocalHost.:80")).toBe("localhost");
    expect(hostName("[::1]:9000")).toBe("[::1]");
    expect(hostName("a:b:c")).toBeNull();
    expect(isLoopbackName("127.255.255.255")).toBe(true);
    expect(isLoopbackName("127.0.0")).toBe(false);
  });
});
