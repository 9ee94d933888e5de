import { ApiError, checkOutboundUrl, type Resolver } from "../../kernel";

const invalid = (message: string) => new ApiError("byok_base_url_invalid", message, { param: "baseUrl" });

/**
 * Checks a provider address the way webhook URLs are checked, since a team's key is sent there: https, no
 * credentials in the URL, a host resolving only to public addresses. With `allowPrivate` (local development,
 * `AUTOUSER_ALLOW_PRIVATE_URLS=true`) plain http and private hosts such as a local Ollama are accepted.
 * Answers the URL without a trailing slash, as the SDKs join paths to it.
 */
export async function checkProviderBaseUrl(
  raw: string,
  opts: { allowPrivate: boolean; resolve?: Resolver },
): Promise<string> {
  const url = await checkOutboundUrl(raw, {
    field: "baseUrl",
    example: "https://llm.example.com/v1",
    instead: "put the key in `apiKey`",
    purpose: "model providers must be on public addresses",
    bare: true,
    invalid,
    ...opts,
  });
  return url.toString().replace(/\/+$/, "");
}
