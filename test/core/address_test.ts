import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyHost, parseIPv4, parseIPv6 } from "../../src/core/address.ts";

describe("classifyHost", () => {
  const cases: [string, string | undefined][] = [
    ["127.0.0.1", "loopback"], ["127.255.255.254", "loopback"], ["2130706433", "loopback"], ["0x7f000001", "loopback"],
    ["0177.0.0.1", "loopback"], ["127.1", "loopback"], ["0x7f.1", "loopback"], ["localhost", "loopback"], ["LOCALHOST.", "loopback"],
    ["api.localhost", "loopback"], ["[::1]", "loopback"], ["::ffff:127.0.0.1", "loopback"], ["[::ffff:7f00:1]", "loopback"],
    ["0.0.0.0", "unspecified"], ["0", "unspecified"], ["[::]", "unspecified"], ["169.254.169.254", "link-local"],
    ["fe80::1%eth0", "link-local"], ["[febf::1]", "link-local"], ["10.0.0.1", "private"], ["172.16.0.1", "private"],
    ["172.31.255.255", "private"], ["192.168.0.1", "private"], ["fc00::1", "private"], ["fdff::1", "private"],
    ["100.64.0.1", "shared"], ["100.127.255.255", "shared"], ["224.0.0.1", "multicast"], ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"], ["64:ff9b::7f00:1", "loopback"], ["2002:a00:1::", "private"],
    ["172.32.0.1", undefined], ["100.128.0.1", undefined], ["8.8.8.8", undefined], ["[2606:4700::1]", undefined],
    ["example.com", undefined], ["localhost.example.com", undefined], ["1.2.3.4.5", undefined], ["256.0.0.1", undefined],
  ];
  for (const [host, kind] of cases) {
    it(`${host} is ${kind ?? "public"}`, () => assert.equal(classifyHost(host), kind));
  }
});

describe("address parsers", () => {
  it("parse the spellings WHATWG URLs accept and refuse the rest", () => {
    assert.equal(parseIPv4("1.2.3.4"), 0x01020304);
    assert.equal(parseIPv4("0x01.0x02.0x0304"), 0x01020304);
    assert.equal(parseIPv4("4294967296"), undefined);
    assert.equal(parseIPv4("1.2.3.0x"), 0x01020300);
    assert.deepEqual(parseIPv6("1::2"), [1, 0, 0, 0, 0, 0, 0, 2]);
    assert.deepEqual(parseIPv6("::ffff:1.2.3.4"), [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    for (const bad of ["1:2", "1::2::3", "::ffff:1.2.3.256", "g::1", "1:2:3:4:5:6:7:8:9"]) assert.equal(parseIPv6(bad), undefined, bad);
  });
});
