import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_TOLERANCE_SEC,
  type HeadersInput,
  sign,
  signatureHeaders,
  verify,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "../src";
import { BODY, NEW_SECRET, NOW, OTHER_SECRET, SECRET } from "./fixtures";

async function failure(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error("expected verification to fail");
}

async function expectReason(
  promise: Promise<unknown>,
  reason: WebhookVerificationReason,
  message?: RegExp,
): Promise<WebhookVerificationError> {
  const error = await failure(promise);
  expect(error.reason).toBe(reason);
  if (message) expect(error.message).toMatch(message);
  return error;
}

async function signedHeader(
  body: string | Uint8Array = BODY,
  secret = SECRET,
  timestamp = NOW,
): Promise<string> {
  return (await sign(body, secret, { timestamp })).header;
}

const at = { now: NOW };

describe("verify: a valid delivery", () => {
  it("passes with a string body and Fetch Headers", async () => {
    const headers = new Headers({ "Service-Signature": await signedHeader() });
    await expect(verify(BODY, headers, SECRET, at)).resolves.toBeUndefined();
  });

  it("passes with plain-object headers in any case, as Node and Express give them", async () => {
    const header = await signedHeader();
    for (const name of ["service-signature", "Service-Signature", "SERVICE-SIGNATURE"]) {
      await expect(
        verify(BODY, { [name]: header, "content-type": "application/json" }, SECRET, at),
      ).resolves.toBe(undefined);
    }
    await expect(verify(BODY, { "service-signature": [header] }, SECRET, at)).resolves.toBeUndefined();
    const nodeHeaders: IncomingHttpHeaders = { host: "localhost", "service-signature": header };
    await expect(verify(BODY, nodeHeaders, SECRET, at)).resolves.toBeUndefined();
  });

  it("passes with Uint8Array, Buffer, ArrayBuffer and offset views of the same bytes", async () => {
    const headers = { "service-signature": await signedHeader() };
    const bytes = new TextEncoder().encode(BODY);
    await expect(verify(bytes, headers, SECRET, at)).resolves.toBeUndefined();
    await expect(verify(Buffer.from(BODY), headers, SECRET, at)).resolves.toBeUndefined();
    await expect(verify(bytes.buffer, headers, SECRET, at)).resolves.toBeUndefined();
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes, 5);
    await expect(verify(padded.subarray(5, 5 + bytes.length), headers, SECRET, at)).resolves.toBeUndefined();
  });

  it("verifies the exact bytes even when they are not valid UTF-8", async () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const headers = { "service-signature": await signedHeader(bytes) };
    await expect(verify(bytes, headers, SECRET, at)).resolves.toBeUndefined();
  });

  it("accepts spaces around entries and skips unknown schemes", async () => {
    const { signature } = await sign(BODY, SECRET, { timestamp: NOW });
    const headers = { "service-signature": ` t=${NOW} , v1=${signature.toUpperCase()} , v2=future-scheme ` };
    await expect(verify(BODY, headers, SECRET, at)).resolves.toBeUndefined();
  });

  it("uses the current clock when `now` is not given", async () => {
    const headers = { "service-signature": (await sign(BODY, SECRET)).header };
    await expect(verify(BODY, headers, SECRET)).resolves.toBeUndefined();
  });
});

describe("verify: rule 1, exactly one t and one v1", () => {
  it("reports a missing header", async () => {
    await expectReason(verify(BODY, {}, SECRET, at), "missing_header", /Service-Signature header is missing/);
    await expectReason(verify(BODY, new Headers(), SECRET, at), "missing_header");
    await expectReason(verify(BODY, { "service-signature": [] }, SECRET, at), "missing_header");
    await expectReason(verify(BODY, { "service-signature": undefined }, SECRET, at), "missing_header");
  });

  it("refuses a header without t or without v1", async () => {
    const { signature } = await sign(BODY, SECRET, { timestamp: NOW });
    await expectReason(
      verify(BODY, { "service-signature": `v1=${signature}` }, SECRET, at),
      "malformed_header",
      /no t/,
    );
    await expectReason(
      verify(BODY, { "service-signature": `t=${NOW}` }, SECRET, at),
      "malformed_header",
      /no v1/,
    );
    await expectReason(verify(BODY, { "service-signature": "" }, SECRET, at), "malformed_header");
  });

  it("refuses duplicate t or v1, however they arrive", async () => {
    const good = await signedHeader();
    const { signature } = await sign(BODY, SECRET, { timestamp: NOW });
    const cases: HeadersInput[] = [
      { "service-signature": `t=${NOW},t=${NOW},v1=${signature}` },
      { "service-signature": `t=${NOW},v1=${signature},v1=${signature}` },
      { "service-signature": [good, good] },
      { "Service-Signature": good, "service-signature": good },
    ];
    const appended = new Headers();
    appended.append("Service-Signature", good);
    appended.append("Service-Signature", good);
    cases.push(appended);
    for (const headers of cases) {
      await expectReason(verify(BODY, headers, SECRET, at), "malformed_header", /2 (t|v1) entries/);
    }
  });

  it("refuses garbage", async () => {
    const { signature } = await sign(BODY, SECRET, { timestamp: NOW });
    const values = [
      "garbage",
      "t=,v1=",
      "=1,v1=ab",
      `t=${NOW},v1=${signature},`,
      `t=${NOW};v1=${signature}`,
      `t=-${NOW},v1=${signature}`,
      `t=${NOW}.5,v1=${signature}`,
      `t=0x10,v1=${signature}`,
      `t=1${"0".repeat(15)},v1=${signature}`,
      `t=${NOW},v1=${signature.slice(1)}`,
      `t=${NOW},v1=${signature.slice(0, -2)}`,
      `t=${NOW},v1=${"zz".repeat(32)}`,
      `t=${NOW},v1=${signature.slice(0, -1)}g`,
    ];
    for (const value of values) {
      await expectReason(verify(BODY, { "service-signature": value }, SECRET, at), "malformed_header");
    }
    await expectReason(
      verify(BODY, { "service-signature": `t=${NOW},v1=abc` }, SECRET, at),
      "malformed_header",
      /not valid hex/,
    );
  });
});

describe("verify: rule 2, timestamp tolerance", () => {
  it("defaults to 300 seconds", () => {
    expect(DEFAULT_TOLERANCE_SEC).toBe(300);
  });

  it("passes at exactly 300 s either way and fails at 301 s, saying which way and by how much", async () => {
    const headers = { "service-signature": await signedHeader() };
    await expect(verify(BODY, headers, SECRET, { now: NOW + 300 })).resolves.toBeUndefined();
    await expect(verify(BODY, headers, SECRET, { now: NOW - 300 })).resolves.toBeUndefined();
    await expectReason(
      verify(BODY, headers, SECRET, { now: NOW + 301 }),
      "timestamp_outside_tolerance",
      /301 s old \(stale\).*tolerance is 300 s/,
    );
    await expectReason(
      verify(BODY, headers, SECRET, { now: NOW - 301 }),
      "timestamp_outside_tolerance",
      /301 s in the future/,
    );
  });

  it("honours a custom tolerance and refuses a nonsensical one", async () => {
    const headers = { "service-signature": await signedHeader() };
    await expect(verify(BODY, headers, SECRET, { now: NOW + 10, toleranceSec: 10 })).resolves.toBeUndefined();
    await expectReason(
      verify(BODY, headers, SECRET, { now: NOW + 11, toleranceSec: 10 }),
      "timestamp_outside_tolerance",
    );
    await expect(verify(BODY, headers, SECRET, { now: NOW + 1, toleranceSec: -1 })).rejects.toBeInstanceOf(
      RangeError,
    );
    await expect(
      verify(BODY, headers, SECRET, { now: NOW, toleranceSec: Number.NaN }),
    ).rejects.toBeInstanceOf(RangeError);
    await expect(
      verify(BODY, headers, SECRET, { now: NOW, toleranceSec: Number.POSITIVE_INFINITY }),
    ).rejects.toBeInstanceOf(RangeError);
  });

  it("checks the timestamp of a signature that is otherwise valid", async () => {
    const old = { "service-signature": await signedHeader(BODY, SECRET, NOW - 3600) };
    await expectReason(verify(BODY, old, SECRET, at), "timestamp_outside_tolerance", /3600 s old/);
  });
});

describe("verify: rule 3, the HMAC over the exact raw bytes", () => {
  it("fails when one byte of the body changes", async () => {
    const bytes = new TextEncoder().encode(BODY);
    const headers = { "service-signature": await signedHeader(bytes) };
    const tampered = bytes.slice();
    tampered[tampered.length - 2]! ^= 0x01;
    await expectReason(verify(tampered, headers, SECRET, at), "no_matching_signature");
    await expectReason(verify(`${BODY} `, headers, SECRET, at), "no_matching_signature");
  });

  it("fails for JSON that was parsed and serialised again", async () => {
    const headers = { "service-signature": await signedHeader() };
    const reserialised = JSON.stringify(JSON.parse(BODY));
    await expectReason(
      verify(reserialised, headers, SECRET, at),
      "no_matching_signature",
      /re-serialising JSON/,
    );
  });

  it("fails when the timestamp is changed but v1 kept", async () => {
    const { signature } = await sign(BODY, SECRET, { timestamp: NOW });
    const headers = { "service-signature": `t=${NOW + 1},v1=${signature}` };
    await expectReason(verify(BODY, headers, SECRET, at), "no_matching_signature");
  });

  it("fails with the wrong secret", async () => {
    const headers = { "service-signature": await signedHeader() };
    await expectReason(verify(BODY, headers, OTHER_SECRET, at), "no_matching_signature");
  });
});

describe("verify: the body must be raw", () => {
  it("explains that a parsed object is not the raw body", async () => {
    const headers = { "service-signature": await signedHeader() };
    const parsed = JSON.parse(BODY) as unknown as string;
    await expectReason(
      verify(parsed, headers, SECRET, at),
      "invalid_body",
      /pass the raw request body, not parsed JSON/i,
    );
  });

  it("explains an undefined body and a stringified object", async () => {
    const headers = { "service-signature": await signedHeader() };
    await expectReason(
      verify(undefined as unknown as string, headers, SECRET, at),
      "invalid_body",
      /express\.raw/,
    );
    await expectReason(verify(null as unknown as string, headers, SECRET, at), "invalid_body", /got null/);
    await expectReason(verify("[object Object]", headers, SECRET, at), "invalid_body", /not parsed JSON/);
  });
});

describe("verify: secrets", () => {
  it("names leading and trailing whitespace without printing the secret", async () => {
    const headers = { "service-signature": await signedHeader() };
    const trailing = await expectReason(
      verify(BODY, headers, `${SECRET}\n`, at),
      "secret_whitespace",
      /ends with a newline/,
    );
    expect(trailing.message).not.toContain(SECRET.slice(6));
    await expectReason(verify(BODY, headers, ` ${SECRET}`, at), "secret_whitespace", /starts with a space/);
    await expectReason(verify(BODY, headers, `${SECRET}\r`, at), "secret_whitespace", /carriage return/);
    await expectReason(verify(BODY, headers, `\t${SECRET}`, at), "secret_whitespace", /tab/);
    await expectReason(
      verify(BODY, headers, [SECRET, `${NEW_SECRET}\n`], at),
      "secret_whitespace",
      /secret at index 1 ends with a newline/,
    );
  });

  it("refuses secrets that are not endpoint secrets", async () => {
    const headers = { "service-signature": await signedHeader() };
    await expectReason(verify(BODY, headers, "", at), "invalid_secret", /empty/);
    await expectReason(verify(BODY, headers, "whsec_", at), "invalid_secret", /whsec_/);
    await expectReason(verify(BODY, headers, "sk_live_123", at), "invalid_secret", /whsec_/);
    await expectReason(verify(BODY, headers, [], at), "invalid_secret", /empty array/);
    await expectReason(
      verify(BODY, headers, undefined as unknown as string, at),
      "invalid_secret",
      /undefined/,
    );
  });

  it("checks secrets before looking at the request, so configuration errors always surface", async () => {
    await expectReason(verify(BODY, {}, `${SECRET}\n`, at), "secret_whitespace");
  });

  it("passes when any of several secrets matches", async () => {
    const headers = { "service-signature": await signedHeader() };
    await expect(verify(BODY, headers, [OTHER_SECRET, SECRET], at)).resolves.toBeUndefined();
    await expect(verify(BODY, headers, [SECRET, OTHER_SECRET], at)).resolves.toBeUndefined();
    await expectReason(verify(BODY, headers, [OTHER_SECRET, NEW_SECRET], at), "no_matching_signature");
  });
});

describe("verify: secret rotation", () => {
  async function rotationHeaders(timestamp = NOW) {
    return signatureHeaders(BODY, { secret: NEW_SECRET, previousSecret: SECRET, timestamp });
  }

  it("lets a receiver with either the old or the new secret verify during the 24 hours", async () => {
    const headers = await rotationHeaders();
    await expect(verify(BODY, headers, SECRET, at)).resolves.toBeUndefined();
    await expect(verify(BODY, headers, NEW_SECRET, at)).resolves.toBeUndefined();
    await expect(verify(BODY, headers, [SECRET, NEW_SECRET], at)).resolves.toBeUndefined();
    await expect(verify(BODY, new Headers(headers), NEW_SECRET, at)).resolves.toBe(undefined);
    await expectReason(verify(BODY, headers, OTHER_SECRET, at), "no_matching_signature");
  });

  it("matches the new secret only via the Next header and the old one only via the main one", async () => {
    const headers = await rotationHeaders();
    const mainOnly = { "Service-Signature": headers["Service-Signature"] };
    await expect(verify(BODY, mainOnly, SECRET, at)).resolves.toBeUndefined();
    await expectReason(verify(BODY, mainOnly, NEW_SECRET, at), "no_matching_signature");

    const nextWithForeignMain = {
      "Service-Signature": await signedHeader(BODY, OTHER_SECRET),
      "Service-Signature-Next": headers["Service-Signature-Next"],
    };
    await expect(verify(BODY, nextWithForeignMain, NEW_SECRET, at)).resolves.toBeUndefined();
    await expectReason(verify(BODY, nextWithForeignMain, SECRET, at), "no_matching_signature");
  });

  it("needs the main header even when the Next one is present", async () => {
    const headers = await rotationHeaders();
    await expectReason(
      verify(BODY, { "Service-Signature-Next": headers["Service-Signature-Next"] }, NEW_SECRET, at),
      "missing_header",
    );
  });

  it("applies rules 1 and 2 to the Next header too", async () => {
    const headers = await rotationHeaders();
    await expectReason(
      verify(BODY, { ...headers, "Service-Signature-Next": "garbage" }, SECRET, at),
      "malformed_header",
      /Service-Signature-Next/,
    );
    const staleNext = {
      ...headers,
      "Service-Signature-Next": await signedHeader(BODY, NEW_SECRET, NOW - 600),
    };
    await expectReason(
      verify(BODY, staleNext, NEW_SECRET, at),
      "timestamp_outside_tolerance",
      /Service-Signature-Next/,
    );
  });
});

describe("WebhookVerificationError", () => {
  it("is an Error with a name and a reason", async () => {
    const error = await failure(verify(BODY, {}, SECRET, at));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("WebhookVerificationError");
    expect(error.reason).toBe("missing_header");
  });
});
