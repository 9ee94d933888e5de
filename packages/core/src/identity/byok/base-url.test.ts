import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../kernel";
import { checkProviderBaseUrl } from "./base-url";

describe("one outbound-URL guard for webhook endpoints and model base URLs", () => {
  const publicHost = async () => ["93.184.216.34"];
  const loopback = async () => ["127.0.0.1"];
  const refusal = async (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (err: { code: string; param: string; message: string }) => [err.code, err.param, err.message],
    );

  it("words each refusal for its own field", async () => {
    const webhook = (raw: string) => checkWebhookUrl(raw, { allowPrivate: false, resolve: loopback });
    const baseUrl = (raw: string) => checkProviderBaseUrl(raw, { allowPrivate: false, resolve: loopback });
    expect(await refusal(webhook("nope"))).toEqual([
      "webhook_url_invalid",
      "url",
      "`url` must be an absolute URL such as https://example.com/webhooks.",
    ]);
    expect(await refusal(baseUrl("nope"))).toEqual([
      "byok_base_url_invalid",
      "baseUrl",
      "`baseUrl` must be an absolute URL such as https://llm.example.com/v1.",
    ]);
    expect(await refusal(baseUrl("ftp://llm.example.com"))).toEqual([
      "byok_base_url_invalid",
      "baseUrl",
      "`baseUrl` must use https; got ftp.",
    ]);
    expect(await refusal(webhook("https://u:p@hooks.example.com/x"))).toEqual([
      "webhook_url_invalid",
      "url",
      "`url` must not carry a user name or password; authenticate with the signature instead.",
    ]);
    expect(await refusal(baseUrl("https://u:p@llm.example.com/v1"))).toEqual([
      "byok_base_url_invalid",
      "baseUrl",
      "`baseUrl` must not carry a user name or password; put the key in `apiKey`.",
    ]);
    expect(await refusal(baseUrl("https://llm.example.com/v1?x=1"))).toEqual([
      "byok_base_url_invalid",
      "baseUrl",
      "`baseUrl` must not carry a query or a fragment.",
    ]);
    expect(await refusal(baseUrl("https://llm.example.com/v1"))).toEqual([
      "byok_base_url_invalid",
      "baseUrl",
      "The host of `baseUrl` resolves to 127.0.0.1, a private, loopback or link-local address; model providers must be on public addresses.",
    ]);
    expect(await refusal(webhook("https://hooks.example.com/x"))).toEqual([
      "webhook_url_invalid",
      "url",
      "The host of `url` resolves to 127.0.0.1, a private, loopback or link-local address; webhooks go to public addresses only.",
    ]);
  });

  it("answers each kind normalised its own way; a query is refused only where paths are appended", async () => {
    await expect(
      checkWebhookUrl("https://hooks.example.com/x?t=1", { allowPrivate: false, resolve: publicHost }),
    ).resolves.toBe("https://hooks.example.com/x?t=1");
    await expect(
      checkProviderBaseUrl("https://llm.example.com/v1//", { allowPrivate: false, resolve: publicHost }),
    ).resolves.toBe("https://llm.example.com/v1");
    await expect(checkProviderBaseUrl("http://localhost:11434/v1/", { allowPrivate: true })).resolves.toBe(
      "http://localhost:11434/v1",
    );
  });
});
