import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyHost } from "../../src/core/address.ts";

describe("classifyHost", () => {
  const cases: [string, string | undefined][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["2130706433", "loopback"],
    ["0x7f000001", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["localhost", "loopback"],
    ["LOCALHOST.", "loopback"],
    ["api.localhost", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0", "unspecified"],
    ["[::]", "unspecified"],
    ["169.254.169.254", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["[febf::1]", "link-local"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["fc00::1", "private"],
    ["fdff::1", "private"],
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:a00:1::", "private"],
    ["[::ffff:0:127.0.0.1]", "loopback"],
    ["[::ffff:0:a00:1]", "private"],
    ["[64:ff9b:1::7f00:1]", "reserved"],
    ["[64:ff9b:1:7f00:1::]", "reserved"],
    ["[64:ff9b:1::808:808]", "reserved"],
    ["[::ffff:0:808:808]", undefined],
    ["172.32.0.1", undefined],
    ["100.128.0.1", undefined],
    ["8.8.8.8", undefined],
    ["[2606:4700::1]", undefined],
    ["example.com", undefined],
    ["localhost.example.com", undefined],
    ["1.2.3.4.5", undefined],
    ["256.0.0.1", undefined],
  ];
  for (const [host, kind] of cases) {
    it(`${host} is ${kind ?? "public"}`, () => assert.equal(classifyHost(host), kind));
  }
});

describe("classifyHost on unusual spellings", () => {
  it("normalises IPv4 spellings and IPv6 forms the way URLs do", () => {
    assert.equal(classifyHost("0x0a.0x01.0x0203"), "private");
    assert.equal(classifyHost("4294967296"), undefined, "out of range: not an address");
    assert.equal(classifyHost("[FE80:0:0:0:0:0:0:1]"), "link-local");
    assert.equal(classifyHost("0:0:0:0:0:ffff:a9fe:a9fe"), "link-local");
    assert.equal(classifyHost("[fec0::1]"), "private");
    for (const bad of ["1::2::3", "::ffff:1.2.3.256", "g::1", "1:2:3:4:5:6:7:8:9"]) {
      assert.equal(classifyHost(bad), undefined, bad);
    }
  });
});
