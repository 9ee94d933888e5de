import { ApiError, assertPublicHost, type Resolver } from "../../kernel";

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
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("`baseUrl` must be an absolute URL such as https://llm.example.com/v1.");
  }
  const schemes = opts.allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) {
    throw invalid(`\`baseUrl\` must use https; got ${url.protocol.replace(/:$/, "")}.`);
  }
  if (url.username || url.password) {
    throw invalid("`baseUrl` must not carry a user name or password; put the key in `apiKey`.");
  }
  if (url.search || url.hash) throw invalid("`baseUrl` must not carry a query or a fragment.");
  const normalised = url.toString().replace(/\/+$/, "");
  if (opts.allowPrivate) return normalised;
  await assertPublicHost(url, {
    field: "baseUrl",
    purpose: "model providers must be on public addresses",
    invalid,
    resolve: opts.resolve,
  });
  return normalised;
}
